// v2: a file request's access log (GET /requests/{id}/access), read with `files:read` like every
// access log (the contract's rule; the log holds no capability, unlike the request's record).
import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { AccessPageSchema, AccessQuerySchema } from '../access-log/schemas';
import { readAccessLog } from '../access-log/service';
import type { AppEnv } from '../env';
import { errorsWith, ok } from '../http/openapi';
import { accountId, storage } from '../http/request-deps';
import { requires } from '../http/route-needs';
import { successV2 } from '../schemas';
import { requestAccessPage } from './request-counter-client';
import { RequestIdParamSchema } from './schemas';
import { getRequest } from './service';

export function addRequestAccessRoutes(router: OpenAPIHono<AppEnv>) {
  const route = createRoute({
    method: 'get',
    path: '/requests/{id}/access',
    operationId: 'getFileRequestAccessLog',
    summary: 'Who used a file request’s URLs: its access log',
    description:
      'Newest first, `limit` (1…100, default 20) at a time; pass `nextCursor` back as `cursor` for the next page ' +
      '(null at the end). Every visit is an event: the page, the description, uploads (form, raw PUT, each tus ' +
      'request, with the bytes received), password attempts, refused and throttled ones included. The ' +
      'client’s address is never kept: `visitor` is a keyed hash of it that changes every 30 days.',
    middleware: [requires({ scope: 'files:read' })] as const,
    request: { params: RequestIdParamSchema, query: AccessQuerySchema },
    tags: ['File requests'],
    responses: {
      200: ok(successV2(AccessPageSchema), 'A page of events'),
      ...errorsWith(['REQUEST_NOT_FOUND'], 400, 401, 404, 429),
    },
  });
  router.openapi(route, async (c) => {
    const data = await requestAccessLog(c, c.req.valid('param').id, c.req.valid('query'));
    return c.json({ success: true as const, data }, 200);
  });
}

/** A file request's access log, for its owner (REQUEST_NOT_FOUND otherwise); the MCP tool's too. */
export async function requestAccessLog(c: Context<AppEnv>, id: string, query: { limit: number; cursor?: string }) {
  const request = await getRequest(storage(c).db, id, accountId(c));
  const counters = c.env.FILE_REQUESTS;
  const source = {
    key: request.id,
    linkId: null,
    page: (page: Parameters<typeof requestAccessPage>[2]) => requestAccessPage(counters, request.id, page),
  };
  return readAccessLog([source], query);
}
