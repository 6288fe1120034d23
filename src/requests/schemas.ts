// zod schemas of the file request routes: validation and the v2 OpenAPI document alike.
import { z } from '@hono/zod-openapi';
import { WHILE_DEFAULT_LINKS_BARRED } from '../policy/schemas.ts';
import { limitQueryParam, perfField } from '../schemas.ts';

/** At most this many files per request (its object keeps the received ids). */
export const MAX_REQUEST_FILES = 1000;
export const DEFAULT_REQUEST_FILES = 10;
export const DEFAULT_REQUEST_EXPIRY_SECONDS = 7 * 24 * 60 * 60;
export const MAX_REQUEST_EXPIRY_SECONDS = 31_536_000;
const MAX_TEXT = 2000;

const time = z.string().openapi({ format: 'date-time', example: '2026-11-22T08:15:30.123Z' });
const bytes = z.number().int('must be a whole number').min(1, 'must be at least 1');
const expiresIn = z
  .number()
  .int('must be a whole number of seconds')
  .min(60, 'must be at least 60')
  .max(MAX_REQUEST_EXPIRY_SECONDS, `must be at most ${MAX_REQUEST_EXPIRY_SECONDS}`);
const expiresAt = z.iso.datetime({ offset: true, message: 'must be an ISO 8601 date-time with a time zone' });
const mediaPattern = z
  .string()
  .regex(
    /^[A-Za-z0-9!#$&^_.+-]+\/(\*|[A-Za-z0-9!#$&^_.+-]+\*?)$/,
    'must be a media-type pattern like image/* or application/pdf',
  );

const maxFiles = z
  .number()
  .int('must be a whole number')
  .min(1, 'must be at least 1')
  .max(MAX_REQUEST_FILES, `must be at most ${MAX_REQUEST_FILES}`);

const limitFields = {
  label: z.string().max(200, 'must be at most 200 characters').nullable().optional().openapi({
    description: 'The owner’s name for the request; never shown to uploaders',
  }),
  message: z.string().max(MAX_TEXT, `must be at most ${MAX_TEXT} characters`).nullable().optional().openapi({
    description: 'Shown to uploaders on the request’s page',
  }),
  maxFileSize: bytes.nullable().optional().openapi({
    description: 'Largest file in bytes; at most MAX_FILE_SIZE (the default)',
  }),
  maxBytes: bytes
    .nullable()
    .optional()
    .openapi({ description: 'All files together, in bytes; default: only the quota' }),
  allowedTypes: z.array(mediaPattern).min(1).max(50).nullable().optional().openapi({
    description: 'Media-type patterns, each allowed by the server’s ALLOWED_FILE_TYPES; default: the server’s',
  }),
  expiresIn: expiresIn.optional().openapi({ description: 'Seconds from now (60 … 31536000); default 7 days' }),
  expiresAt: expiresAt.optional().openapi({ description: 'When the request stops taking files; not with expiresIn' }),
  password: z.string().min(1).max(200).nullable().optional().openapi({
    description: 'Uploaders send it as HTTP Basic with an empty user name (or through the page’s form)',
  }),
  isPublic: z
    .boolean()
    .optional()
    .openapi({
      description: `Whether received files’ share links work; default false. ${WHILE_DEFAULT_LINKS_BARRED} true is 422 POLICY_VIOLATION, and received files are private whatever the request says`,
    }),
};

const notBoth = <T extends { expiresIn?: unknown; expiresAt?: unknown }>(body: T) =>
  body.expiresAt === undefined || body.expiresIn === undefined;

export const RequestCreateSchema = z
  .strictObject({
    ...limitFields,
    maxFiles: maxFiles
      .optional()
      .openapi({ description: `How many files the request takes; default ${DEFAULT_REQUEST_FILES}` }),
    e2e: z
      .boolean()
      .optional()
      .openapi({
        description:
          'true: the request takes only end-to-end encrypted (age) files: any other upload is 422 E2E_REQUIRED. ' +
          'Share its page as `{url}#r=<age1… recipient>` (the recipient travels only in the fragment): the page ' +
          'encrypts each file in the browser; the command line and `age` work too (docs/e2e.md). Default false',
      }),
  })
  .refine(notBoth, { message: 'give expiresAt or expiresIn, not both', path: ['expiresIn'] })
  .openapi('FileRequestCreate');

export const RequestUpdateSchema = z
  .strictObject({
    ...limitFields,
    maxFiles: maxFiles.optional(),
    closed: z.boolean().optional().openapi({ description: 'true closes the request, false reopens it' }),
  })
  .refine(notBoth, { message: 'give expiresAt or expiresIn, not both', path: ['expiresIn'] })
  .refine((body) => Object.keys(body).length > 0, { message: 'must name something to change' })
  .openapi('FileRequestUpdate', { minProperties: 1 });

export type RequestCreate = z.output<typeof RequestCreateSchema>;
export type RequestUpdate = z.output<typeof RequestUpdateSchema>;

export const RequestIdParamSchema = z.object({
  id: z.string().openapi({ param: { name: 'id', in: 'path' }, example: 'cmVxdWVzdC1pZC0xMjM0NQ' }),
});

const count = z.number().int().min(0);

export const RequestRecordSchema = z
  .object({
    id: z.string(),
    label: z.string().nullable(),
    message: z.string().nullable(),
    url: z.string().openapi({ description: '{site_url}/r/<token>: the page for people' }),
    uploadUrl: z
      .string()
      .openapi({ description: 'Multipart POST, parts named file; no key (the URL is the capability)' }),
    tusUrl: z.string().openapi({ description: 'tus 1.0 creation endpoint; no key' }),
    maxFiles: z.number().int(),
    maxFileSize: z.number().int().nullable(),
    maxBytes: z.number().int().nullable(),
    allowedTypes: z.array(z.string()).nullable(),
    isPublic: z.boolean(),
    hasPassword: z.boolean(),
    fileCount: count,
    bytes: count,
    status: z.enum(['open', 'closed', 'expired', 'full']),
    createdAt: time,
    updatedAt: time,
    expiresAt: time,
    closedAt: time.nullable(),
    e2e: z.boolean().openapi({ description: 'true: the request takes only end-to-end encrypted (age) files' }),
  })
  .openapi('FileRequest');

export const RequestListQuerySchema = z.object({
  page: z
    .string()
    .regex(/^\d+$/, 'page must be a whole number')
    .transform(Number)
    .pipe(z.number().int().min(1, 'page must be at least 1'))
    .optional()
    .default(1)
    .openapi({ type: 'integer', minimum: 1, default: 1, param: { name: 'page', in: 'query' } }),
  limit: limitQueryParam,
});

const receiptItem = z.object({
  success: z.literal(true),
  name: z.string(),
  size: z.number().int(),
  mimeType: z.string(),
  sha256: z
    .string()
    .nullable()
    .openapi({ description: 'SHA-256 of the bytes received (lowercase hex): the uploader can check it' }),
});

/** The receipt of one tus upload through a request (GET on its URL once complete). */
export const UploadReceiptSchema = z
  .object({ success: z.literal(true), data: receiptItem, _perf: perfField })
  .openapi('FileRequestUploadReceipt');

export const ReceiptSchema = z
  .object({
    success: z.literal(true),
    data: z.object({
      files: z.array(
        z.union([
          receiptItem,
          z.object({ success: z.literal(false), name: z.string(), error: z.string(), code: z.string() }),
        ]),
      ),
    }),
    _perf: perfField,
  })
  .openapi('FileRequestReceipt');

// The public paths under /r/{token} (public-routes.ts): documented, not validated (a malformed
// token is REQUEST_NOT_FOUND, not VALIDATION_ERROR).

export const RequestTokenParamSchema = z.object({
  token: z
    .string()
    .openapi({ param: { name: 'token', in: 'path' }, description: 'The request’s token (from its url)' }),
});

export const RequestUploadParamSchema = RequestTokenParamSchema.extend({
  id: z.string().openapi({ param: { name: 'id', in: 'path' }, description: 'The upload’s id (from Location)' }),
});

export const RequestRawUploadParamSchema = RequestTokenParamSchema.extend({
  filename: z.string().openapi({
    param: { name: 'filename', in: 'path' },
    description: 'The file’s name, percent-encoded (`curl -T` appends it to a URL ending in `/`)',
    example: 'report.pdf',
  }),
});

/** What an uploader may know of a request (GET /r/{token}). */
export const RequestInfoSchema = z.object({
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
    e2e: z.boolean().openapi({
      description:
        'true: only end-to-end encrypted (age) files are taken (`encryption=age` before the file part, ' +
        '`?encryption=age` on a raw PUT, tus metadata `encryption age`); anything else is 422 E2E_REQUIRED',
    }),
  }),
  _perf: perfField,
});

