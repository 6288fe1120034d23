// The file routes of one API version (v1 and v2 share them): upload, list, read, download, delete.
import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { QuotaTicket } from '../accounts/account-storage-client';
import type { AppEnv } from '../env';
import { offersHead } from '../http/fallbacks';
import { DOWNLOAD_REQUEST_HEADERS, downloadResponses, E2E_UPLOAD_ERRORS, errors, ok } from '../http/openapi';
import { origins, storage } from '../http/request-deps';
import { requires } from '../http/route-needs';
import { uploadE2e, uploadRules } from '../policy/routes';
import { PaginationSchema, success as successV1, successV2 } from '../schemas';
import { type ApiVersion, fileRecord, uploadRecord } from './records';
import {
  FileIdParamSchema,
  FileRecordV1,
  FileRecordV2,
  ListQuerySchema,
  ListQuerySchemaV2,
  UploadFormSchema,
  UploadRecordV1,
  UploadRecordV2,
} from './schemas';
import { deleteFile, downloadOwnedFile, getOwnedFile, listFiles } from './service';
import { uploadSingleFile } from './upload-form';
import { keyOwner } from './upload-owner';
import { inSession, openUpload, type UploadDeps } from './upload-session';

export function addFileRoutes(router: OpenAPIHono<AppEnv>, version: ApiVersion) {
  const UploadRecord = version === 'v1' ? UploadRecordV1 : UploadRecordV2;
  const FileRecord = version === 'v1' ? FileRecordV1 : FileRecordV2;
  const success = version === 'v1' ? successV1 : successV2;

  const upload = createRoute({
    method: 'post',
    path: '/upload',
    operationId: 'uploadFile',
    summary: 'Upload one file',
    description:
      'An `expiresIn` the account’s policy does not allow (or none, where the policy requires one and no ' +
      'default is configured), or `isPublic=true` while a link bound applies that a default link cannot keep, is ' +
      '422 POLICY_VIOLATION, and nothing is stored or charged. Under such a bound uploads default to private ' +
      '(v1 records show no isPublic: their shareUrl answers 404 until the file is made public).',
    request: { body: { required: true, content: { 'multipart/form-data': { schema: UploadFormSchema } } } },
    responses: {
      201: ok(success(UploadRecord), 'Stored'),
      ...errors(400, 401, 408, 413, 415, 429, 503),
      ...E2E_UPLOAD_ERRORS,
    },
  });
  // The body is streamed by the handler, not parsed by the validator.
  router.post(upload.path, requires({ scope: 'files:write', holdsUpload: () => 1 }), async (c) => {
    const deps = uploadDeps(c);
    const rules = uploadRules(c);
    const row = await inSession(deps.session, () => uploadSingleFile(deps, c.req.raw, rules));
    return c.json({ success: true, data: uploadRecord(row, version, origins(c)) }, 201);
  });
  router.openAPIRegistry.registerPath(upload);

  const list = createRoute({
    method: 'get',
    path: '/files',
    operationId: 'listFiles',
    summary:
      version === 'v1' ? 'List your files, newest first' : 'List your files: newest first, or searched and sorted',
    // v1 reads only page and limit; other parameters are ignored there, as they always were.
    middleware: [requires({ scope: 'files:read' })] as const,
    request: { query: version === 'v1' ? ListQuerySchema : ListQuerySchemaV2 },
    responses: {
      200: ok(success(z.object({ files: z.array(FileRecord), pagination: PaginationSchema })), 'A page of files'),
      ...errors(400, 401, 429),
    },
  });
  router.openapi(list, async (c) => {
    const { rows, pagination } = await listFiles(storage(c), c.get('apiKey').accountId, c.req.valid('query'));
    const base = origins(c);
    return c.json(
      { success: true as const, data: { files: rows.map((row) => fileRecord(row, version, base)), pagination } },
      200,
    );
  });

  const get = createRoute({
    method: 'get',
    path: '/files/{id}',
    operationId: 'getFile',
    summary: 'Read one file record',
    middleware: [requires({ scope: 'files:read' })] as const,
    request: { params: FileIdParamSchema },
    responses: { 200: ok(success(FileRecord), 'The file record'), ...errors(401, 404, 429) },
  });
  router.openapi(get, async (c) => {
    const row = await getOwnedFile(storage(c), c.req.valid('param').id, c.get('apiKey').accountId);
    return c.json({ success: true as const, data: fileRecord(row, version, origins(c)) }, 200);
  });
  offersHead(router, get.path);

  const download = createRoute({
    method: 'get',
    path: '/files/{id}/download',
    operationId: 'downloadFile',
    summary: 'Download the file (Range, If-None-Match, If-Modified-Since and If-Range honoured)',
    description:
      'A 200, and a 206 from byte 0 to the end (the whole file), count as one download; other ranges, HEAD and 304 do not.',
    request: { params: FileIdParamSchema, headers: DOWNLOAD_REQUEST_HEADERS },
    responses: downloadResponses('get'),
  });
  // Validated: the id. The request headers are the download's to read (see DOWNLOAD_REQUEST_HEADERS).
  const downloadNeeds = requires({ scope: 'files:read' });
  router.openapi({ ...download, middleware: downloadNeeds, request: { params: FileIdParamSchema }, hide: true }, (c) =>
    downloadOwnedFile(storage(c), c.req.raw, c.req.valid('param').id, c.get('apiKey').accountId),
  );
  router.openAPIRegistry.registerPath(download);
  offersHead(router, download.path);
  // Hono answers HEAD through the GET route; the document names it as its own operation.
  router.openAPIRegistry.registerPath({
    ...download,
    method: 'head',
    operationId: 'downloadFileHead',
    summary: 'The download’s headers without its bytes',
    description: 'Never counts as a download.',
    responses: downloadResponses('head'),
  });

  const remove = createRoute({
    method: 'delete',
    path: '/files/{id}',
    operationId: 'deleteFile',
    summary: 'Delete a file permanently',
    middleware: [requires({ scope: 'files:delete' })] as const,
    request: { params: FileIdParamSchema },
    responses: {
      200: ok(success(z.object({ message: z.string() })), 'Deleted'),
      ...errors(401, 404, 429),
    },
  });
  router.openapi(remove, async (c) => {
    const row = await deleteFile(storage(c), c.req.valid('param').id, c.get('apiKey').accountId);
    return c.json({ success: true as const, data: { message: `File ${row.id} deleted` } }, 200);
  });
}

/** The key's upload: its account's storage, and a session that takes over what admission held. */
export function uploadDeps(c: Context<AppEnv>): UploadDeps {
  const owner = keyOwner(c.get('apiKey'));
  // The rate limiter may already hold storage, granted in the same call that admitted us: the
  // session takes it over (and gives it back when it ends), so authentication need not.
  const grant = c.get('grant');
  c.set('grant', undefined);
  const context = {
    ...storage(c),
    config: c.get('config'),
    owner,
    e2e: uploadE2e(c),
    signal: c.req.raw.signal,
    waitUntil: (promise: Promise<unknown>) => c.executionCtx.waitUntil(promise),
  };
  return openUpload(context, new QuotaTicket(context.accounts, owner, grant));
}
