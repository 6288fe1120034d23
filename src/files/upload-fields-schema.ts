// The upload's form fields as zod schemas. Imports only zod and expiry.ts (with extensions), so
// files/schemas.ts and the typed client can load it under Node's resolution too.
import { z } from 'zod';
import { MAX_EXPIRY_SECONDS, MIN_EXPIRY_SECONDS, TOO_LONG, TOO_SHORT } from '../expiry.ts';

/**
 * The fields as they arrive (text parts, tus metadata): the one schema of each field, read by
 * UploadFieldsSchema (the parser) and described by the OpenAPI documents (files/schemas.ts).
 */
export const UPLOAD_FIELDS = {
  isPublic: z.enum(['true', 'false'], { message: 'must be "true" or "false"' }),
  expiresIn: z.string().regex(/^\d+$/, 'must be a whole number of seconds'),
  /** The SHA-256 the file must have (a client's assertion), checked once its bytes are read. */
  sha256: z.string().regex(/^[0-9a-fA-F]{64}$/, 'must be 64 hexadecimal digits (a SHA-256)'),
};

/**
 * The non-file fields of an upload, as parsed after the body has been read: the form's text parts,
 * tus metadata, and the raw upload's query (PUT /upload/{filename}, isPublic and expiresIn).
 */
export const UploadFieldsSchema = z.object({
  // Absent stays absent: the account's policy decides the default (policy/service.ts, uploadPublicRule).
  isPublic: UPLOAD_FIELDS.isPublic
    .optional()
    .transform((value) => (value === undefined ? undefined : value === 'true')),
  expiresIn: UPLOAD_FIELDS.expiresIn
    .transform(Number)
    .pipe(z.number().int().min(MIN_EXPIRY_SECONDS, TOO_SHORT).max(MAX_EXPIRY_SECONDS, TOO_LONG))
    .optional(),
  sha256: UPLOAD_FIELDS.sha256.transform((value) => value.toLowerCase()).optional(),
});
