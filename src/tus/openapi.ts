// The tus routes in /api/v2/openapi.json. They are handled by hand (src/tus/router.ts), so
// they are described here with their headers; record shapes and error responses come from the
// shared schemas and src/api/docs.ts.
import { type OpenAPIHono, z } from '@hono/zod-openapi';
import type { AppEnv } from '../env';
import { FileIdParamSchema, FileRecordV2 } from '../files/schemas';
import { errors, ok, RATE_LIMIT_HEADERS } from '../http/openapi';
import { successV2 } from '../schemas';
import { CHECKSUM_ALGORITHMS, TUS_EXTENSIONS, TUS_VERSION } from './protocol';

type Registry = OpenAPIHono<AppEnv>['openAPIRegistry'];

type HeaderObject = {
  description: string;
  required?: boolean;
  schema: { type: 'string' | 'integer'; minimum?: number };
};
const text = (description: string, required = false): HeaderObject => ({
  description,
  required,
  schema: { type: 'string' },
});
const size = (description: string, required = false): HeaderObject => ({
  description,
  required,
  schema: { type: 'integer', minimum: 0 },
});

const TUS_RESUMABLE = { 'Tus-Resumable': text(`Always \`${TUS_VERSION}\``, true) };
const EXPIRES = text('When the unfinished upload expires (RFC 9110 date): TUS_EXPIRY_SECONDS after its last PATCH');
const FILE_ID = text(
  'Once the last byte is stored: the id of the file the upload became (never for a partial upload; at once for a final one)',
);
const CONCAT = text(
  '`partial` for a partial upload; `final;<url> <url> …` for a final one, its partial uploads as its creation named them',
);

const requestHeader = (name: string, description: string, required = true) => {
  const schema = z.string().openapi({ param: { name, in: 'header' }, description });
  return required ? schema : schema.optional();
};
const TUS_REQUEST = requestHeader('Tus-Resumable', `\`${TUS_VERSION}\`; anything else (or nothing) is 412`);
const CHECKSUM = requestHeader(
  'Upload-Checksum',
  `\`<algorithm> <base64 digest>\` of the body (${Object.keys(CHECKSUM_ALGORITHMS).join(', ')}): 400 for another algorithm, 460 on a mismatch`,
  false,
);

const DESCRIPTIONS: Record<number, string> = {
  404: 'FILE_NOT_FOUND: unknown upload, another key’s upload, malformed id',
  403: 'FORBIDDEN: a PATCH to a final upload (Upload-Concat: final), which takes no bytes',
  409: 'UPLOAD_CONFLICT: Upload-Offset is not the upload’s offset, or another PATCH is writing to it (GET: UPLOAD_INCOMPLETE; a final upload: a partial is incomplete, UPLOAD_INCOMPLETE, or already part of another final, UPLOAD_CONFLICT)',
  410: 'UPLOAD_GONE: the upload expired or was terminated (for 7 days; then 404)',
  412: 'UNSUPPORTED_TUS_VERSION: Tus-Resumable missing or not 1.0.0; Tus-Version says what is supported',
  413: 'FILE_TOO_LARGE (MAX_FILE_SIZE, or more bytes than the upload has left) or STORAGE_EXCEEDED (quota, file limit)',
  415: 'UNSUPPORTED_MEDIA_TYPE (not application/offset+octet-stream) or INVALID_FILE_TYPE (the first bytes: the upload ends)',
  460: 'CHECKSUM_MISMATCH: Upload-Checksum does not match the body; none of its bytes were kept',
};

/** The error responses of a tus operation: the shared envelope, described for tus. */
function tusErrors(...statuses: number[]) {
  const responses = errors(...statuses) as Record<string, { description: string; headers?: object }>;
  for (const status of statuses) {
    const response = responses[status];
    const description = DESCRIPTIONS[status];
    if (response && description) response.description = description;
  }
  const tooOld = responses[412];
  if (tooOld) tooOld.headers = { ...tooOld.headers, 'Tus-Version': text('Supported versions', true) };
  return responses;
}

