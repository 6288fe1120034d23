// The OAuth grants API's schemas (GET/DELETE /api/v2/oauth/grants): what the keys page lists.
import { z } from '@hono/zod-openapi';
import { ScopeSchema } from '../keys/schemas.ts';

export const OAuthGrantSchema = z
  .object({
    id: z.string(),
    clientId: z.string(),
    clientName: z.string().openapi({ description: 'As the client registered itself: not verified' }),
    scopes: z.array(ScopeSchema),
    createdAt: z.string(),
    expiresAt: z.string().nullable(),
  })
  .openapi('OAuthGrant');
