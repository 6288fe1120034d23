// The tus routes in /api/v2/openapi.json. They are handled by hand (src/uploads/router.ts), so
// they are described here with their headers; the record shapes come from the shared schemas.
import { type OpenAPIHono, z } from '@hono/zod-openapi';
import { errorResponses, jsonResponse } from '../api/context';
import { FileIdParamSchema, FileRecordV2, successV2 } from '../api/schemas';
import type { AppEnv } from '../env';
import { CHECKSUM_ALGORITHMS, TUS_EXTENSIONS, TUS_VERSION } from './protocol';

type Registry = OpenAPIHono<AppEnv>['openAPIRegistry'];

const header = (description: string, example?: string) => z.string().openapi({ description, example });

const TUS_RESUMABLE = { 'Tus-Resumable': header(`Always ${TUS_VERSION}`, TUS_VERSION) };
const tusResumable = z.object({ 'Tus-Resumable': header(`Required: ${TUS_VERSION} (else 412)`, TUS_VERSION) });
const expires = header('When the unfinished upload expires (RFC 9110 date), 24 h after its last PATCH by default');

/** Adds the tus routes and their headers to v2's OpenAPI document. */
export function documentUploads(registry: Registry): void {
  registry.registerPath({
    method: 'options',
    path: '/uploads',
    summary: 'tus discovery (no key needed)',
    security: [],
    responses: {
      204: {
        description: 'The server’s tus capabilities',
        headers: z.object({
          ...TUS_RESUMABLE,
          'Tus-Version': header('Supported versions', TUS_VERSION),
          'Tus-Extension': header('Supported extensions', TUS_EXTENSIONS.join(',')),
          'Tus-Max-Size': header('Largest Upload-Length accepted, in bytes (MAX_FILE_SIZE)'),
          'Tus-Checksum-Algorithm': header('For Upload-Checksum', Object.keys(CHECKSUM_ALGORITHMS).join(',')),
        }),
      },
    },
  });

  registry.registerPath({
    method: 'post',
    path: '/uploads',
    summary: 'Create a resumable upload (tus creation, creation-with-upload)',
    description:
      'Checks Upload-Length against MAX_FILE_SIZE and the key’s quota (413) and reserves it until the upload ends. ' +
      'Upload-Metadata keys: filename (required), filetype, isPublic, expiresIn — as the multipart upload’s parts. ' +
      'A body (Content-Type: application/offset+octet-stream) is the first PATCH.',
    request: {
      headers: tusResumable.extend({
        'Upload-Length': header('Size of the whole file in bytes'),
        'Upload-Metadata': header('Comma-separated "key base64value" pairs', 'filename cmVwb3J0LnBkZg=='),
        'Upload-Checksum': header('Of the body, when one is sent: "<algorithm> <base64 digest>"').optional(),
      }),
    },
    responses: {
      201: {
        description: 'Created; Location is the upload’s URL',
        headers: z.object({
          ...TUS_RESUMABLE,
          Location: header('Absolute URL of the upload'),
          'Upload-Expires': expires,
          'Upload-Offset': header('With a body: the offset after it').optional(),
          'X-File-Id': header('When the body completed the upload: the file’s id').optional(),
        }),
      },
      ...errorResponses(400, 401, 412, 413, 415, 429, 460),
    },
  });

  const uploadParams = FileIdParamSchema;
  registry.registerPath({
    method: 'head',
    path: '/uploads/{id}',
    summary: 'The upload’s offset (where to resume); not counted against the rate limit',
    request: { params: uploadParams, headers: tusResumable },
    responses: {
      204: {
        description: 'Cache-Control: no-store',
        headers: z.object({
          ...TUS_RESUMABLE,
          'Upload-Offset': header('Bytes stored so far'),
          'Upload-Length': header('Size of the whole file'),
          'Upload-Metadata': header('As sent at creation').optional(),
          'Upload-Expires': expires.optional(),
          'X-File-Id': header('Once complete: the file’s id').optional(),
        }),
      },
      404: { description: 'Unknown upload, or another key’s' },
      410: { description: 'Terminated or expired' },
      412: { description: 'Missing or unsupported Tus-Resumable' },
    },
  });

  registry.registerPath({
    method: 'patch',
    path: '/uploads/{id}',
    summary: 'Append bytes at Upload-Offset; not counted against the rate limit',
    description:
      'Any size up to the platform’s body limit (100 MB on Free/Pro). Also as POST with X-HTTP-Method-Override: PATCH. ' +
      'The last byte makes the file an ordinary file: the answer carries X-File-Id, and GET /uploads/{id} its record.',
    request: {
      params: uploadParams,
      headers: tusResumable.extend({
        'Upload-Offset': header('Must equal the upload’s offset (else 409)'),
        'Content-Type': header('application/offset+octet-stream (else 415)', 'application/offset+octet-stream'),
        'Upload-Checksum': header(
          '"<algorithm> <base64 digest>" of the body (400 unknown algorithm, 460 mismatch)',
        ).optional(),
      }),
      body: { content: { 'application/offset+octet-stream': { schema: z.string().openapi({ format: 'binary' }) } } },
    },
    responses: {
      204: {
        description: 'Stored',
        headers: z.object({
          ...TUS_RESUMABLE,
          'Upload-Offset': header('The new offset'),
          'Upload-Expires': expires.optional(),
          'X-File-Id': header('When this PATCH completed the upload: the file’s id').optional(),
        }),
      },
      ...errorResponses(400, 401, 404, 409, 410, 412, 413, 415, 460),
    },
  });

  registry.registerPath({
    method: 'delete',
    path: '/uploads/{id}',
    summary: 'Terminate the upload (tus termination); a completed one is deleted like its file',
    request: { params: uploadParams, headers: tusResumable },
    responses: {
      204: { description: 'Terminated', headers: z.object(TUS_RESUMABLE) },
      ...errorResponses(401, 404, 410, 412, 429),
    },
  });

  registry.registerPath({
    method: 'get',
    path: '/uploads/{id}',
    summary: 'The file a completed upload became (same record as GET /files/{id})',
    request: { params: uploadParams },
    responses: {
      200: jsonResponse(successV2(FileRecordV2), 'The file record'),
      ...errorResponses(401, 404, 409, 410, 429),
    },
  });
}
