// Record and error types as the API's own zod schemas (src/) define them, and the exact field
// lists tests compare records with.
import type { z } from '@hono/zod-openapi';
import type {
  BulkDeleteResultSchema,
  BulkUploadResultSchema,
  FileRecordV1 as FileRecordV1Schema,
  FileRecordV2 as FileRecordV2Schema,
  UploadRecordV1 as UploadRecordV1Schema,
  UploadRecordV2 as UploadRecordV2Schema,
} from '../../src/files/schemas';
import type { PaginationSchema, ErrorBody as SrcErrorBody } from '../../src/schemas';
import type { ApiVersion } from './responses';

type SrcDetail = NonNullable<SrcErrorBody['details']>[number];
type KeysOf<T> = T extends unknown ? keyof T : never;
type ValueOf<T, K extends PropertyKey> = T extends unknown ? (K extends keyof T ? T[K] : never) : never;
/**
 * One entry of an error's `details`, whichever kind (a field's message, a missing scope, an id, a
 * policy rule): each key any kind has, optional, so a test reads the one its case gives.
 */
export type ErrorDetail = { [K in KeysOf<SrcDetail>]?: ValueOf<SrcDetail, K> };
/** The error envelope (src/schemas.ts), details read as ErrorDetail, with v2's `_perf` where a test reads it unstripped. */
export type ErrorBody = Omit<SrcErrorBody, 'details'> & { details?: ErrorDetail[]; _perf?: number };

export type UploadRecordV1 = z.infer<typeof UploadRecordV1Schema>;
export type UploadRecordV2 = z.infer<typeof UploadRecordV2Schema>;
export type FileRecordV1 = z.infer<typeof FileRecordV1Schema>;
export type FileRecordV2 = z.infer<typeof FileRecordV2Schema>;
/** A record as either version shows it: v2 adds isPublic and sha256 (and requestId to file records). */
export type UploadRecord = UploadRecordV1 & Partial<Pick<UploadRecordV2, 'isPublic' | 'sha256'>>;
export type FileRecord = FileRecordV1 & Partial<Pick<FileRecordV2, 'isPublic' | 'sha256' | 'requestId'>>;
/** The upload record `version` answers with (either version's fields when it is not known). */
export type UploadRecordOf<V extends ApiVersion> = [V] extends ['v2']
  ? UploadRecordV2
  : [V] extends ['v1']
    ? UploadRecordV1
    : UploadRecord;
/** The file record `version` answers with (either version's fields when it is not known). */
export type FileRecordOf<V extends ApiVersion> = [V] extends ['v2']
  ? FileRecordV2
  : [V] extends ['v1']
    ? FileRecordV1
    : FileRecord;
export type Pagination = z.infer<typeof PaginationSchema>;
export type Success<T> = { success: true; data: T };

export type BulkUploadBody = z.infer<typeof BulkUploadResultSchema>;
export type BulkUploadItem = BulkUploadBody['data']['results'][number];
export type BulkDeleteBody = z.infer<typeof BulkDeleteResultSchema>;
export type BulkDeleteItem = BulkDeleteBody['data']['results'][number];

/**
 * A record's exact field names in `version`, sorted: v2 adds isPublic and sha256 to uploads, gets
 * and list items, what stands between the file and its visitors (moderation, scan), and whether it
 * is end-to-end encrypted (encryption, meta: docs/e2e.md).
 */
export const fieldsFor = (version: ApiVersion, fields: readonly string[]) =>
  (version === 'v2'
    ? [...fields, 'isPublic', 'sha256', 'moderation', 'scan', 'encryption', 'meta']
    : [...fields]
  ).sort();

/**
 * A file record's (get, list) exact field names: v2 also adds requestId (the file request it came
 * through, or null) and e2eHeader (an encrypted file's owner's age header, or null).
 */
export const recordFieldsFor = (version: ApiVersion, fields: readonly string[]) =>
  version === 'v2' ? [...fieldsFor(version, fields), 'requestId', 'e2eHeader'].sort() : fieldsFor(version, fields);

/** The seed's get fields; list items add originalName (get may show it too); v2 adds isPublic. */
export const GET_FIELDS = [
  'downloadCount',
  'downloadUrl',
  'expiresAt',
  'filename',
  'id',
  'mimeType',
  'shareUrl',
  'size',
  'updatedAt',
  'uploadedAt',
];

/** The seed's v1 list item fields (v2 adds isPublic). */
export const LIST_ITEM_FIELDS = [...GET_FIELDS, 'originalName'];

/** ISO 8601 UTC with milliseconds, the API's one time format. */
export const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/** A v2 upload record's exact field names, sorted. */
export const UPLOAD_RECORD_V2_KEYS = [
  'downloadUrl',
  'encryption',
  'filename',
  'id',
  'isPublic',
  'meta',
  'mimeType',
  'moderation',
  'scan',
  'sha256',
  'shareUrl',
  'size',
  'uploadedAt',
];
