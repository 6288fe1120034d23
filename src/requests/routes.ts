// The owner's file request routes (v2, with a key): make, list, read, change, close, and the
// files received. HTTP only: the rules are in service.ts.
import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { AppEnv } from '../env';
import { fileRecord } from '../files/records';
import { FileRecordV2 } from '../files/schemas';
import { errorsWith, ok, POLICY_ERRORS } from '../http/openapi';
import { origins, storage } from '../http/request-deps';
import { requires } from '../http/route-needs';
import { jsonBodyLimit } from '../http/validation';
import type { Scope } from '../limiter/scopes';
import { policy } from '../policy/routes';
import { PaginationSchema, successV2 } from '../schemas';
import { listRequestFiles } from '../storage/files-repo';
import { isoNow } from '../time';
import { accountIdOf } from './owner';
import { requestRecord } from './records';
import {
  RequestCreateSchema,
  RequestIdParamSchema,
  RequestListQuerySchema,
  RequestRecordSchema,
  RequestUpdateSchema,
} from './schemas';
import { closeRequest, createRequest, getRequest, listRequests, updateRequest } from './service';
import { endOpenUploads } from './tus-routes';

/**
 * The scope of every owner route, reads included: a request's record carries its URLs, which
 * are capabilities to upload into the account, so reading them is no less than making one
 * (`files:read` would hand them to a read-only key). The contract names one scope for file
 * requests; `GET /requests/{id}/files` follows it too.
 */
export const REQUESTS_SCOPE = 'requests:write' satisfies Scope;
const REQUESTS_NEEDS = requires({ scope: REQUESTS_SCOPE });

/** The owner routes' own 404. */
const OWNER_CODES = ['REQUEST_NOT_FOUND'] as const;

type RouteConfig = Parameters<typeof createRoute>[0];
/** Every owner route is declared through here: its scope first (route-needs.ts), then its own middleware. */
const owner = <R extends RouteConfig>(route: R) =>
  createRoute({
    ...route,
    middleware: [REQUESTS_NEEDS, ...(route.middleware === undefined ? [] : [route.middleware].flat())] as const,
    tags: ['File requests'],
  });

const Pagination = PaginationSchema;
const pageOf = (page: number, limit: number, total: number) => {
  const totalPages = Math.ceil(total / limit);
  return { page, limit, total, totalPages, hasMore: page < totalPages };
};

/** A page of the key's account's requests, newest first (GET /requests; the MCP tool's too). */
export async function requestsPage(c: Context<AppEnv>, query: z.output<typeof RequestListQuerySchema>) {
  const { page, limit } = query;
  const { rows, total } = await listRequests(storage(c).db, accountIdOf(c), { page, limit });
  const base = origins(c);
  return { requests: rows.map((row) => requestRecord(row, base)), pagination: pageOf(page, limit, total) };
}

/** Closes one of the account's requests and ends its unfinished tus uploads (DELETE /requests/{id}; the MCP tool's too). */
export async function closeOwnRequest(c: Context<AppEnv>, id: string) {
  const row = await closeRequest(storage(c).db, id, accountIdOf(c));
  endOpenUploads(c, row);
  return requestRecord(row, origins(c));
}

