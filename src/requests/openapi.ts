// The public paths of file requests in /api/v2/openapi.json. They are handled by hand (public-
// router.ts), so they are described here; they need no key (`security: []`).
import { type OpenAPIHono, z } from '@hono/zod-openapi';
import type { AppEnv } from '../env';
import { RAW_BODY_REQUEST } from '../files/raw-upload-routes';
import { errorsWith } from '../http/openapi';
import { perfField } from '../schemas';
import { ReceiptSchema, UploadReceiptSchema } from './schemas';

type Registry = OpenAPIHono<AppEnv>['openAPIRegistry'];

const token = z.object({
  token: z
    .string()
    .openapi({ param: { name: 'token', in: 'path' }, description: 'The request’s token (from its url)' }),
});
const tokenAndId = token.extend({
  id: z.string().openapi({ param: { name: 'id', in: 'path' }, description: 'The upload’s id (from Location)' }),
});
const tusHeader = z.string().openapi({ param: { name: 'Tus-Resumable', in: 'header' }, description: '`1.0.0`' });
const binary = { 'application/offset+octet-stream': { schema: z.string().openapi({ format: 'binary' }) } };
const text = (description: string) => ({ description, schema: { type: 'string' as const } });

/** What the public paths answer, for the documents' examples. */
const PUBLIC_CODES = [
  'PASSWORD_REQUIRED',
  'REQUEST_NOT_FOUND',
  'FILE_NOT_FOUND',
  'REQUEST_CLOSED',
  'REQUEST_EXPIRED',
  'REQUEST_FULL',
  'UPLOAD_GONE',
] as const;

const ERRORS = [400, 401, 404, 410, 413, 415, 429, 503];
const described = (statuses: number[]) => {
  const responses = errorsWith(PUBLIC_CODES, ...statuses) as Record<string, { description: string }>;
  const say: Record<number, string> = {
    401: 'PASSWORD_REQUIRED: the request has a password (HTTP Basic, empty user name); WWW-Authenticate: Basic',
    404: 'REQUEST_NOT_FOUND (malformed or unknown token), or FILE_NOT_FOUND (an upload not of this request)',
    410: 'REQUEST_CLOSED, REQUEST_EXPIRED or REQUEST_FULL: the request takes no more files',
    413: 'FILE_TOO_LARGE (the request’s maxFileSize, MAX_FILE_SIZE, or its maxBytes left) or STORAGE_EXCEEDED (the owner’s quota)',
    415: 'INVALID_FILE_TYPE: outside the request’s allowedTypes or the server’s rules (runnable files always)',
    429: 'RATE_LIMITED: too many uploads from this address or to this request, or too many wrong passwords',
  };
  for (const status of statuses) {
    const response = responses[status];
    if (response && say[status]) response.description = say[status];
  }
  const unauthorized = responses[401] as { headers?: object } | undefined;
  if (unauthorized)
    unauthorized.headers = {
      'WWW-Authenticate': text('`Basic realm="file request", charset="UTF-8"`, except to a page’s own script'),
    };
  return responses;
};

