// What the tus routes' definitions (routes.ts) say of tus's headers and bodies in v2's OpenAPI
// document. Documented, not validated: the handlers read the headers themselves (messages.ts).
import { z } from '@hono/zod-openapi';
import { CHECKSUM_ALGORITHMS, TUS_EXTENSIONS, TUS_VERSION } from './protocol';

/** A response header of a tus answer, as OpenAPI writes it. */
export type TusHeader = {
  description: string;
  required?: boolean;
  schema: { type: 'string' | 'integer'; minimum?: number };
};
export const text = (description: string, required = false): TusHeader => ({
  description,
  required,
  schema: { type: 'string' },
});
const size = (description: string, required = false): TusHeader => ({
  description,
  required,
  schema: { type: 'integer', minimum: 0 },
});

export const TUS_RESUMABLE = { 'Tus-Resumable': text(`Always \`${TUS_VERSION}\``, true) };
const EXPIRES = text('When the unfinished upload expires (RFC 9110 date): TUS_EXPIRY_SECONDS after its last PATCH');
const FILE_ID = text(
  'Once the last byte is stored: the id of the file the upload became (never for a partial upload; at once for a final one)',
);
const CONCAT = text(
  '`partial` for a partial upload; `final;<url> <url> …` for a final one, its partial uploads as its creation named them',
);

/** The headers of OPTIONS (discovery). */
export const DISCOVERY_HEADERS = {
  ...TUS_RESUMABLE,
  'Tus-Version': text('Supported versions', true),
  'Tus-Extension': text(`\`${TUS_EXTENSIONS.join(',')}\``, true),
  'Tus-Max-Size': size('Largest Upload-Length accepted, in bytes (MAX_FILE_SIZE)', true),
  'Tus-Checksum-Algorithm': text(`\`${Object.keys(CHECKSUM_ALGORITHMS).join(',')}\``, true),
};

/** The headers of a creation's 201. */
export const CREATED_HEADERS = {
  Location: text('Absolute URL of the upload', true),
  'Upload-Expires': EXPIRES,
  'Upload-Offset': size('With a body: the offset after it; a final upload: its length'),
  'Upload-Length': size('A final upload: the sum of its partial uploads'),
  'X-File-Id': FILE_ID,
};

/** The headers of HEAD's 204: the upload's state. */
export const STATUS_HEADERS = {
  'Upload-Offset': size('Bytes stored so far: where to resume', true),
  'Upload-Length': size('Size of the whole file', true),
  'Upload-Metadata': text('As sent at creation'),
  'Upload-Expires': EXPIRES,
  'Cache-Control': text('`no-store`', true),
  'X-File-Id': FILE_ID,
  'Upload-Concat': CONCAT,
};

/** The headers of PATCH's 204. */
export const APPENDED_HEADERS = {
  'Upload-Offset': size('The new offset', true),
  'Upload-Expires': EXPIRES,
  'X-File-Id': FILE_ID,
};

/** The headers of a POST with X-HTTP-Method-Override: those of the method it means. */
export const OVERRIDDEN_HEADERS = {
  'Upload-Offset': size('PATCH and HEAD: the offset'),
  'Upload-Length': size('HEAD: size of the whole file'),
  'Upload-Metadata': text('HEAD: as sent at creation'),
  'Upload-Expires': EXPIRES,
  'Cache-Control': text('HEAD: `no-store`'),
  'X-File-Id': FILE_ID,
  'Upload-Concat': CONCAT,
};

export const requestHeader = (name: string, description: string, required = true) => {
  const schema = z.string().openapi({ param: { name, in: 'header' }, description });
  return required ? schema : schema.optional();
};
export const TUS_REQUEST = requestHeader('Tus-Resumable', `\`${TUS_VERSION}\`; anything else (or nothing) is 412`);
export const CHECKSUM = requestHeader(
  'Upload-Checksum',
  `\`<algorithm> <base64 digest>\` of the body (${Object.keys(CHECKSUM_ALGORITHMS).join(', ')}): 400 for another algorithm, 460 on a mismatch`,
  false,
);

/** A body of bytes at an offset (tus's only request body). */
export const offsetStream = (required: boolean) => ({
  required,
  content: { 'application/offset+octet-stream': { schema: z.string().openapi({ format: 'binary' }) } },
});

/** What each error status means for a tus operation. */
export const TUS_ERROR_DESCRIPTIONS: Record<number, string> = {
  404: 'FILE_NOT_FOUND: unknown upload, another key’s upload, malformed id',
  403: 'FORBIDDEN: a PATCH to a final upload (Upload-Concat: final), which takes no bytes',
  409: 'UPLOAD_CONFLICT: Upload-Offset is not the upload’s offset, or another PATCH is writing to it (GET: UPLOAD_INCOMPLETE; a final upload: a partial is incomplete, UPLOAD_INCOMPLETE, or already part of another final, UPLOAD_CONFLICT)',
  410: 'UPLOAD_GONE: the upload expired or was terminated (for 7 days; then 404)',
  412: 'UNSUPPORTED_TUS_VERSION: Tus-Resumable missing or not 1.0.0; Tus-Version says what is supported',
  413: 'FILE_TOO_LARGE (MAX_FILE_SIZE, or more bytes than the upload has left) or STORAGE_EXCEEDED (quota, file limit)',
  415: 'UNSUPPORTED_MEDIA_TYPE (not application/offset+octet-stream) or INVALID_FILE_TYPE (the first bytes: the upload ends)',
  460: 'CHECKSUM_MISMATCH: Upload-Checksum does not match the body; none of its bytes were kept',
};
