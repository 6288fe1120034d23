// v2: the access logs of share links (GET /links/{linkId}/access, GET /files/{id}/access), read
// with `files:read`. HTTP only: the rules are in access-log.ts.
import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { AccessPageSchema, AccessQuerySchema } from '../access-log/schemas';
import type { AppEnv } from '../env';
import { FileIdParamSchema } from '../files/schemas';
import { errors, ok } from '../http/openapi';
import { accountId, storage } from '../http/request-deps';
import { requires } from '../http/route-needs';
import { successV2 } from '../schemas';
import { fileAccessLog, type LinkLogDeps, linkAccessLog } from './access-log';
import { LinkIdParamSchema } from './schemas';

const deps = (c: Context<AppEnv>): LinkLogDeps => ({ db: storage(c).db, counters: c.env.LINK_COUNTERS });

const PAGE_DESCRIPTION =
  'Newest first, `limit` (1…100, default 20) at a time; pass `nextCursor` back as `cursor` for the next page ' +
  '(null at the end). Every visit of the URL is an event: pages, downloads, previews, password attempts, ' +
  'refused and throttled ones included (see docs/access-log.md). The client’s address is never kept: ' +
  '`visitor` is a keyed hash of it that changes every 30 days.';

export function addLinkAccessRoutes(router: OpenAPIHono<AppEnv>) {
  const link = createRoute({
    method: 'get',
    path: '/links/{linkId}/access',
    operationId: 'getShareLinkAccessLog',
    summary: 'Who fetched what through a link: its access log',
    description: PAGE_DESCRIPTION,
    middleware: [requires({ scope: 'files:read' })] as const,
    request: { params: LinkIdParamSchema, query: AccessQuerySchema },
    responses: { 200: ok(successV2(AccessPageSchema), 'A page of events'), ...errors(400, 401, 404, 429) },
  });
  router.openapi(link, async (c) => {
    const data = await linkAccessLog(deps(c), c.req.valid('param').linkId, accountId(c), c.req.valid('query'));
    return c.json({ success: true as const, data }, 200);
  });

  const file = createRoute({
    method: 'get',
    path: '/files/{id}/access',
    operationId: 'getFileAccessLog',
    summary: 'Who fetched a file: its default link’s access log and every link made to it, merged',
    description: `${PAGE_DESCRIPTION} Each event's \`linkId\` names the made link it came through (null: the default link).`,
    middleware: [requires({ scope: 'files:read' })] as const,
    request: { params: FileIdParamSchema, query: AccessQuerySchema },
    responses: { 200: ok(successV2(AccessPageSchema), 'A page of events'), ...errors(400, 401, 404, 429) },
  });
  router.openapi(file, async (c) => {
    const data = await fileAccessLog(deps(c), c.req.valid('param').id, accountId(c), c.req.valid('query'));
    return c.json({ success: true as const, data }, 200);
  });
}