/** The multipart body of POST /r/{token}/upload: files, each a part named file. */
export const RequestFilesFormSchema = z.object({ file: z.array(z.string().openapi({ format: 'binary' })) });

export const TusResumableHeader = z
  .string()
  .openapi({ param: { name: 'Tus-Resumable', in: 'header' }, description: '`1.0.0`' });

/** What the public paths answer, for the documents' examples. */
export const PUBLIC_CODES = [
  'PASSWORD_REQUIRED',
  'REQUEST_NOT_FOUND',
  'FILE_NOT_FOUND',
  'REQUEST_CLOSED',
  'REQUEST_EXPIRED',
  'REQUEST_FULL',
  'UPLOAD_GONE',
  'E2E_INVALID',
  'E2E_REQUIRED',
] as const;

/** What each error status means on the public paths. */
export const PUBLIC_ERROR_DESCRIPTIONS: Record<number, string> = {
  401: 'PASSWORD_REQUIRED: the request has a password (HTTP Basic, empty user name); WWW-Authenticate: Basic',
  404: 'REQUEST_NOT_FOUND (malformed or unknown token), or FILE_NOT_FOUND (an upload not of this request)',
  410: 'REQUEST_CLOSED, REQUEST_EXPIRED or REQUEST_FULL: the request takes no more files',
  413: 'FILE_TOO_LARGE (the request’s maxFileSize, MAX_FILE_SIZE, or its maxBytes left) or STORAGE_EXCEEDED (the owner’s quota)',
  415: 'INVALID_FILE_TYPE: outside the request’s allowedTypes or the server’s rules (runnable files always)',
  422:
    'E2E_INVALID: an age file whose header or payload length breaks the format (details name the rule); ' +
    'E2E_REQUIRED: a plain file sent to a request that takes only age files. Nothing is kept',
  429: 'RATE_LIMITED: too many uploads from this address or to this request, or too many wrong passwords',
};
