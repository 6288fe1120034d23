// zod schemas shared by validation and the OpenAPI documents of both versions.
import { z } from '@hono/zod-openapi';

export const ErrorSchema = z
  .object({
    error: z.string().openapi({ example: 'File not found' }),
    code: z.string().openapi({ example: 'FILE_NOT_FOUND' }),
    requestId: z.string().optional(),
    details: z.array(z.object({ field: z.string(), message: z.string() })).optional(),
    _perf: z.number().int().optional().openapi({ description: 'v2 only' }),
  })
  .openapi('Error');

const positiveInt = (name: string, fallback: number, max?: number) => {
  const bounded = z.number().int().min(1, `${name} must be at least 1`);
  return z
    .string()
    .regex(/^[+-]?\d+$/, `${name} must be a whole number`)
    .transform(Number)
    .pipe(max === undefined ? bounded : bounded.max(max, `${name} must be at most ${max}`))
    .optional()
    .default(fallback)
    .openapi({ type: 'integer', minimum: 1, maximum: max, default: fallback, param: { name, in: 'query' } });
};

export const ListQuerySchema = z.object({
  page: positiveInt('page', 1),
  limit: positiveInt('limit', 10, 100),
});

export const FileIdParamSchema = z.object({
  id: z.string().openapi({ param: { name: 'id', in: 'path' }, example: 'Qm9vayBvZiBpZHMhIQ' }),
});

const time = z.string().openapi({ format: 'date-time', example: '2026-11-22T08:15:30.123Z' });

const uploadFields = {
  id: z.string(),
  filename: z.string().openapi({ description: 'Stored name: [A-Za-z0-9._-], unique, keeps the extension' }),
  size: z.number().int(),
  mimeType: z.string(),
  downloadUrl: z.string(),
  shareUrl: z.string(),
};

export const UploadRecordV1 = z.object({ ...uploadFields, uploadedAt: time }).openapi('UploadRecordV1');
export const UploadRecordV2 = z
  .object({ ...uploadFields, isPublic: z.boolean(), uploadedAt: time })
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
export const FileRecordV2 = z.object({ ...recordFields, isPublic: z.boolean() }).openapi('FileRecordV2');

export const PaginationSchema = z
  .object({
    page: z.number().int(),
    limit: z.number().int(),
    total: z.number().int(),
    totalPages: z.number().int(),
    hasMore: z.boolean(),
  })
  .openapi('Pagination');

export const UploadFormSchema = z
  .object({
    file: z.string().openapi({ format: 'binary', description: 'The file (required)' }),
    isPublic: z
      .enum(['true', 'false'])
      .optional()
      .openapi({ description: 'Whether the share link works; default true' }),
    expiresIn: z
      .string()
      .optional()
      .openapi({ description: 'Seconds until the file expires, 60 to 31536000; default: never' }),
  })
  .openapi('UploadForm');

/** The non-file form fields of an upload, as parsed after the body has been read. */
export const UploadFieldsSchema = z.object({
  isPublic: z
    .enum(['true', 'false'], { message: 'must be "true" or "false"' })
    .optional()
    .transform((value) => value !== 'false'),
  expiresIn: z
    .string()
    .regex(/^\d+$/, 'must be a whole number of seconds')
    .transform(Number)
    .pipe(z.number().int().min(60, 'must be at least 60').max(31_536_000, 'must be at most 31536000'))
    .optional(),
});

export const success = <T extends z.ZodType>(data: T) => z.object({ success: z.literal(true), data });
/** v2's `_perf`: added to every v2 JSON body by the perf middleware, after the handler. */
export const perfField = z
  .number()
  .int()
  .optional()
  .openapi({ description: 'v2: whole milliseconds spent handling the request in the Worker (always sent)' });

export const successV2 = <T extends z.ZodType>(data: T) =>
  z.object({ success: z.literal(true), data, _perf: perfField });

export const BulkUploadFormSchema = z
  .object({
    files: z
      .array(z.string().openapi({ format: 'binary' }))
      .openapi({ description: 'The files (parts named files or files[])' }),
    isPublic: z.enum(['true', 'false']).optional().openapi({ description: 'For every file; default true' }),
    expiresIn: z.string().optional().openapi({ description: 'For every file: seconds, 60 to 31536000' }),
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
      .min(1, 'give at least one id')
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
