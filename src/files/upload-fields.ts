import { z } from 'zod';

/**
 * The non-file fields of an upload, as parsed after the body has been read: the multipart form's
 * text parts, and the raw upload's query (PUT /upload/{filename}) through the same schema.
 */
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
  sha256: z
    .string()
    .regex(/^[0-9a-fA-F]{64}$/, 'must be 64 hexadecimal digits (a SHA-256)')
    .transform((value) => value.toLowerCase())
    .optional(),
});
