// One router per API version, built from the same routes, schemas and services.
import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi';
import type { AppEnv } from '../env';
import { ApiError } from '../errors';
import { type ApiVersion, fileRecord, uploadRecord } from '../files/records';
import { deleteFile, downloadOwnedFile, getOwnedFile, listFiles } from '../files/service';
import { uploadSingleFile } from '../files/upload-form';
import { inSession } from '../files/upload-session';
import { addBulkRoutes } from './bulk-routes';

export { addFallbacks } from './fallbacks';

import { errorResponses, jsonResponse, origins, storage, uploadDeps } from './context';
import {
  FileIdParamSchema,
  FileRecordV1,
  FileRecordV2,
  ListQuerySchema,
  PaginationSchema,
  success as successV1,
  successV2,
  UploadFormSchema,
  UploadRecordV1,
  UploadRecordV2,
} from './schemas';

/** Throws our VALIDATION_ERROR envelope instead of zod's raw result. */
export function validationHook(result: { success: boolean; error?: z.ZodError; data?: unknown; target?: string }) {
  if (result.success || !result.error) return;
  const input =
    result.target === 'query' && typeof result.data === 'object' ? (result.data as Record<string, unknown>) : {};
  const details = result.error.issues.map((issue) => {
    const field = issue.path.join('.') || 'body';
    // A repeated query parameter arrives as an array: say so, not "expected string".
    const repeated = issue.path.length === 1 && Array.isArray(input[field]);
    return { field, message: repeated ? `${field} was given more than once` : issue.message };
  });
  const first = details[0];
  throw new ApiError('VALIDATION_ERROR', first ? `Invalid ${first.field}: ${first.message}` : undefined, { details });
}

export function createFilesRouter(version: ApiVersion) {
  const router = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  const UploadRecord = version === 'v1' ? UploadRecordV1 : UploadRecordV2;
  const FileRecord = version === 'v1' ? FileRecordV1 : FileRecordV2;
  const success = version === 'v1' ? successV1 : successV2;
  // Before /files/{id}: DELETE /files/bulk must never be read as a file id.
  if (version === 'v2') addBulkRoutes(router);

  const upload = createRoute({
    method: 'post',
    path: '/upload',
    summary: 'Upload one file',
    request: { body: { required: true, content: { 'multipart/form-data': { schema: UploadFormSchema } } } },
    responses: {
      201: jsonResponse(success(UploadRecord), 'Stored'),
      ...errorResponses(400, 401, 413, 415, 429),
    },
  });
  // The body is streamed by the handler, not parsed by the validator.
  router.post(upload.path, async (c) => {
    const deps = uploadDeps(c);
    const row = await inSession(deps.session, () => uploadSingleFile(deps, c.req.raw));
    return c.json({ success: true, data: uploadRecord(row, version, origins(c)) }, 201);
  });
  router.openAPIRegistry.registerPath(upload);

  const list = createRoute({
    method: 'get',
    path: '/files',
    summary: 'List your files, newest first',
    request: { query: ListQuerySchema },
    responses: {
      200: jsonResponse(
        success(z.object({ files: z.array(FileRecord), pagination: PaginationSchema })),
        'A page of files',
      ),
      ...errorResponses(400, 401, 429),
    },
  });
  router.openapi(list, async (c) => {
    const { page, limit } = c.req.valid('query');
    const { rows, pagination } = await listFiles(storage(c), c.get('apiKey').id, page, limit);
    const base = origins(c);
    return c.json(
      { success: true as const, data: { files: rows.map((row) => fileRecord(row, version, base)), pagination } },
      200,
    );
  });

  const get = createRoute({
    method: 'get',
    path: '/files/{id}',
    summary: 'Read one file record',
    request: { params: FileIdParamSchema },
    responses: { 200: jsonResponse(success(FileRecord), 'The file record'), ...errorResponses(401, 404, 429) },
  });
  router.openapi(get, async (c) => {
    const row = await getOwnedFile(storage(c), c.req.valid('param').id, c.get('apiKey').id);
    return c.json({ success: true as const, data: fileRecord(row, version, origins(c)) }, 200);
  });

  const download = createRoute({
    method: 'get',
    path: '/files/{id}/download',
    summary: 'Download the file (HEAD, Range and If-None-Match supported)',
    request: { params: FileIdParamSchema },
    responses: {
      200: { description: 'The file bytes' },
      206: { description: 'Part of the file' },
      304: { description: 'Not modified' },
      ...errorResponses(401, 404, 416, 429),
    },
  });
  router.openapi(download, (c) =>
    downloadOwnedFile(storage(c), c.req.raw, c.req.valid('param').id, c.get('apiKey').id),
  );

  const remove = createRoute({
    method: 'delete',
    path: '/files/{id}',
    summary: 'Delete a file permanently',
    request: { params: FileIdParamSchema },
    responses: {
      200: jsonResponse(success(z.object({ message: z.string() })), 'Deleted'),
      ...errorResponses(401, 404, 429),
    },
  });
  router.openapi(remove, async (c) => {
    const row = await deleteFile(storage(c), c.req.valid('param').id, c.get('apiKey').id);
    return c.json({ success: true as const, data: { message: `File ${row.id} deleted` } }, 200);
  });

  return router;
}
