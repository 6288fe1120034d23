// The hash blocklist under /admin (ADMIN_TOKEN, added by src/keys/admin-routes.ts): block a hash
// with a reason, look one up, unblock it, read the list newest first a page at a time, and import a
// list (text/plain, one hex SHA-256 a line). docs/abuse.md walks through them.
import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import { bodyLimit } from 'hono/body-limit';
import { createMiddleware } from 'hono/factory';
import type { AppEnv } from '../env';
import { ApiError, validationError } from '../errors';
import { jsonResponse } from '../http/openapi';
import type { BlocklistRow } from '../storage/blocklist-repo';
import {
  blockedHash,
  blockHash,
  blocklistPage,
  importHashes,
  MAX_IMPORT_BYTES,
  MAX_IMPORT_HASHES,
  unblockHash,
} from './blocklist';
import {
  BlockBodySchema,
  BlockedSchema,
  BlocklistQuerySchema,
  HashParamSchema,
  ImportOutcomeSchema,
  ImportQuerySchema,
} from './blocklist-schemas';

const blockedRecord = (row: BlocklistRow) => ({ sha256: row.sha256, reason: row.reason, createdAt: row.created_at });

const ok = <T extends z.ZodType>(data: T, description: string) =>
  jsonResponse(z.object({ success: z.literal(true), data }), description);

/** An import is text/plain (any charset) of at most MAX_IMPORT_BYTES, refused before it is read. */
const plainText = createMiddleware<AppEnv>(async function plainText(c, next) {
  const type = c.req.header('content-type')?.split(';')[0]?.trim().toLowerCase();
  if (type !== 'text/plain') {
    throw new ApiError(
      'UNSUPPORTED_MEDIA_TYPE',
      'Send the list as text/plain: one SHA-256 a line (curl: -H "Content-Type: text/plain" --data-binary @list.txt)',
    );
  }
  await next();
});
const importLimit = bodyLimit({
  maxSize: MAX_IMPORT_BYTES,
  onError: () => {
    throw validationError('body', `must be at most ${MAX_IMPORT_BYTES} bytes`);
  },
});

export function addBlocklistRoutes(router: OpenAPIHono<AppEnv>) {
  const db = (c: { env: AppEnv['Bindings'] }) => ({ db: c.env.DB });

  const put = createRoute({
    method: 'put',
    path: '/blocklist/{sha256}',
    request: {
      params: HashParamSchema,
      body: { required: true, content: { 'application/json': { schema: BlockBodySchema } } },
    },
    responses: {
      201: ok(BlockedSchema, 'The hash, blocked now'),
      200: ok(BlockedSchema, 'The hash was blocked already: its entry, with this reason'),
    },
  });
  router.openapi(put, async (c) => {
    const { row, added } = await blockHash(db(c), c.req.valid('param').sha256, c.req.valid('json').reason);
    const data = blockedRecord(row);
    return added ? c.json({ success: true as const, data }, 201) : c.json({ success: true as const, data }, 200);
  });

  const get = createRoute({
    method: 'get',
    path: '/blocklist/{sha256}',
    request: { params: HashParamSchema },
    responses: { 200: ok(BlockedSchema, 'The hash’s entry (404 when it is not blocked)') },
  });
  router.openapi(get, async (c) => {
    const row = await blockedHash(db(c), c.req.valid('param').sha256);
    return c.json({ success: true as const, data: blockedRecord(row) }, 200);
  });

  const remove = createRoute({
    method: 'delete',
    path: '/blocklist/{sha256}',
    request: { params: HashParamSchema },
    responses: { 200: ok(BlockedSchema, 'The entry the hash had: uploads of it are taken again') },
  });
  router.openapi(remove, async (c) => {
    const row = await unblockHash(db(c), c.req.valid('param').sha256);
    return c.json({ success: true as const, data: blockedRecord(row) }, 200);
  });

  const list = createRoute({
    method: 'get',
    path: '/blocklist',
    request: { query: BlocklistQuerySchema },
    responses: {
      200: ok(
        z.object({ hashes: z.array(BlockedSchema), nextCursor: z.string().nullable() }),
        'Blocked hashes, newest first',
      ),
    },
  });
  router.openapi(list, async (c) => {
    const { limit, cursor } = c.req.valid('query');
    const page = await blocklistPage(db(c), limit, cursor);
    return c.json(
      { success: true as const, data: { hashes: page.rows.map(blockedRecord), nextCursor: page.nextCursor } },
      200,
    );
  });

  const importList = createRoute({
    method: 'post',
    path: '/blocklist',
    middleware: [plainText, importLimit] as const,
    request: {
      query: ImportQuerySchema,
      body: {
        required: true,
        description:
          `One hex SHA-256 a line (any case), at most ${MAX_IMPORT_HASHES} of them and ${MAX_IMPORT_BYTES} bytes; ` +
          'blank lines and lines starting with # are skipped. Any other line refuses the whole list.',
        content: { 'text/plain': { schema: z.string() } },
      },
    },
    responses: { 200: ok(ImportOutcomeSchema, 'What the import did') },
  });
  router.openapi(importList, async (c) => {
    const outcome = await importHashes(db(c), await c.req.text(), c.req.valid('query').reason ?? null);
    return c.json({ success: true as const, data: outcome }, 200);
  });
}
