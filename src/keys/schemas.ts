// The keys API's schemas: validation, the OpenAPI document and the typed client's types (which
// is why this file imports nothing but zod, the key name's rule and the scope list).
import { z } from '@hono/zod-openapi';
import { SCOPES } from '../limiter/scopes.ts';
import { KeyNameSchema } from './key-name.ts';

export const ScopeSchema = z.enum(SCOPES, { message: `must be one of ${SCOPES.join(', ')}` }).openapi('Scope');

const keyFields = {
  id: z.string(),
  name: z.string(),
  prefix: z.string().openapi({ description: 'The key’s first characters, to recognise it' }),
  scopes: z.array(ScopeSchema),
  status: z.enum(['active', 'revoked']),
  createdAt: z.string(),
  expiresAt: z.string().nullable(),
  lastUsedAt: z.string().nullable().openapi({ description: 'May lag by up to a minute' }),
};
export const KeyRecordSchema = z.object(keyFields).openapi('Key');
export const NewKeyRecordSchema = z
  .object({ ...keyFields, key: z.string().openapi({ description: 'The secret: shown this once, never again' }) })
  .openapi('KeyWithSecret');

export const CreateKeySchema = z
  .object({
    name: KeyNameSchema,
    scopes: z
      .array(ScopeSchema)
      .min(1, 'must hold at least one scope')
      .optional()
      .openapi({ description: 'A subset of the calling key’s scopes (default: all of them)' }),
    expiresIn: z
      .number()
      .int('must be a whole number of seconds')
      .min(60, 'must be at least 60')
      .optional()
      .openapi({ description: 'Seconds from now; not with expiresAt' }),
    expiresAt: z.iso
      .datetime({ offset: true, message: 'must be an ISO 8601 date-time with a time zone' })
      .optional()
      .openapi({ description: 'No later than the calling key’s own expiry (default: that expiry, or never)' }),
  })
  .strict()
  .refine((body) => body.expiresAt === undefined || body.expiresIn === undefined, {
    message: 'give expiresAt or expiresIn, not both',
    path: ['expiresIn'],
  })
  .openapi('NewKey');

/** Only the name changes: a key's scopes and expiry are fixed when it is made. */
export const RenameKeySchema = z.object({ name: KeyNameSchema }).strict().openapi('KeyChange');
