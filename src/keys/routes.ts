// v2: the account's own API keys (keys:write). HTTP only: the rules are in service.ts.
import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import type { AppEnv } from '../env';
import { errors, ok } from '../http/openapi';
import { storage } from '../http/request-deps';
import { requires } from '../http/route-needs';
import { jsonBodyLimit } from '../http/validation';
import { successV2 } from '../schemas';
import { CreateKeySchema, KeyRecordSchema, NewKeyRecordSchema, RenameKeySchema } from './schemas';
import { createKey, keyRecord, listKeysOf, renameKey, revokeKey } from './service';

const KeyIdParamSchema = z.object({ keyId: z.string().openapi({ param: { name: 'keyId', in: 'path' } }) });

export function addKeyRoutes(router: OpenAPIHono<AppEnv>) {
  const needs = requires({ scope: 'keys:write' });

  const list = createRoute({
    method: 'get',
    path: '/keys',
    operationId: 'listKeys',
    summary: 'The account’s API keys (revoked ones included)',
    middleware: [needs] as const,
    responses: {
      200: ok(successV2(z.object({ keys: z.array(KeyRecordSchema) })), 'Every key of the account'),
      ...errors(401, 429),
    },
  });
  router.openapi(list, async (c) => {
    const rows = await listKeysOf(storage(c), c.get('apiKey'));
    return c.json({ success: true as const, data: { keys: rows.map(keyRecord) } }, 200);
  });

  const create = createRoute({
    method: 'post',
    path: '/keys',
    operationId: 'createKey',
    summary: 'Make a key for the account: at most the caller’s scopes, expiring no later than the caller',
    description: 'The answer carries `key`, the secret, this once and never again.',
    middleware: [needs, jsonBodyLimit()] as const,
    request: { body: { required: true, content: { 'application/json': { schema: CreateKeySchema } } } },
    responses: {
      201: ok(successV2(NewKeyRecordSchema), 'The new key, with its secret'),
      ...errors(400, 401, 415, 429),
    },
  });
  router.openapi(create, async (c) => {
    const data = await createKey(storage(c), c.get('apiKey'), c.req.valid('json'));
    return c.json({ success: true as const, data }, 201);
  });

  const rename = createRoute({
    method: 'patch',
    path: '/keys/{keyId}',
    operationId: 'renameKey',
    summary: 'Rename one of the account’s keys (its scopes and expiry never change)',
    middleware: [needs, jsonBodyLimit()] as const,
    request: {
      params: KeyIdParamSchema,
      body: { required: true, content: { 'application/json': { schema: RenameKeySchema } } },
    },
    responses: { 200: ok(successV2(KeyRecordSchema), 'The key'), ...errors(400, 401, 404, 415, 429) },
  });
  router.openapi(rename, async (c) => {
    const data = await renameKey(storage(c), c.get('apiKey'), c.req.valid('param').keyId, c.req.valid('json').name);
    return c.json({ success: true as const, data }, 200);
  });

  const revoke = createRoute({
    method: 'delete',
    path: '/keys/{keyId}',
    operationId: 'revokeKey',
    summary: 'Revoke one of the account’s keys: refused from its very next request',
    description: 'The account’s last active key with keys:write cannot be revoked (409 LAST_KEYS_WRITE_KEY).',
    middleware: [needs] as const,
    request: { params: KeyIdParamSchema },
    responses: { 200: ok(successV2(KeyRecordSchema), 'The revoked key'), ...errors(401, 404, 409, 429) },
  });
  router.openapi(revoke, async (c) => {
    const data = await revokeKey(storage(c), c.get('apiKey'), c.req.valid('param').keyId);
    return c.json({ success: true as const, data }, 200);
  });
}