export function addRequestRoutes(router: OpenAPIHono<AppEnv>) {
  const create = owner({
    method: 'post',
    path: '/requests',
    operationId: 'createFileRequest',
    summary: 'Ask people without a key to send you files (a file request)',
    description:
      'Answers the request with `url` (a page for people), `uploadUrl` (multipart POST, parts named `file`) ' +
      'and `tusUrl` (tus 1.0). None needs a key: the URL is the capability. Files received land in your ' +
      'account with `requestId`, private unless `isPublic` is true. The account’s policy (GET /policy) may bound ' +
      'the expiry, require a maxBytes and a password length, and refuse `isPublic: true` while a link bound ' +
      'applies that a default link cannot keep: 422 POLICY_VIOLATION names each bound broken.',
    middleware: [jsonBodyLimit()] as const,
    request: { body: { required: true, content: { 'application/json': { schema: RequestCreateSchema } } } },
    responses: {
      201: ok(successV2(RequestRecordSchema), 'The request'),
      ...errorsWith(OWNER_CODES, 400, 401, 429),
      ...POLICY_ERRORS,
    },
  });
  router.openapi(create, async (c) => {
    const row = await createRequest(storage(c).db, c.get('config'), policy(c), accountIdOf(c), c.req.valid('json'));
    return c.json({ success: true as const, data: requestRecord(row, origins(c)) }, 201);
  });

  const list = owner({
    method: 'get',
    path: '/requests',
    operationId: 'listFileRequests',
    summary: 'Your file requests, newest first',
    request: { query: RequestListQuerySchema },
    responses: {
      200: ok(successV2(z.object({ requests: z.array(RequestRecordSchema), pagination: Pagination })), 'A page'),
      ...errorsWith(OWNER_CODES, 400, 401, 429),
    },
  });
  router.openapi(list, async (c) => {
    const data = await requestsPage(c, c.req.valid('query'));
    return c.json({ success: true as const, data }, 200);
  });

  const get = owner({
    method: 'get',
    path: '/requests/{id}',
    operationId: 'getFileRequest',
    summary: 'One file request, with its counts',
    request: { params: RequestIdParamSchema },
    responses: { 200: ok(successV2(RequestRecordSchema), 'The request'), ...errorsWith(OWNER_CODES, 401, 404, 429) },
  });
  router.openapi(get, async (c) => {
    const row = await getRequest(storage(c).db, c.req.valid('param').id, accountIdOf(c));
    return c.json({ success: true as const, data: requestRecord(row, origins(c)) }, 200);
  });

  const update = owner({
    method: 'patch',
    path: '/requests/{id}',
    operationId: 'updateFileRequest',
    summary: 'Change a file request’s limits; close it ({"closed": true}) or reopen it ({"closed": false})',
    description:
      'Limits apply at once to uploads not yet admitted. Closing refuses every later request on its URLs ' +
      '(410) and ends its unfinished tus uploads, freeing what they held; received files stay.',
    middleware: [jsonBodyLimit()] as const,
    request: {
      params: RequestIdParamSchema,
      body: { required: true, content: { 'application/json': { schema: RequestUpdateSchema } } },
    },
    responses: {
      200: ok(successV2(RequestRecordSchema), 'The request as it is now'),
      ...errorsWith(OWNER_CODES, 400, 401, 404, 429),
      ...POLICY_ERRORS,
    },
  });
  router.openapi(update, async (c) => {
    const body = c.req.valid('json');
    const { id } = c.req.valid('param');
    const row = await updateRequest(storage(c).db, c.get('config'), policy(c), id, accountIdOf(c), body);
    if (row.closed_at !== null) endOpenUploads(c, row);
    return c.json({ success: true as const, data: requestRecord(row, origins(c)) }, 200);
  });

  const remove = owner({
    method: 'delete',
    path: '/requests/{id}',
    operationId: 'closeFileRequest',
    summary: 'Close a file request (the files received stay)',
    request: { params: RequestIdParamSchema },
    responses: {
      200: ok(successV2(RequestRecordSchema), 'The request, closed'),
      ...errorsWith(OWNER_CODES, 401, 404, 429),
    },
  });
  router.openapi(remove, async (c) => {
    const data = await closeOwnRequest(c, c.req.valid('param').id);
    return c.json({ success: true as const, data }, 200);
  });

  const files = owner({
    method: 'get',
    path: '/requests/{id}/files',
    operationId: 'listFileRequestFiles',
    summary: 'The files a request received (those still in the account), newest first',
    request: { params: RequestIdParamSchema, query: RequestListQuerySchema },
    responses: {
      200: ok(successV2(z.object({ files: z.array(FileRecordV2), pagination: Pagination })), 'A page of files'),
      ...errorsWith(OWNER_CODES, 400, 401, 404, 429),
    },
  });
  router.openapi(files, async (c) => {
    const accountId = accountIdOf(c);
    const { db } = storage(c);
    const request = await getRequest(db, c.req.valid('param').id, accountId);
    const { page, limit } = c.req.valid('query');
    const found = await listRequestFiles(db, request.id, accountId, isoNow(), {
      limit,
      offset: (page - 1) * limit,
    });
    const base = origins(c);
    const data = {
      files: found.rows.map((row) => fileRecord(row, 'v2', base)),
      pagination: pageOf(page, limit, found.total),
    };
    return c.json({ success: true as const, data }, 200);
  });
}