const noContent = (description: string, headers: Record<string, HeaderObject | object>) => ({
  description,
  headers: { ...RATE_LIMIT_HEADERS, ...TUS_RESUMABLE, ...headers },
});

const HEAD_RESPONSE = noContent('The upload’s state; `Cache-Control: no-store`', {
  'Upload-Offset': size('Bytes stored so far: where to resume', true),
  'Upload-Length': size('Size of the whole file', true),
  'Upload-Metadata': text('As sent at creation'),
  'Upload-Expires': EXPIRES,
  'Cache-Control': text('`no-store`', true),
  'X-File-Id': FILE_ID,
  'Upload-Concat': CONCAT,
});

/** Adds the tus routes and their headers to v2's OpenAPI document. */
export function documentUploads(registry: Registry): void {
  registry.registerPath({
    method: 'options',
    path: '/uploads',
    operationId: 'discoverUploads',
    summary: 'tus discovery (no key needed; CORS preflights get the same headers)',
    security: [],
    responses: {
      204: {
        description: 'The server’s tus capabilities',
        headers: {
          ...TUS_RESUMABLE,
          'Tus-Version': text('Supported versions', true),
          'Tus-Extension': text(`\`${TUS_EXTENSIONS.join(',')}\``, true),
          'Tus-Max-Size': size('Largest Upload-Length accepted, in bytes (MAX_FILE_SIZE)', true),
          'Tus-Checksum-Algorithm': text(`\`${Object.keys(CHECKSUM_ALGORITHMS).join(',')}\``, true),
        },
      },
    },
  });

  registry.registerPath({
    method: 'post',
    path: '/uploads',
    operationId: 'createUpload',
    summary: 'Create a resumable upload (tus creation, creation-with-upload, concatenation)',
    description:
      'Checks Upload-Length against MAX_FILE_SIZE and the key’s quota and file limit (413 before any byte) and ' +
      'reserves it until the upload ends; the metadata is checked after that. Upload-Metadata (optional) keys: ' +
      'filename, filetype, isPublic, expiresIn, as the multipart upload’s parts, and sha256 (the whole file’s, ' +
      'checked at the last byte: 400 DIGEST_MISMATCH ends the upload); without a filename the file is ' +
      'named `upload` plus the usual extension of filetype. A body (Content-Type: application/offset+octet-stream) is the first PATCH. ' +
      'Concatenation (parallel uploads): `Upload-Concat: partial` makes a partial upload (reserved and sent like any ' +
      'other, but never a file); `Upload-Concat: final;<url> <url> …` (no Upload-Length, no body) makes one file of ' +
      'complete partial uploads of the same account, in order, without copying their bytes: 201 with X-File-Id at once. ' +
      'The final’s sha256 is computed a moment after its creation.',
    request: {
      headers: [
        TUS_REQUEST,
        requestHeader('Upload-Length', 'Size of the whole file in bytes (not for a final upload: 400)', false),
        requestHeader(
          'Upload-Concat',
          '`partial`, or `final;<url> <url> …` naming complete partial uploads (absolute URLs or paths) in order',
          false,
        ),
        requestHeader(
          'Upload-Metadata',
          'Optional comma-separated `key base64(value)` pairs (filename, filetype, isPublic, expiresIn)',
        ),
        CHECKSUM,
      ],
      body: {
        required: false,
        content: { 'application/offset+octet-stream': { schema: z.string().openapi({ format: 'binary' }) } },
      },
    },
    responses: {
      201: noContent('Created', {
        Location: text('Absolute URL of the upload', true),
        'Upload-Expires': EXPIRES,
        'Upload-Offset': size('With a body: the offset after it; a final upload: its length'),
        'Upload-Length': size('A final upload: the sum of its partial uploads'),
        'X-File-Id': FILE_ID,
      }),
      ...tusErrors(400, 401, 404, 409, 410, 412, 413, 415, 429, 460, 503),
    },
  });

  const params = FileIdParamSchema;
  registry.registerPath({
    method: 'head',
    path: '/uploads/{id}',
    operationId: 'getUploadOffset',
    summary: 'Where to resume: the upload’s offset',
    request: { params, headers: [TUS_REQUEST] },
    responses: { 204: HEAD_RESPONSE, ...tusErrors(401, 404, 410, 412, 429) },
  });

  const append = {
    summary: 'Append the body at Upload-Offset (not counted against the rate limit when it stores bytes)',
    description:
      'Any size up to the platform’s body limit (100 MB on Free/Pro). The last byte makes the file an ordinary ' +
      'file: the answer carries X-File-Id, and GET /uploads/{id} gives its record.',
    request: {
      params,
      headers: [
        TUS_REQUEST,
        requestHeader('Upload-Offset', 'Must be the upload’s offset (else 409)'),
        requestHeader('Content-Type', '`application/offset+octet-stream` (else 415)'),
        CHECKSUM,
      ],
      body: {
        required: true,
        content: { 'application/offset+octet-stream': { schema: z.string().openapi({ format: 'binary' }) } },
      },
    },
    responses: {
      204: noContent('Stored', {
        'Upload-Offset': size('The new offset', true),
        'Upload-Expires': EXPIRES,
        'X-File-Id': FILE_ID,
      }),
      ...tusErrors(400, 401, 403, 404, 409, 410, 412, 413, 415, 429, 460),
    },
  };
  registry.registerPath({ method: 'patch', path: '/uploads/{id}', operationId: 'appendToUpload', ...append });

  registry.registerPath({
    method: 'delete',
    path: '/uploads/{id}',
    operationId: 'terminateUpload',
    summary: 'Terminate the upload (tus termination); a completed one is deleted like its file',
    request: { params, headers: [TUS_REQUEST] },
    description:
      'A final upload is deleted like its file (with its partial uploads’ objects); a partial upload that a final ' +
      'upload took answers 409 UPLOAD_CONFLICT (delete the final instead).',
    responses: {
      204: noContent('Terminated: everything it held is freed', {}),
      ...tusErrors(401, 404, 409, 410, 412, 429),
    },
  });

  registry.registerPath({
    method: 'post',
    path: '/uploads/{id}',
    operationId: 'overrideUploadMethod',
    summary: 'PATCH, HEAD or DELETE for clients that cannot send them (X-HTTP-Method-Override)',
    description: 'Answers exactly as the method named in X-HTTP-Method-Override; 405 for any other.',
    request: {
      params,
      headers: [
        TUS_REQUEST,
        requestHeader('X-HTTP-Method-Override', '`PATCH`, `HEAD` or `DELETE`'),
        requestHeader('Upload-Offset', 'For PATCH', false),
        requestHeader('Content-Type', 'For PATCH: `application/offset+octet-stream`', false),
        CHECKSUM,
      ],
      body: {
        required: false,
        content: { 'application/offset+octet-stream': { schema: z.string().openapi({ format: 'binary' }) } },
      },
    },
    responses: {
      204: noContent('As the overriding method answers', {
        'Upload-Offset': size('PATCH and HEAD: the offset'),
        'Upload-Length': size('HEAD: size of the whole file'),
        'Upload-Metadata': text('HEAD: as sent at creation'),
        'Upload-Expires': EXPIRES,
        'Cache-Control': text('HEAD: `no-store`'),
        'X-File-Id': FILE_ID,
        'Upload-Concat': CONCAT,
      }),
      ...tusErrors(400, 401, 403, 404, 405, 409, 410, 412, 413, 415, 429, 460),
    },
  });

  registry.registerPath({
    method: 'get',
    path: '/uploads/{id}',
    operationId: 'getUploadedFile',
    summary: 'The file a completed upload became (the same record as GET /files/{id})',
    description: 'While bytes are missing: 409 UPLOAD_INCOMPLETE (HEAD tells the offset). Needs no Tus-Resumable.',
    request: { params },
    responses: {
      200: ok(successV2(FileRecordV2), 'The file record'),
      ...tusErrors(401, 404, 409, 410, 429),
    },
  });
}
