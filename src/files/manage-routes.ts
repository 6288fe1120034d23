// v2 only: PATCH /files/{id} (change a file) and GET /usage (the key's account and limits).
import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { AppEnv } from '../env';
import { errors, ok, POLICY_ERRORS } from '../http/openapi';
import { origins, storage } from '../http/request-deps';
import { requires } from '../http/route-needs';
import { jsonBodyLimit } from '../http/validation';
import { accountUsage } from '../limiter/key-limiter-client';
import { policy } from '../policy/routes';
import { successV2 } from '../schemas';
import { fileRecord } from './records';
import { FileIdParamSchema, FileRecordV2, FileUpdateSchema, UsageSchema } from './schemas';
import { updateFile } from './update';

export function addManageRoutes(router: OpenAPIHono<AppEnv>) {
  const update = createRoute({
    method: 'patch',
    path: '/files/{id}',
    operationId: 'updateFile',
    summary: 'Change a file: isPublic, originalName, expiry',
    description:
      'Only the fields sent change; `updatedAt` always does. `expiresAt` and `expiresIn` exclude each ' +
      'other, and null for either clears the expiry. Making a file private stops its share link at once. A new ' +
      'expiry keeps to the account’s policy (GET /policy: fileMaxExpirySeconds, fileRequireExpiry), or 422; so does ' +
      '`isPublic: true` (refused while linkRequirePassword, linkMaxDownloads or linkRequireExpiry applies).',
    middleware: [requires({ scope: 'files:write' }), jsonBodyLimit()] as const,
    request: {
      params: FileIdParamSchema,
      body: { required: true, content: { 'application/json': { schema: FileUpdateSchema } } },
    },
    responses: {
      200: ok(successV2(FileRecordV2), 'The file as it is now'),
      ...errors(400, 401, 404, 415, 429),
      ...POLICY_ERRORS,
    },
  });
  router.openapi(update, async (c) => {
    const { id } = c.req.valid('param');
    const row = await updateFile(storage(c), id, c.get('apiKey'), c.req.valid('json'), policy(c));
    return c.json({ success: true as const, data: fileRecord(row, 'v2', origins(c)) }, 200);
  });

  const usage = createRoute({
    method: 'get',
    path: '/usage',
    operationId: 'getUsage',
    summary: 'What the key stores, what uploads hold, and its limits',
    middleware: [requires({ scope: 'files:read', readsUsage: true })] as const,
    responses: { 200: ok(successV2(UsageSchema), 'The key’s account and limits'), ...errors(401, 429, 503) },
  });
  router.openapi(usage, async (c) => c.json({ success: true as const, data: await usageOf(c) }, 200));
}

/** GET /usage's data (and the MCP tool get_usage's): the key's account, and its limits. */
export async function usageOf(c: Context<AppEnv>) {
  const key = c.get('apiKey');
  // Read by the call that admitted the request; asked again only if that call could not be made.
  const account = c.get('usage') ?? (await accountUsage(c.env.KEY_LIMITER, key));
  return {
    usedBytes: account.usedBytes,
    reservedBytes: account.heldBytes,
    quotaBytes: key.storageQuotaBytes,
    files: account.files,
    reservedFiles: account.heldFiles,
    maxFiles: key.maxFiles,
    rateLimit: { requests: key.rateLimitRequests, windowSeconds: key.rateLimitWindowSeconds },
  };
}
