// v2 only: collections an account makes of its files, their members and their share links. HTTP
// only: validation, one service call, the answer. The rules are in service.ts; the ZIP archives
// in archive-routes.ts.
import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { AccessPageSchema, AccessQuerySchema } from '../access-log/schemas';
import type { AppEnv } from '../env';
import type { ErrorCode } from '../errors';
import { fileRecord } from '../files/records';
import { FileRecordV2, ListQuerySchema } from '../files/schemas';
import { E2E_UPLOAD_ERRORS, errorsWith, ok } from '../http/openapi';
import { accountId, origins, storage } from '../http/request-deps';
import { requires } from '../http/route-needs';
import { jsonBodyLimit } from '../http/validation';
import { CollectionLinkCreateSchema, LinkRecordSchema } from '../links/schemas';
import { policy } from '../policy/routes';
import { PaginationSchema, successV2 } from '../schemas';
import {
  CollectionCreateSchema,
  CollectionFileParamSchema,
  CollectionFilesAddSchema,
  CollectionIdParamSchema,
  CollectionRecordSchema,
  CollectionUpdateSchema,
} from './schemas';
import {
  addCollectionFiles,
  type CollectionDeps,
  collectionAccessLog,
  collectionLinks,
  createCollection,
  createCollectionLink,
  deleteCollection,
  getCollection,
  listCollectionFiles,
  listCollections,
  removeCollectionFile,
  updateCollection,
} from './service';

/**
 * What the collection rules need from the request: D1 (timed on v2), links' counters, origins,
 * the account's policy, the cap.
 */
export const collectionDeps = (c: Context<AppEnv>): CollectionDeps => ({
  db: storage(c).db,
  counters: c.env.LINK_COUNTERS,
  origins: origins(c),
  policy: policy(c),
  maxFiles: c.get('config').MAX_COLLECTION_FILES,
});

/** A collection link's body may carry an age header per encrypted member: room for a few thousand. */
const LINK_HEADERS_BODY = 1024 * 1024;

// Reading needs files:read; making and changing collections and their links needs links:write.
const READ = requires({ scope: 'files:read' });
const WRITE = requires({ scope: 'links:write' });

/** The 404s of these routes (the examples of each operation's 404). */
const CODES: ErrorCode[] = ['COLLECTION_NOT_FOUND', 'FILE_NOT_FOUND', 'TOO_MANY_FILES', 'VALIDATION_ERROR'];

type RouteConfig = Parameters<typeof createRoute>[0];
const route = <R extends RouteConfig>(config: R) => createRoute({ ...config, tags: ['Collections'] });

const CollectionEnvelope = successV2(CollectionRecordSchema);
const jsonBody = <T extends z.ZodType>(schema: T) => ({
  required: true,
  content: { 'application/json': { schema } },
});

