// v2 only: POST /upload/bulk and DELETE /files/bulk.
import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../env';
import { addFallbacks } from '../http/fallbacks';
import { E2E_UPLOAD_ERRORS, errors, ok } from '../http/openapi';
import { origins, storage } from '../http/request-deps';
import { requires } from '../http/route-needs';
import { jsonBodyLimit } from '../http/validation';
import { uploadRules } from '../policy/routes';
import { uploadRecord } from './records';
import { uploadDeps } from './routes';
import {
  BulkDeleteRequestSchema,
  BulkDeleteResultSchema,
  BulkUploadFormSchema,
  BulkUploadResultSchema,
} from './schemas';
import { deleteFiles } from './service';
import { uploadBulk } from './upload-bulk';
import { inSession } from './upload-session';

export function addBulkRoutes(router: OpenAPIHono<AppEnv>) {
  const bulkUpload = createRoute({
    method: 'post',
    path: '/upload/bulk',
    operationId: 'uploadFiles',
    summary: 'Upload several files (at most MAX_BULK_FILES) in one request',
    description:
      'Answers 201 whenever the request is well formed, with one result per file in part order; ' +
      '400 only when the request as a whole is unusable (not multipart, no files, too many files), and 422 ' +
      'POLICY_VIOLATION when the one expiry of all the files breaks the account’s policy (nothing stored).',
    request: { body: { required: true, content: { 'multipart/form-data': { schema: BulkUploadFormSchema } } } },
    responses: {
      201: ok(BulkUploadResultSchema, 'Files processed'),
      ...errors(400, 401, 408, 429, 503),
      ...E2E_UPLOAD_ERRORS,
    },
  });
  // Streamed by the handler, not parsed by the validator.
  const needs = requires({ scope: 'files:write', holdsUpload: (config) => config.MAX_BULK_FILES });
  router.post(bulkUpload.path, needs, async (c) => {
    const maxFiles = c.get('config').MAX_BULK_FILES;
    const deps = uploadDeps(c);
    const rules = uploadRules(c);
    const outcomes = await inSession(deps.session, () => uploadBulk(deps, c.req.raw, maxFiles, rules));
    const base = origins(c);
    const results = outcomes.map((outcome) =>
      outcome.ok
        ? { success: true as const, data: uploadRecord(outcome.row, 'v2', base) }
        : { success: false as const, filename: outcome.filename, error: outcome.error, code: outcome.code },
    );
    const successful = results.filter((result) => result.success).length;
    return c.json(
      { success: true, data: { total: results.length, successful, failed: results.length - successful, results } },
      201,
    );
  });
  router.openAPIRegistry.registerPath(bulkUpload);

  const bulkDelete = createRoute({
    method: 'delete',
    path: '/files/bulk',
    operationId: 'deleteFiles',
    summary: 'Delete up to 50 files',
    middleware: [requires({ scope: 'files:delete' }), jsonBodyLimit()] as const,
    request: {
      body: { required: true, content: { 'application/json': { schema: BulkDeleteRequestSchema } } },
    },
    responses: { 200: ok(BulkDeleteResultSchema, 'Per-id results'), ...errors(400, 401, 429) },
  });
  router.openapi(bulkDelete, async (c) => {
    const results = await deleteFiles(storage(c), c.req.valid('json').ids, c.get('apiKey').accountId);
    const deleted = results.filter((result) => result.success).length;
    return c.json(
      { success: true as const, data: { total: results.length, deleted, failed: results.length - deleted, results } },
      200,
    );
  });
  // Before /files/{id} too: GET /files/bulk is this path with the wrong method, not a file id.
  addFallbacks(router);
}
