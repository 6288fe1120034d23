// v2 only: PUT /upload/{filename}, the raw-body upload (`curl -T file URL/`).
import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import type { AppEnv } from '../env';
import { validationError } from '../errors';
import { E2E_UPLOAD_ERRORS, errors, ok } from '../http/openapi';
import { origins } from '../http/request-deps';
import { requires } from '../http/route-needs';
import { uploadRules } from '../policy/routes';
import type { UploadRules } from '../policy/service';
import { successV2 } from '../schemas';
import { uploadRecord } from './records';
import { uploadDeps } from './routes';
import { RawUploadE2eQuerySchema, RawUploadQuerySchema, UploadRecordV2 } from './schemas';
import { type RecordOptions, recordOptions } from './upload-fields';
import { uploadRawFile } from './upload-raw';
import { inSession } from './upload-session';

/** Request headers a raw upload reads beyond the usual ones (CORS lets them through). */
export const RAW_UPLOAD_HEADERS = ['Repr-Digest', 'Content-Digest', 'Edgeshare-Meta'];

/** The raw upload's file name (the MCP upload tools name their file with the same schema). */
export const FilenameParamSchema = z.object({
  filename: z.string().openapi({
    param: { name: 'filename', in: 'path' },
    description:
      'The original name, percent-encoded (cleaned like a form upload’s originalName). `curl -T file URL/` ' +
      'appends the file’s name to a URL ending in `/`.',
    example: 'report.pdf',
  }),
});

/** The documented request of a raw-body upload: the digest headers and the binary body (also PUT {uploadUrl}/{filename}). */
export const RAW_BODY_REQUEST = {
  headers: z.object({
    'repr-digest': z
      .string()
      .optional()
      .openapi({ description: 'RFC 9530, e.g. `sha-256=:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=:`' }),
    'content-digest': z.string().optional().openapi({ description: 'The same; both must agree when both are sent' }),
    'edgeshare-meta': z.string().optional().openapi({
      description: 'With `?encryption=age`: the file’s opaque base64url `meta` (≤ 4 KiB), stored as it is',
    }),
  }),
  body: {
    required: true,
    content: { 'application/octet-stream': { schema: z.string().openapi({ format: 'binary' }) } },
  },
};

export function addRawUploadRoute(router: OpenAPIHono<AppEnv>) {
  const route = createRoute({
    method: 'put',
    path: '/upload/{filename}',
    operationId: 'uploadRawFile',
    summary: 'Upload one file as the raw request body (curl -T)',
    description:
      'Every rule of POST /upload. With Content-Length the bytes stream into one R2 put; a chunked body ' +
      'goes through the streamed multipart writer. Content-Type is the declared type (the content’s ' +
      'leading bytes decide). A `Repr-Digest` or `Content-Digest` with `sha-256=:<base64>:` is checked: a ' +
      'mismatch is 400 DIGEST_MISMATCH and nothing is stored or charged.',
    request: {
      params: FilenameParamSchema,
      query: RawUploadQuerySchema.extend(RawUploadE2eQuerySchema.shape),
      ...RAW_BODY_REQUEST,
    },
    responses: {
      201: ok(successV2(UploadRecordV2), 'Stored'),
      ...errors(400, 401, 408, 413, 415, 429, 503),
      ...E2E_UPLOAD_ERRORS,
    },
  });
  // The body is streamed by the handler. The query goes through the form fields' schema inside
  // the upload's session, so a refusal gives back the storage held when the request was admitted.
  router.put('/upload/:filename', requires({ scope: 'files:write', holdsUpload: () => 1 }), async (c) => {
    const deps = uploadDeps(c);
    const name = c.req.param('filename');
    const row = await inSession(deps.session, () =>
      uploadRawFile(deps, c.req.raw, { name, options: rawUploadOptions(c.req.queries(), uploadRules(c)) }),
    );
    return c.json({ success: true as const, data: uploadRecord(row, 'v2', origins(c)) }, 201);
  });
  router.openAPIRegistry.registerPath(route);
  // No name at all (a client that forgot it): 400, not 405. Middleware, not a route: it is no
  // operation of its own, and any other method goes on to the route or the 405.
  for (const path of ['/upload/', '/upload']) {
    router.use(path, async function rawUploadWithoutName(c, next) {
      if (c.req.method === 'PUT')
        throw validationError('filename', 'name the file in the path: PUT /upload/{filename}');
      await next();
    });
  }
}

/**
 * isPublic and expiresIn from the query (each at most once), validated as the form's fields, the
 * expiry judged by the account's policy: all before the body is read.
 */
function rawUploadOptions(queries: Record<string, string[]>, rules: UploadRules): RecordOptions {
  const fields: Record<string, string> = {};
  for (const name of ['isPublic', 'expiresIn']) {
    const values = queries[name];
    if (!values) continue;
    if (values.length > 1) throw validationError(name, `${name} was given more than once`);
    fields[name] = values[0] ?? '';
  }
  const { sha256: _none, ...options } = recordOptions(fields, rules);
  return options;
}
