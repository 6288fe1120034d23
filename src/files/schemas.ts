// The files' zod schemas (v1 and v2): records, list queries, upload forms, bulk bodies, changes
// and usage, shared by validation and the OpenAPI documents.
import { z } from '@hono/zod-openapi';
import { EXPIRY_RANGE, MAX_EXPIRY_SECONDS, MIN_EXPIRY_SECONDS } from '../expiry.ts';
import { WHILE_DEFAULT_LINKS_BARRED } from '../policy/schemas.ts';
import { EXPIRY_DATE_TIME, EXPIRY_SECONDS, ONE_EXPIRY_FORM, perfField, positiveInt, time } from '../schemas.ts';
import { UPLOAD_FIELDS } from './upload-fields-schema.ts';

export const ListQuerySchema = z.object({
  page: positiveInt('page', 1),
  limit: positiveInt('limit', 10, 100),
});

/** v2's list adds a name search and other orders; v1 ignores these parameters, like any unknown one. */
export const ListQuerySchemaV2 = ListQuerySchema.extend({
  q: z
    .string()
    .min(1, 'q must not be empty')
    .max(255, 'q must be at most 255 characters')
    .optional()
    .openapi({
      param: { name: 'q', in: 'query' },
      description:
        'Only files whose originalName contains this text, ignoring case (ASCII letters). ' +
        'Scans all of the key’s files, so it costs more than a plain page (see docs/limits.md).',
    }),
  sort: z
    .enum(['uploadedAt', 'size', 'name'], { message: 'must be uploadedAt, size or name' })
    .optional()
    .openapi({
      param: { name: 'sort', in: 'query' },
      description: 'The order: upload time (default), size, or originalName (ASCII letters ignore case); ties by id',
    }),
  order: z
    .enum(['asc', 'desc'], { message: 'must be asc or desc' })
    .optional()
    .openapi({
      param: { name: 'order', in: 'query' },
      description: 'Default: desc for uploadedAt and size (newest, largest first), asc for name',
    }),
});

export const FileIdParamSchema = z.object({
  id: z.string().openapi({ param: { name: 'id', in: 'path' }, example: 'Qm9vayBvZiBpZHMhIQ' }),
});

const uploadFields = {
  id: z.string(),
  filename: z.string().openapi({ description: 'Stored name: [A-Za-z0-9._-], unique, keeps the extension' }),
  size: z.number().int(),
  mimeType: z.string(),
  downloadUrl: z.string(),
  shareUrl: z.string(),
};

const sha256Field = z
  .string()
  .nullable()
  .openapi({
    description:
      'Lowercase hex SHA-256 of the stored bytes, computed while they streamed in (downloads send it as ' +
      'Repr-Digest). null only for a file stored before digests existed, until the sweep backfills it.',
    example: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
  });

export const ModerationSchema = z
  .object({
    state: z.enum(['quarantined', 'removed']).openapi({
      description:
        'quarantined: served to no one, kept (release serves it again); removed: the bytes are deleted for ' +
        'good and this record stays as a tombstone (every URL of the file answers 451; delete it when you like)',
    }),
    statement: z.string().openapi({ description: 'The operator’s reasoned decision' }),
    at: time,
  })
  .nullable()
  .openapi('FileModeration', {
    description: 'The decision of this service’s operator that the file is under (docs/abuse.md); null: none',
  });

export const ScanSchema = z
  .object({
    status: z.enum(['pending', 'clean', 'infected', 'too_large', 'error', 'skipped']),
    signature: z.string().nullable().openapi({ description: 'What the scanner found (infected only)' }),
    at: time.nullable().openapi({ description: 'When the scan reached this status' }),
  })
  .nullable()
  .openapi('FileScan', {
    description:
      'Where the file’s malware scan stands (SCANNER, SCAN_MODE); null when scanning was off when it arrived. ' +
      'too_large and error are never taken for clean.',
  });

const standingFields = { moderation: ModerationSchema, scan: ScanSchema };

const uploadExpiry = time.optional().openapi({ description: 'When the file expires; absent when it does not' });

/** v2's end-to-end encryption fields of a file (docs/e2e.md). */
const e2eFields = {
  encryption: z
    .enum(['age'])
    .nullable()
    .openapi({
      description:
        '`age`: an end-to-end encrypted file (an age v1 file): the server holds its payload (size, sha256 are ' +
        'the payload’s) and serves a header in front of it; null for a plain file',
    }),
  meta: z
    .string()
    .nullable()
    .openapi({ description: 'The client’s opaque base64url `meta` of an encrypted file (≤ 4 KiB), as sent; or null' }),
};