export function addCollectionRoutes(router: OpenAPIHono<AppEnv>) {
  const create = route({
    method: 'post',
    path: '/collections',
    operationId: 'createCollection',
    summary: 'Make a collection: several of your files, shared as one (one link, one ZIP)',
    description:
      'Its first members (`fileIds`, at most 100) join in the order given. Any id that is not a live file of yours ' +
      'is 404 FILE_NOT_FOUND with `details: [{"id"}]`, and nothing is created.',
    middleware: [WRITE, jsonBodyLimit()] as const,
    request: { body: jsonBody(CollectionCreateSchema) },
    responses: { 201: ok(CollectionEnvelope, 'The new collection'), ...errorsWith(CODES, 400, 401, 404, 415, 429) },
  });
  router.openapi(create, async (c) => {
    const data = await createCollection(collectionDeps(c), accountId(c), c.req.valid('json'));
    return c.json({ success: true as const, data }, 201);
  });

  const list = route({
    method: 'get',
    path: '/collections',
    operationId: 'listCollections',
    summary: 'Your collections, newest first',
    middleware: [READ] as const,
    request: { query: ListQuerySchema },
    responses: {
      200: ok(
        successV2(z.object({ collections: z.array(CollectionRecordSchema), pagination: PaginationSchema })),
        'A page of collections',
      ),
      ...errorsWith(CODES, 400, 401, 429),
    },
  });
  router.openapi(list, async (c) => {
    const data = await listCollections(collectionDeps(c), accountId(c), c.req.valid('query'));
    return c.json({ success: true as const, data }, 200);
  });

  const get = route({
    method: 'get',
    path: '/collections/{id}',
    operationId: 'getCollection',
    summary: 'One collection, with its live members’ count and bytes',
    middleware: [READ] as const,
    request: { params: CollectionIdParamSchema },
    responses: { 200: ok(CollectionEnvelope, 'The collection'), ...errorsWith(CODES, 401, 404, 429) },
  });
  router.openapi(get, async (c) => {
    const data = await getCollection(collectionDeps(c), c.req.valid('param').id, accountId(c));
    return c.json({ success: true as const, data }, 200);
  });

  const update = route({
    method: 'patch',
    path: '/collections/{id}',
    operationId: 'updateCollection',
    summary: 'Rename a collection or change its note (null removes it)',
    middleware: [WRITE, jsonBodyLimit()] as const,
    request: { params: CollectionIdParamSchema, body: jsonBody(CollectionUpdateSchema) },
    responses: {
      200: ok(CollectionEnvelope, 'The collection as it is now'),
      ...errorsWith(CODES, 400, 401, 404, 415, 429),
    },
  });
  router.openapi(update, async (c) => {
    const data = await updateCollection(collectionDeps(c), c.req.valid('param').id, accountId(c), c.req.valid('json'));
    return c.json({ success: true as const, data }, 200);
  });

  const remove = route({
    method: 'delete',
    path: '/collections/{id}',
    operationId: 'deleteCollection',
    summary: 'Delete a collection and its links (never its files)',
    middleware: [WRITE] as const,
    request: { params: CollectionIdParamSchema },
    responses: {
      200: ok(successV2(z.object({ message: z.string() })), 'Deleted'),
      ...errorsWith(CODES, 401, 404, 429),
    },
  });
  router.openapi(remove, async (c) => {
    const { id } = c.req.valid('param');
    await deleteCollection(collectionDeps(c), id, accountId(c));
    return c.json({ success: true as const, data: { message: `Collection ${id} deleted` } }, 200);
  });

  addMemberRoutes(router);
  addCollectionLinkRoutes(router);
}

function addMemberRoutes(router: OpenAPIHono<AppEnv>) {
  const list = route({
    method: 'get',
    path: '/collections/{id}/files',
    operationId: 'listCollectionFiles',
    summary: 'The collection’s files in collection order (deleted and expired ones have left)',
    middleware: [READ] as const,
    request: { params: CollectionIdParamSchema, query: ListQuerySchema },
    responses: {
      200: ok(successV2(z.object({ files: z.array(FileRecordV2), pagination: PaginationSchema })), 'A page of files'),
      ...errorsWith(CODES, 400, 401, 404, 429),
    },
  });
  router.openapi(list, async (c) => {
    const { rows, pagination } = await listCollectionFiles(
      collectionDeps(c),
      c.req.valid('param').id,
      accountId(c),
      c.req.valid('query'),
    );
    const base = origins(c);
    const data = { files: rows.map((row) => fileRecord(row, 'v2', base)), pagination };
    return c.json({ success: true as const, data }, 200);
  });

  const add = route({
    method: 'post',
    path: '/collections/{id}/files',
    operationId: 'addCollectionFiles',
    summary: 'Append files to a collection, in the order given (ids already in it are ignored)',
    description:
      'Any id that is not a live file of yours is 404 FILE_NOT_FOUND with `details: [{"id"}]`; more members than ' +
      'MAX_COLLECTION_FILES (default 1,000) is 400 TOO_MANY_FILES. Either way nothing is added.',
    middleware: [WRITE, jsonBodyLimit()] as const,
    request: { params: CollectionIdParamSchema, body: jsonBody(CollectionFilesAddSchema) },
    responses: {
      200: ok(CollectionEnvelope, 'The collection as it is now'),
      ...errorsWith(CODES, 400, 401, 404, 415, 429),
    },
  });
  router.openapi(add, async (c) => {
    const { fileIds } = c.req.valid('json');
    const data = await addCollectionFiles(collectionDeps(c), c.req.valid('param').id, accountId(c), fileIds);
    return c.json({ success: true as const, data }, 200);
  });

  const removeFile = route({
    method: 'delete',
    path: '/collections/{id}/files/{fileId}',
    operationId: 'removeCollectionFile',
    summary: 'Take a file out of a collection (the file itself stays)',
    middleware: [WRITE] as const,
    request: { params: CollectionFileParamSchema },
    responses: { 200: ok(CollectionEnvelope, 'The collection as it is now'), ...errorsWith(CODES, 401, 404, 429) },
  });
  router.openapi(removeFile, async (c) => {
    const { id, fileId } = c.req.valid('param');
    const data = await removeCollectionFile(collectionDeps(c), id, accountId(c), fileId);
    return c.json({ success: true as const, data }, 200);
  });
}

