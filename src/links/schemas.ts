// zod schemas of the share-link routes: they validate requests and write the v2 OpenAPI document.
import { z } from '@hono/zod-openapi';
import { EXPIRY_RANGE } from '../expiry.ts';
import { EXPIRY_DATE_TIME, EXPIRY_SECONDS, ONE_EXPIRY_FORM } from '../schemas.ts';

const time = z.string().openapi({ format: 'date-time', example: '2026-11-22T08:15:30.123Z' });

export const LinkIdParamSchema = z.object({
  linkId: z.string().openapi({ param: { name: 'linkId', in: 'path' }, example: 'lnk_Qm9vayBvZiBpZHMhIQ' }),
});

export const LinkRecordSchema = z
  .object({
    id: z.string(),
    fileId: z.string().nullable().openapi({ description: 'The file it shares; null for a collection’s link' }),
    collectionId: z
      .string()
      .nullable()
      .openapi({ description: 'The collection it shares (one link, one ZIP); null for a file’s link' }),
    url: z.string().openapi({ description: '`{site_url}/share/<token>`: the token is 256 random bits' }),
    label: z.string().nullable(),
    hasPassword: z.boolean(),
    maxDownloads: z.number().int().nullable(),
    downloadCount: z.number().int().openapi({
      description: 'Exact: read from the link’s counter. Whole downloads only: a 200, or a 206 from byte 0 to the end',
    }),
    expiresAt: time.nullable(),
    lastDownloadedAt: time.nullable(),
    createdAt: time,
    status: z.enum(['active', 'expired', 'exhausted', 'revoked']).openapi({
      description:
        '`exhausted`: a capped link whose byte budget cannot serve another byte (an empty file’s: its downloads are spent)',
    }),
    remainingBytes: z
      .number()
      .int()
      .nullable()
      .openapi({
        description:
          'Bytes the cap still allows: maxDownloads × the length of what the link shares now (the file, or the ' +
          'collection’s archive), less the bytes served through it; null when uncapped',
      }),
    lastAccessAt: time.nullable().openapi({ description: 'The last visit of any kind (page, download, password…)' }),
    visitors: z.number().int().openapi({ description: 'Distinct visitors among the access log’s kept events' }),
    droppedEvents: z
      .number()
      .int()
      .openapi({ description: 'Access events dropped under load before they reached the log' }),
  })
  .openapi('ShareLink');

const label = z.string().max(200, 'must be at most 200 characters');
const password = z
  .string()
  .min(1, 'must not be empty')
  .max(256, 'must be at most 256 characters')
  .openapi({ description: 'Never shown again, never in a URL: stored as a PBKDF2-SHA-256 hash', format: 'password' });
const maxDownloads = z
  .number()
  .int('must be a whole number')
  .min(1, 'must be at least 1')
  .max(1_000_000_000, 'must be at most 1000000000');
const expiresIn = EXPIRY_SECONDS;
const expiresAt = EXPIRY_DATE_TIME;

const linkFields = {
  label: label.optional(),
  password: password.optional(),
  maxDownloads: maxDownloads.optional().openapi({ description: 'Downloads the link gives, then it is exhausted' }),
  expiresIn: expiresIn.optional().openapi({ description: `Seconds from now (${EXPIRY_RANGE})` }),
  expiresAt: expiresAt.optional().openapi({ description: 'In the future, at most 365 days ahead' }),
};

/** An age header as JSON carries it (text, at most 16 KiB; its grammar is checked by the service). */
export const AgeHeaderSchema = z
  .string()
  .max(16 * 1024, 'must be at most 16384 characters (an age header is at most 16 KiB)')
  .openapi({
    description:
      'An age v1 header (`age-encryption.org/v1` … `--- <mac>` and its LF), wrapping the file’s key for this ' +
      'link: typically one X25519 stanza for a fresh identity whose secret key goes in the link’s fragment ' +
      '(`#k=AGE-SECRET-KEY-1…`), or one scrypt stanza. A header that breaks the format is 422 E2E_INVALID',
  });

export const LinkCreateSchema = z
  .strictObject({
    ...linkFields,
    e2eHeader: AgeHeaderSchema.optional().openapi({
      description:
        'Required for an end-to-end encrypted file (400 VALIDATION_ERROR without it), refused for a plain one: the ' +
        'age header this link serves before the payload (docs/e2e.md)',
    }),
  })
  .refine(ONE_EXPIRY_FORM.check, ONE_EXPIRY_FORM)
  .openapi('ShareLinkCreate', { not: { required: ['expiresAt', 'expiresIn'] } });

export const CollectionLinkCreateSchema = z
  .strictObject({
    ...linkFields,
    e2eHeaders: z
      .record(z.string(), AgeHeaderSchema)
      .optional()
      .openapi({
        description:
          '`{<fileId>: <age header>}`: this link’s header for each encrypted member it serves. An encrypted member ' +
          'without one is left out of this link’s page and ZIP (PUT /links/{linkId}/headers/{fileId} adds it later); ' +
          'an id that is no member is 404 FILE_NOT_FOUND, a plain member 400 VALIDATION_ERROR',
      }),
  })
  .refine(ONE_EXPIRY_FORM.check, ONE_EXPIRY_FORM)
  .openapi('CollectionLinkCreate', { not: { required: ['expiresAt', 'expiresIn'] } });

export const LinkHeaderParamSchema = z.object({
  linkId: z.string().openapi({ param: { name: 'linkId', in: 'path' }, example: 'lnk_Qm9vayBvZiBpZHMhIQ' }),
  fileId: z.string().openapi({ param: { name: 'fileId', in: 'path' }, example: 'Qm9vayBvZiBpZHMhIQ' }),
});

export const LinkHeaderPutSchema = z.strictObject({ header: AgeHeaderSchema }).openapi('LinkHeaderPut');

export const LinkHeaderRecordSchema = z
  .object({
    linkId: z.string(),
    fileId: z.string(),
    header: z.string().openapi({ description: 'The age header the link serves before this file’s payload' }),
    createdAt: z.string().openapi({ format: 'date-time' }),
    updatedAt: z.string().openapi({ format: 'date-time' }),
  })
  .openapi('LinkHeader');

export const LinkUpdateSchema = z
  .strictObject({
    label: label.nullable().optional(),
    password: password.nullable().optional().openapi({ description: 'A new password; null removes it' }),
    maxDownloads: maxDownloads.nullable().optional().openapi({ description: 'null: no cap' }),
    expiresIn: expiresIn.nullable().optional(),
    expiresAt: expiresAt.nullable().optional(),
  })
  .refine(ONE_EXPIRY_FORM.check, ONE_EXPIRY_FORM)
  .refine((body) => Object.keys(body).length > 0, {
    message: 'must name something to change: label, password, maxDownloads, expiresAt or expiresIn',
  })
  .openapi('ShareLinkUpdate', { minProperties: 1, not: { required: ['expiresAt', 'expiresIn'] } });
