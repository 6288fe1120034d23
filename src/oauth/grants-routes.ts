// v2: the grants the account gave OAuth (MCP) clients, listed and revoked with keys:write, as keys are.
import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import type { AppEnv } from '../env';
import { ApiError } from '../errors';
import { errors, ok } from '../http/openapi';
import { accountId, origins } from '../http/request-deps';
import { requires } from '../http/route-needs';
import { successV2 } from '../schemas';
import { isoNow } from '../time';
import { listGrants, type OAuthGrant, revokeGrant } from './authorization-server';
import { OAuthGrantSchema } from './schemas';

const GrantIdParamSchema = z.object({ grantId: z.string().openapi({ param: { name: 'grantId', in: 'path' } }) });

// The library counts seconds since the epoch; the API writes one time format.
const grantRecord = (grant: OAuthGrant) => ({
  ...grant,
  createdAt: isoNow(grant.createdAt * 1000),
  expiresAt: grant.expiresAt === null ? null : isoNow(grant.expiresAt * 1000),
});

export function addOAuthGrantRoutes(router: OpenAPIHono<AppEnv>) {
  const needs = requires({ scope: 'keys:write' });

  const list = createRoute({
    method: 'get',
    path: '/oauth/grants',
    operationId: 'listOAuthGrants',
    summary: 'The grants the account gave OAuth clients (MCP), newest first',
    middleware: [needs] as const,
    responses: {
      200: ok(successV2(z.object({ grants: z.array(OAuthGrantSchema) })), 'Every live grant of the account'),
      ...errors(401, 429),
    },
  });
  router.openapi(list, async (c) => {
    const grants = await listGrants(c.env, origins(c).api, accountId(c));
    return c.json({ success: true as const, data: { grants: grants.map(grantRecord) } }, 200);
  });

  const revoke = createRoute({
    method: 'delete',
    path: '/oauth/grants/{grantId}',
    operationId: 'revokeOAuthGrant',
    summary: 'Revoke a grant: its access and refresh tokens are refused from then on',
    middleware: [needs] as const,
    request: { params: GrantIdParamSchema },
    responses: { 200: ok(successV2(z.object({ id: z.string() })), 'The revoked grant'), ...errors(401, 404, 429) },
  });
  router.openapi(revoke, async (c) => {
    const { grantId } = c.req.valid('param');
    if (!(await revokeGrant(c.env, origins(c).api, accountId(c), grantId))) throw new ApiError('NOT_FOUND');
    return c.json({ success: true as const, data: { id: grantId } }, 200);
  });
}