function addCollectionLinkRoutes(router: OpenAPIHono<AppEnv>) {
  const create = route({
    method: 'post',
    path: '/collections/{id}/links',
    operationId: 'createCollectionLink',
    summary: 'Make a share link to a collection: optional label, password, download cap, expiry',
    description:
      'The same body and controls as a file’s link. Its cap `maxDownloads` N is a byte budget of N × the ' +
      'archive’s length, members and ranges included. The record carries `collectionId` and `fileId: null`; ' +
      '`/links/{linkId}` reads, changes and revokes it like any link. The account’s policy (GET /policy) bounds it ' +
      'as it bounds a file’s link. `e2eHeaders` gives the link an age header per encrypted member (docs/e2e.md); ' +
      'an encrypted member without one is left out of this link’s page and ZIP. The body may hold up to 1 MiB.',
    middleware: [WRITE, jsonBodyLimit(LINK_HEADERS_BODY)] as const,
    request: { params: CollectionIdParamSchema, body: jsonBody(CollectionLinkCreateSchema) },
    responses: {
      201: ok(successV2(LinkRecordSchema), 'The new link'),
      ...errorsWith(
        ['COLLECTION_NOT_FOUND', 'TOO_MANY_LINKS', 'VALIDATION_ERROR', 'FILE_NOT_FOUND'],
        400,
        401,
        404,
        415,
        429,
      ),
      ...E2E_UPLOAD_ERRORS,
    },
  });
  router.openapi(create, async (c) => {
    const data = await createCollectionLink(
      collectionDeps(c),
      c.req.valid('param').id,
      accountId(c),
      c.req.valid('json'),
    );
    return c.json({ success: true as const, data }, 201);
  });

  const list = route({
    method: 'get',
    path: '/collections/{id}/links',
    operationId: 'listCollectionLinks',
    summary: 'The links made to a collection, newest first (revoked and expired ones included)',
    middleware: [READ] as const,
    request: { params: CollectionIdParamSchema },
    responses: {
      200: ok(successV2(z.object({ links: z.array(LinkRecordSchema) })), 'The collection’s links'),
      ...errorsWith(CODES, 401, 404, 429),
    },
  });
  router.openapi(list, async (c) => {
    const links = await collectionLinks(collectionDeps(c), c.req.valid('param').id, accountId(c));
    return c.json({ success: true as const, data: { links } }, 200);
  });

  const access = route({
    method: 'get',
    path: '/collections/{id}/access',
    operationId: 'getCollectionAccessLog',
    summary: 'Who fetched a collection: the access logs of every link made to it, merged',
    description:
      'Newest first, `limit` (1…100, default 20) at a time; pass `nextCursor` back as `cursor` for the next page ' +
      '(null at the end). Every visit of a collection link is an event: its page (`page`), its ZIP (`archive`), ' +
      'one member (`download`), a member’s preview (`preview`), password attempts (`password`), refused and ' +
      'throttled ones included (see docs/access-log.md). Each event’s `linkId` names the link it came through. ' +
      'The client’s address is never kept: `visitor` is a keyed hash of it that changes every 30 days.',
    middleware: [READ] as const,
    request: { params: CollectionIdParamSchema, query: AccessQuerySchema },
    responses: {
      200: ok(successV2(AccessPageSchema), 'A page of events'),
      ...errorsWith(['COLLECTION_NOT_FOUND', 'VALIDATION_ERROR'], 400, 401, 404, 429),
    },
  });
  router.openapi(access, async (c) => {
    const data = await collectionAccessLog(
      collectionDeps(c),
      c.req.valid('param').id,
      accountId(c),
      c.req.valid('query'),
    );
    return c.json({ success: true as const, data }, 200);
  });
}
