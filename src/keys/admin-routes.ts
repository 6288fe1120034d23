// /admin/keys: issue, list and revoke API keys over HTTP, guarded by the ADMIN_TOKEN secret; every
// account's keys. /admin/accounts (admin-accounts-routes.ts): the account view. The operator's
// abuse routes (src/abuse/admin-routes.ts): takedowns, suspensions, reports.
import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi';
import { createMiddleware } from 'hono/factory';
import { addAbuseRoutes } from '../abuse/admin-routes';
import type { AppEnv } from '../env';
import { ApiError, unauthorized } from '../errors';
import { bearerToken } from '../http/bearer';
import { addFallbacks } from '../http/fallbacks';
import { jsonResponse } from '../http/openapi';
import { validationHook } from '../http/validation';
import { sha256Hex } from '../lib/crypto';
import { clientAddress, recordFailure, refuseIfBlocked } from '../limiter/auth-guard-client';
import { keyChanged, type LimiterNamespace } from '../limiter/key-limiter-client';
import { insertKey, type KeyRow, listKeys, overridesOf, revokeKey, updateKeyOverrides } from '../storage/keys-repo';
import { isoNow } from '../time';
import { addAccountRoutes, pushAccountLimits } from './admin-accounts-routes';
import { newKeyMaterial } from './key-material';
import { KeyNameSchema } from './key-name';
import { KeySchema, keyRecord } from './records';

const OverridesSchema = z.object({
  rateLimitRequests: z.number().int().min(1).max(1_000_000).nullish(),
  rateLimitWindowSeconds: z.number().int().min(1).max(86_400).nullish(),
  storageQuotaBytes: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).nullish(),
  maxFiles: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).nullish(),
});

export const CreateKeySchema = OverridesSchema.extend({
  name: KeyNameSchema,
});
/** null clears an override (back to the configured default); an absent field is left as it is. */
export const UpdateKeySchema = OverridesSchema;

/** The key's object applies a change at once: a revoked key is refused on its very next request. */
export const pushKeyState = (namespace: LimiterNamespace, row: KeyRow) =>
  keyChanged(namespace, row.id, { status: row.status, overrides: overridesOf(row) });

/** Compares hashes, so the time taken says nothing about how much of the token matched. */
async function sameSecret(given: string, expected: string): Promise<boolean> {
  const [a, b] = await Promise.all([sha256Hex(given), sha256Hex(expected)]);
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

const adminAuth = () =>
  createMiddleware<AppEnv>(async function adminAuth(c, next) {
    const expected = c.get('config').ADMIN_TOKEN;
    // Without ADMIN_TOKEN the admin API does not exist.
    if (!expected) throw new ApiError('NOT_FOUND');
    const header = c.req.header('authorization');
    if (!header) throw unauthorized('Invalid admin token');
    const token = bearerToken(header);
    // The right token always goes on (see docs/limits.md); only failures are refused, and a
    // failure from a blocked address is answered 429 without being recorded again.
    if (!token || !(await sameSecret(token, expected))) {
      const address = clientAddress(c.req.raw.headers);
      refuseIfBlocked(address, 'admin');
      throw await recordFailure(
        c.env.AUTH_GUARD,
        c.get('config'),
        address,
        'admin',
        unauthorized('Invalid admin token'),
      );
    }
    await next();
  });

export function createAdminRouter() {
  const router = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  router.use('*', adminAuth());

  const create = createRoute({
    method: 'post',
    path: '/keys',
    request: { body: { required: true, content: { 'application/json': { schema: CreateKeySchema } } } },
    responses: {
      201: jsonResponse(
        z.object({ success: z.literal(true), data: KeySchema.extend({ key: z.string() }) }),
        'The new key; `key` is shown only this once',
      ),
    },
  });
  router.openapi(create, async (c) => {
    const input = c.req.valid('json');
    const material = await newKeyMaterial();
    const row = await insertKey(c.env.DB, { ...material, name: input.name }, input, isoNow());
    return c.json({ success: true as const, data: { ...keyRecord(row), key: material.key } }, 201);
  });

  const list = createRoute({
    method: 'get',
    path: '/keys',
    responses: {
      200: jsonResponse(
        z.object({ success: z.literal(true), data: z.object({ keys: z.array(KeySchema) }) }),
        'All keys',
      ),
    },
  });
  router.openapi(list, async (c) => {
    const rows = await listKeys(c.env.DB);
    return c.json({ success: true as const, data: { keys: rows.map(keyRecord) } }, 200);
  });

  const update = createRoute({
    method: 'patch',
    path: '/keys/{id}',
    request: {
      params: z.object({ id: z.string() }),
      body: { required: true, content: { 'application/json': { schema: UpdateKeySchema } } },
    },
    responses: { 200: jsonResponse(z.object({ success: z.literal(true), data: KeySchema }), 'The updated key') },
  });
  router.openapi(update, async (c) => {
    const input = c.req.valid('json');
    const row = await updateKeyOverrides(c.env.DB, c.req.valid('param').id, input, isoNow());
    if (!row) throw new ApiError('NOT_FOUND', 'No such key');
    await pushKeyState(c.env.KEY_LIMITER, row);
    // The storage limits are the account's: its other keys apply them at once too.
    if (input.storageQuotaBytes !== undefined || input.maxFiles !== undefined) {
      await pushAccountLimits(c.env, row.account_id, {
        storageQuotaBytes: row.storage_quota_bytes,
        maxFiles: row.max_files,
      });
    }
    return c.json({ success: true as const, data: keyRecord(row) }, 200);
  });

  const revoke = createRoute({
    method: 'delete',
    path: '/keys/{id}',
    request: { params: z.object({ id: z.string() }) },
    responses: { 200: jsonResponse(z.object({ success: z.literal(true), data: KeySchema }), 'The revoked key') },
  });
  router.openapi(revoke, async (c) => {
    const row = await revokeKey(c.env.DB, c.req.valid('param').id, isoNow());
    if (!row) throw new ApiError('NOT_FOUND', 'No such key');
    await pushKeyState(c.env.KEY_LIMITER, row);
    return c.json({ success: true as const, data: keyRecord(row) }, 200);
  });

  addAccountRoutes(router);
  addAbuseRoutes(router);
  addFallbacks(router, { catchAll: true });
  return router;
}