export const UploadRecordV1 = z
  .object({ ...uploadFields, uploadedAt: time, expiresAt: uploadExpiry })
  .openapi('UploadRecordV1');

export const UploadRecordV2 = z
  .object({
    ...uploadFields,
    isPublic: z.boolean(),
    sha256: sha256Field,
    ...standingFields,
    ...e2eFields,
    uploadedAt: time,
    expiresAt: uploadExpiry,
  })
  .openapi('UploadRecordV2');

const recordFields = {
  ...uploadFields,
  originalName: z.string(),
  downloadCount: z.number().int(),
  uploadedAt: time,
  updatedAt: time,
  expiresAt: time.nullable(),
};

export const FileRecordV1 = z.object(recordFields).openapi('FileRecordV1');

export const FileRecordV2 = z
  .object({
    ...recordFields,
    isPublic: z.boolean(),
    sha256: sha256Field,
    requestId: z
      .string()
      .nullable()
      .openapi({ description: 'The file request it came through (POST /requests); null for uploads with a key' }),
    ...standingFields,
    ...e2eFields,
    e2eHeader: z
      .string()
      .nullable()
      .openapi({
        description:
          'An encrypted file’s owner’s age header (from its upload), what the owner’s download and `shareUrl` serve ' +
          'before the payload: open it with the account’s identity to make a link’s header. null for a plain file',
      }),
  })
  .openapi('FileRecordV2');

const ENCRYPTION_FIELD = z
  .enum(['age'])
  .optional()
  .openapi({
    description:
      '`age`: the file is an age v1 file (binary, e.g. `age -r age1… -o f.age f`); send it before the file part. ' +
      'The server keeps the header apart and stores the payload; a header or payload length that breaks the format ' +
      'is 422 E2E_INVALID (details name the rule) and nothing is stored',
  });
const META_FIELD = z.string().optional().openapi({
  description: 'With `encryption`: opaque base64url (≤ 4 KiB), stored and returned as it is (docs/e2e.md)',
});

/** An upload's isPublic under the policy (docs/policy.md). */
const DEFAULT_PUBLIC = `default true. ${WHILE_DEFAULT_LINKS_BARRED} the default is false and true is 422 POLICY_VIOLATION`;

export const UploadFormSchema = z
  .object({
    file: z.string().openapi({ format: 'binary', description: 'The file (required)' }),
    isPublic: UPLOAD_FIELDS.isPublic
      .optional()
      .openapi({ description: `Whether the share link works; ${DEFAULT_PUBLIC}` }),
    expiresIn: UPLOAD_FIELDS.expiresIn
      .optional()
      .openapi({ description: `Seconds until the file expires, ${EXPIRY_RANGE}; default: never` }),
    sha256: UPLOAD_FIELDS.sha256.optional().openapi({
      description:
        'The SHA-256 (64 hex digits) the file must have; before or after the file part. A mismatch is ' +
        '400 DIGEST_MISMATCH and nothing is stored or charged.',
    }),
    encryption: ENCRYPTION_FIELD,
    meta: META_FIELD,
  })
  .openapi('UploadForm');

export const BulkUploadFormSchema = z
  .object({
    files: z
      .array(z.string().openapi({ format: 'binary' }))
      .optional()
      .openapi({ description: 'The files, one part each (at least one file, here or in files[])' }),
    'files[]': z
      .array(z.string().openapi({ format: 'binary' }))
      .optional()
      .openapi({ description: 'The same, for clients that name repeated parts files[]' }),
    isPublic: UPLOAD_FIELDS.isPublic.optional().openapi({ description: `For every file; ${DEFAULT_PUBLIC}` }),
    expiresIn: UPLOAD_FIELDS.expiresIn.optional().openapi({ description: `For every file: seconds, ${EXPIRY_RANGE}` }),
    sha256: z
      .array(z.string())
      .optional()
      .openapi({
        description:
          'One per file, in the files’ order: the SHA-256 (64 hex digits) each must have, or empty for ' +
          'none. A file that does not match fails alone with DIGEST_MISMATCH (nothing of it stored or ' +
          'charged); a count that differs from the files’ is 400.',
      }),
    encryption: ENCRYPTION_FIELD.openapi({
      description: '`age`: every file of the request is an age v1 file (see POST /upload); before the first file',
    }),
    meta: z.array(z.string()).optional().openapi({
      description: 'With `encryption`: one per file, in the files’ order, each opaque base64url (≤ 4 KiB) or empty',
    }),
  })
  .openapi('BulkUploadForm');