/** Adds the request's public paths to v2's OpenAPI document. */
export function documentRequestUploads(registry: Registry): void {
  const tags = ['File requests (public, no key)'];
  registry.registerPath({
    method: 'get',
    path: '/r/{token}',
    operationId: 'describeFileRequest',
    summary: 'What an uploader may know of a request: its message and limits',
    security: [],
    tags,
    request: { params: token },
    responses: {
      200: {
        description: 'The message and the limits (never the owner, the counts or other files)',
        content: {
          'application/json': {
            schema: z.object({
              success: z.literal(true),
              data: z.object({
                message: z.string().nullable(),
                maxFiles: z.number().int(),
                maxFileSize: z.number().int(),
                maxBytes: z.number().int().nullable(),
                allowedTypes: z.array(z.string()),
                expiresAt: z.string(),
                uploadUrl: z.string(),
                tusUrl: z.string(),
              }),
              _perf: perfField,
            }),
          },
        },
      },
      ...described([401, 404, 410, 429]),
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/r/{token}/upload',
    operationId: 'uploadToFileRequest',
    summary: 'Send files to a request (multipart, parts named file; the URL is the capability)',
    description:
      'All or nothing while the body is read: a file refused (type, size, the request full, the owner’s quota) ' +
      'fails the request and nothing of it is kept. The answer is the uploader’s receipt: names, sizes, types.',
    security: [],
    tags,
    request: {
      params: token,
      body: {
        required: true,
        content: {
          'multipart/form-data': {
            schema: z.object({ file: z.array(z.string().openapi({ format: 'binary' })) }),
          },
        },
      },
    },
    responses: {
      201: { description: 'Received', content: { 'application/json': { schema: ReceiptSchema } } },
      ...described(ERRORS),
    },
  });
  registry.registerPath({
    method: 'put',
    path: '/r/{token}/upload/{filename}',
    operationId: 'uploadRawToFileRequest',
    summary: 'Send one file to a request as the raw body (`curl -T file {uploadUrl}/`)',
    description:
      'Every rule of POST {uploadUrl} (limits, types, password, throttles, nothing kept when refused) and of ' +
      'PUT /upload/{filename}: with Content-Length one streamed R2 put, a chunked body the streamed multipart ' +
      'writer; Content-Type is the declared type; a `Repr-Digest`/`Content-Digest` (`sha-256=:<base64>:`) is ' +
      'checked, a mismatch is 400 DIGEST_MISMATCH. The answer is the uploader’s receipt.',
    security: [],
    tags,
    request: {
      params: token.extend({
        filename: z.string().openapi({
          param: { name: 'filename', in: 'path' },
          description: 'The file’s name, percent-encoded (`curl -T` appends it to a URL ending in `/`)',
          example: 'report.pdf',
        }),
      }),
      ...RAW_BODY_REQUEST,
    },
    responses: {
      201: { description: 'Received', content: { 'application/json': { schema: ReceiptSchema } } },
      ...described([...ERRORS, 408]),
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/r/{token}/tus',
    operationId: 'createFileRequestUpload',
    summary:
      'tus creation through a request (the extensions of /uploads but concatenation: Upload-Concat is 400; no key)',
    description:
      'Upload-Length is checked against the request’s limits and the owner’s quota, and held, before any byte ' +
      'is kept. Upload-Metadata: filename, filetype (isPublic and expiresIn are the request’s).',
    security: [],
    tags,
    request: { params: token, headers: [tusHeader], body: { required: false, content: binary } },
    responses: {
      201: { description: 'Created', headers: { Location: text('The upload’s URL (under the tusUrl)') } },
      ...described([...ERRORS, 412, 460]),
    },
  });
  const upload = { security: [], tags, request: { params: tokenAndId, headers: [tusHeader] } };
  registry.registerPath({
    ...upload,
    request: { params: tokenAndId },
    method: 'get',
    path: '/r/{token}/tus/{id}',
    operationId: 'getFileRequestUploadReceipt',
    summary: 'The uploader’s receipt of a completed upload: name, size, type (nothing else of the account)',
    responses: {
      200: { description: 'The receipt', content: { 'application/json': { schema: UploadReceiptSchema } } },
      ...described([401, 404, 409, 410]),
    },
  });
  registry.registerPath({
    ...upload,
    method: 'head',
    path: '/r/{token}/tus/{id}',
    operationId: 'getFileRequestUploadOffset',
    summary: 'Where to resume an upload made through the request',
    responses: { 204: { description: 'Upload-Offset, Upload-Length' }, ...described([401, 404, 410, 412]) },
  });
  registry.registerPath({
    ...upload,
    request: { ...upload.request, body: { required: true, content: binary } },
    method: 'patch',
    path: '/r/{token}/tus/{id}',
    operationId: 'appendToFileRequestUpload',
    summary: 'Append bytes; once the request is closed or expired, the upload ends (410) and all it held is freed',
    responses: { 204: { description: 'Stored: Upload-Offset' }, ...described([...ERRORS, 409, 412, 460]) },
  });
  registry.registerPath({
    ...upload,
    method: 'delete',
    path: '/r/{token}/tus/{id}',
    operationId: 'terminateFileRequestUpload',
    summary: 'End an unfinished upload made through the request',
    responses: { 204: { description: 'Terminated' }, ...described([401, 404, 410, 412]) },
  });
  registry.registerPath({
    ...upload,
    request: { ...upload.request, body: { required: false, content: binary } },
    method: 'post',
    path: '/r/{token}/tus/{id}',
    operationId: 'overrideFileRequestUploadMethod',
    summary: 'PATCH, HEAD or DELETE for clients that cannot send them (X-HTTP-Method-Override)',
    responses: { 204: { description: 'As the overriding method answers' }, ...described([...ERRORS, 405, 409, 412]) },
  });
}
