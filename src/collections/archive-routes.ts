// v2 only: the owner's ZIP archives, streamed (never built ahead, never held in memory): a
// collection's, and a file request's. HTTP only: the request's headers go to owner-archive.ts.
import { type createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { AppEnv } from '../env';
import { type ErrorCode, forbidden } from '../errors';
import { offersHead } from '../http/fallbacks';
import { errorResponse, errorsWith, RATE_LIMIT_HEADERS, serveDocumented } from '../http/openapi';
import { accountId, storage } from '../http/request-deps';
import { requires } from '../http/route-needs';
import { hasScope, type Scope } from '../limiter/scopes';
import { REQUESTS_SCOPE } from '../requests/routes';
import { RequestIdParamSchema } from '../requests/schemas';
import { downloadCollectionArchive, downloadRequestArchive, type OwnerArchiveDeps } from './owner-archive';
import { CollectionIdParamSchema } from './schemas';

const deps = (c: Context<AppEnv>): OwnerArchiveDeps => {
  const { bucket, db, events } = storage(c);
  return { bucket, db, events, subrequestBudget: c.get('config').SUBREQUEST_BUDGET };
};

const text = (description: string) => ({ description, required: true, schema: { type: 'string' as const } });

const ARCHIVE_HEADERS = {
  'Content-Type': text('`application/zip`'),
  'Content-Length': {
    description: 'Bytes in this response: exact, whether or not every CRC-32 is known',
    required: true,
    schema: { type: 'integer' as const, minimum: 0 },
  },
  'Content-Disposition': text('`attachment; filename="<ASCII form>.zip"; filename*=UTF-8\'\'<name>.zip`'),
  ETag: text(
    'Strong (`"…"`) while every member’s CRC-32 is known; changes exactly when the archive’s bytes would ' +
      '(a member added, removed, renamed or deleted). Weak (`W/"…"`) while some CRC-32 is still unknown',
  ),
  'Last-Modified': text('When a member last joined, left or was renamed, as an HTTP date'),
  'Accept-Ranges': text('`bytes` while every member’s CRC-32 is known; `none` while some is not (data descriptors)'),
  'Cache-Control': text('`private, no-transform`'),
};

function archiveResponses(method: 'get' | 'head', notFound: ErrorCode) {
  const body = (description: string) =>
    method === 'get'
      ? { content: { 'application/zip': { schema: { type: 'string' as const, format: 'binary', description } } } }
      : {};
  return {
    200: {
      description: 'The whole archive: stored (uncompressed) members, UTF-8 names, Zip64 when needed',
      headers: { ...RATE_LIMIT_HEADERS, ...ARCHIVE_HEADERS },
      ...body('The ZIP archive'),
    },
    206: {
      description: 'One byte range of the archive (only while Accept-Ranges is `bytes`)',
      headers: { ...RATE_LIMIT_HEADERS, ...ARCHIVE_HEADERS, 'Content-Range': text('`bytes <first>-<last>/<length>`') },
      ...body('The bytes of the range'),
    },
    304: {
      description: 'Not modified (If-None-Match matched); no body',
      headers: { ...RATE_LIMIT_HEADERS, ETag: text('The archive’s entity tag') },
    },
    ...errorsWith(['TOO_MANY_FILES', notFound], 400, 401, 404, 416, 429),
    ...errorResponse(
      412,
      'ARCHIVE_CHANGED: `v` names a version that is no longer the archive’s current one (or a malformed one), ' +
        'whatever the method and headers; details: [{"url"}], this route with the current version. A resume ' +
        'without If-Range (`curl -C -`) fails here instead of appending another archive’s bytes',
      ['ARCHIVE_CHANGED'],
    ),
  };
}

const ARCHIVE_DESCRIPTION =
  'Streamed from storage member by member, never built ahead. While every member’s CRC-32 is known the ' +
  'archive’s every byte follows from the records: exact Content-Length, a strong ETag, `Range` (one) → 206, ' +
  '`If-Range`, `If-None-Match` → 304, HEAD; a broken download resumes (`curl -C -`). The URLs handed out ' +
  '(`archiveUrl`) carry the archive’s version, `?v=<version>`: once the archive changes they answer 412 ' +
  'ARCHIVE_CHANGED, so a resume never mixes two archives; without `v` the route answers as ever. While some CRC-32 is ' +
  'not known yet it streams with data descriptors, Content-Length still exact, `Accept-Ranges: none`. An ' +
  'archive (or range) needing more storage reads than SUBREQUEST_BUDGET allows is 400 TOO_MANY_FILES before ' +
  'its first byte.';

type RouteConfig = Parameters<typeof createRoute>[0];

const header = (name: string, description: string) =>
  z
    .string()
    .optional()
    .openapi({ param: { name, in: 'header' }, description });

/** The request headers an archive honours (documented, not validated: the download reads them). */
const ARCHIVE_REQUEST_HEADERS = [
  header('Range', 'One range, `bytes=<first>-[<last>]` or `bytes=-<suffix>`: 206 with that part (while rangeable)'),
  header('If-None-Match', 'The ETag you have: 304 when it still matches'),
  header('If-Range', 'The strong ETag you have: the Range applies only while it matches, else the whole archive'),
];

/** The archive's version (documented, not validated: any `v` that is not the current one is 412). */
const ARCHIVE_QUERY = z.object({
  v: z
    .string()
    .optional()
    .openapi({
      param: { name: 'v', in: 'query' },
      description:
        'The archive’s version, as `archiveUrl` carries it: its ETag’s value, URL-safe (`"<hex>"` → `<hex>`, ' +
        '`W/"<hex>"` → `W.<hex>`). Another version, or a malformed one: 412 ARCHIVE_CHANGED. Absent: any version',
      example: '9c1185a5c5e9fc54612808977ee8f548b2258d31f1f9ee6d3a7f1b3c4d5e6f70',
    }),
});

/**
 * Serves GET (Hono answers HEAD through it) and documents both. If-Modified-Since is not used by
 * archives: their ETag is the validator.
 */
function addArchiveRoute(
  router: OpenAPIHono<AppEnv>,
  route: RouteConfig,
  needs: { scope: Scope; notFound: ErrorCode },
  serve: (c: Context<AppEnv>) => Promise<Response>,
) {
  const { notFound } = needs;
  const documented = {
    ...route,
    request: { ...route.request, query: ARCHIVE_QUERY, headers: ARCHIVE_REQUEST_HEADERS },
  };
  serveDocumented(
    router,
    { ...documented, responses: archiveResponses('get', notFound) },
    requires({ scope: needs.scope }),
    serve,
  );
  router.openAPIRegistry.registerPath({
    ...documented,
    method: 'head',
    operationId: `${route.operationId}Head`,
    summary: 'The archive’s headers without its bytes',
    description: 'Never counts as a download.',
    responses: archiveResponses('head', notFound),
  });
  offersHead(router, route.path);
}

export function addArchiveRoutes(router: OpenAPIHono<AppEnv>) {
  addArchiveRoute(
    router,
    {
      method: 'get',
      path: '/collections/{id}/archive',
      operationId: 'downloadCollectionArchive',
      summary: 'Download a collection as one ZIP archive (its members in collection order)',
      description: `${ARCHIVE_DESCRIPTION} A 200, or a 206 from byte 0 to the end, is a \`collection.downloaded\` event.`,
      tags: ['Collections'],
      request: { params: CollectionIdParamSchema },
      responses: {},
    },
    { scope: 'files:read', notFound: 'COLLECTION_NOT_FOUND' },
    (c) => downloadCollectionArchive(deps(c), c.req.raw, c.req.param('id') ?? '', accountId(c)),
  );
  addArchiveRoute(
    router,
    {
      method: 'get',
      path: '/requests/{id}/archive',
      operationId: 'downloadFileRequestArchive',
      summary: 'Download every file a file request received (still in your account) as one ZIP, oldest first',
      description: `${ARCHIVE_DESCRIPTION} Needs requests:write, as every owner route of file requests, and files:read.`,
      tags: ['File requests'],
      request: { params: RequestIdParamSchema },
      responses: {},
    },
    // requests:write, as every owner route of file requests (its records carry upload capabilities);
    // and files:read besides, since this one carries the files' bytes.
    { scope: REQUESTS_SCOPE, notFound: 'REQUEST_NOT_FOUND' },
    async (c) => {
      if (!hasScope(c.get('apiKey').scopes, 'files:read')) throw forbidden('files:read');
      return downloadRequestArchive(deps(c), c.req.raw, c.req.param('id') ?? '', accountId(c));
    },
  );
}