export const BulkUploadResultSchema = z
  .object({
    success: z.literal(true),
    data: z.object({
      total: z.number().int(),
      successful: z.number().int(),
      failed: z.number().int(),
      results: z.array(
        z.union([
          z.object({ success: z.literal(true), data: UploadRecordV2 }),
          z.object({ success: z.literal(false), filename: z.string(), error: z.string(), code: z.string() }),
        ]),
      ),
    }),
    _perf: perfField,
  })
  .openapi('BulkUploadResult');

export const BulkDeleteRequestSchema = z
  .object({
    ids: z
      .array(z.string())
      .min(1, 'must hold at least one id')
      .openapi({ description: '1 to 50 file ids; duplicates count once' }),
  })
  .openapi('BulkDeleteRequest');

export const BulkDeleteResultSchema = z
  .object({
    success: z.literal(true),
    data: z.object({
      total: z.number().int(),
      deleted: z.number().int(),
      failed: z.number().int(),
      results: z.array(
        z.union([
          z.object({ id: z.string(), success: z.literal(true) }),
          z.object({ id: z.string(), success: z.literal(false), error: z.string(), code: z.string() }),
        ]),
      ),
    }),
    _perf: perfField,
  })
  .openapi('BulkDeleteResult');

export const FileUpdateSchema = z
  .strictObject({
    isPublic: z
      .boolean()
      .optional()
      .openapi({
        description: `false: the share link answers 404 from now on; true: it works again. ${WHILE_DEFAULT_LINKS_BARRED} true is 422 POLICY_VIOLATION`,
      }),
    originalName: z
      .string()
      .optional()
      .openapi({
        description:
          'The new name, cleaned like an uploaded one (path parts and control characters removed, at most ' +
          '255 bytes). Downloads use it; the stored `filename` does not change. A name that runs when ' +
          'opened (.exe, …) is 415 INVALID_FILE_TYPE.',
      }),
    expiresAt: EXPIRY_DATE_TIME.nullable().optional().openapi({
      description: 'When the file expires: in the future, at most 365 days ahead; null: never. Not with expiresIn.',
    }),
    expiresIn: EXPIRY_SECONDS.nullable()
      .optional()
      .openapi({
        description: `Seconds from now until the file expires (${MIN_EXPIRY_SECONDS} … ${MAX_EXPIRY_SECONDS}); null: never`,
      }),
  })
  .refine(ONE_EXPIRY_FORM.check, ONE_EXPIRY_FORM)
  .refine((body) => Object.keys(body).length > 0, {
    message: 'must name something to change: isPublic, originalName, expiresAt or expiresIn',
  })
  .openapi('FileUpdate', { minProperties: 1, not: { required: ['expiresAt', 'expiresIn'] } });

const count = z.number().int().min(0);

export const UsageSchema = z
  .object({
    usedBytes: count.openapi({ description: 'Bytes of the key’s live files' }),
    reservedBytes: count.openapi({ description: 'Bytes held by uploads in progress (not yet stored)' }),
    quotaBytes: count.openapi({ description: 'The key’s storage quota' }),
    files: count.openapi({ description: 'The key’s live files' }),
    reservedFiles: count.openapi({ description: 'Files held by uploads in progress' }),
    maxFiles: count.openapi({ description: 'How many files the key may keep' }),
    rateLimit: z.object({
      requests: z.number().int().min(1).openapi({ description: 'Requests allowed per window' }),
      windowSeconds: z.number().int().min(1).openapi({ description: 'Window length in seconds' }),
    }),
  })
  .openapi('Usage');

/** PUT /upload/{filename}'s query: the upload's isPublic and expiresIn, the same field schemas. */
export const RawUploadQuerySchema = z.object({
  isPublic: UPLOAD_FIELDS.isPublic.optional().openapi({
    param: { name: 'isPublic', in: 'query' },
    description: `\`true\` or \`false\`: whether the share link works; ${DEFAULT_PUBLIC}`,
  }),
  expiresIn: UPLOAD_FIELDS.expiresIn.optional().openapi({
    param: { name: 'expiresIn', in: 'query' },
    description: `Seconds until the file expires, ${EXPIRY_RANGE}; default: never`,
  }),
});

/** PUT /upload/{filename} and PUT {uploadUrl}/{filename}: `encryption` besides (the MCP tools take no age file). */
export const RawUploadE2eQuerySchema = z.object({
  encryption: ENCRYPTION_FIELD.openapi({
    param: { name: 'encryption', in: 'query' },
    description:
      '`age`: the body is an age v1 file (binary); its header is kept apart and its payload stored (docs/e2e.md). ' +
      'A header or payload length that breaks the format is 422 E2E_INVALID, nothing stored',
  }),
});
