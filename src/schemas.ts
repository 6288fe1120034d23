// Shared zod schemas (a leaf, like config.ts and errors.ts): the envelope every answer shares (the error body, `success`/`data`, v2's `_perf`) and the field
// schemas several features' bodies use (expiry, pagination, list limits): validation and the
// OpenAPI documents of both versions read the same zod schemas.
import { z } from '@hono/zod-openapi';
import type { ErrorCode } from './errors.ts';
import { MAX_EXPIRY_SECONDS, MIN_EXPIRY_SECONDS, TOO_LONG, TOO_SHORT } from './expiry.ts';

export const ErrorSchema = z
  .object({
    error: z.string().openapi({ example: 'File not found' }),
    code: z.string().openapi({ example: 'FILE_NOT_FOUND' }),
    requestId: z.string().optional(),
    details: z
      .array(
        z.union([
          z.object({ field: z.string(), message: z.string() }),
          z.object({ scope: z.string() }),
          z.object({ id: z.string() }),
          z.object({ field: z.string(), rule: z.string(), limit: z.union([z.number(), z.boolean()]) }),
          z.object({ field: z.string(), rule: z.string(), message: z.string() }),
          z.object({ url: z.string() }),
        ]),
      )
      .optional()
      .openapi({
        description:
          'VALIDATION_ERROR: the fields at fault; FORBIDDEN: the scope the key lacks; FILE_NOT_FOUND for ' +
          'several ids at once (a collection’s new members): each id not found; POLICY_VIOLATION: each ' +
          'bound broken (`rule` names it as GET /api/v2/policy does, `limit` is its value); E2E_INVALID: the ' +
          'rule of the age format broken (`rule`: `version`, `stanza`, `column_width`, `no_mac_line`, ' +
          '`too_large`, `payload_length`, …; docs/e2e.md); ARCHIVE_CHANGED: the archive’s current URL',
      }),
    statement: z.string().optional().openapi({
      description: 'UNAVAILABLE_FOR_LEGAL_REASONS (451) and ACCOUNT_SUSPENDED (403): the operator’s reasoned decision',
    }),
    _perf: z.number().int().optional().openapi({ description: 'v2 only' }),
  })
  .openapi('Error');

/**
 * The error envelope every failure answers with: the renderer (http/errors.ts) builds it, the
 * documents describe it (ErrorSchema), the typed client reads it. `_perf` is v2's, added after.
 */
export type ErrorBody = Omit<z.infer<typeof ErrorSchema>, 'code' | '_perf'> & { code: ErrorCode };

/** A positive whole number in a query (page, limit), with its default and bound. */
export const positiveInt = (name: string, fallback: number, max?: number) => {
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

/** `limit` of the account's smaller lists (file requests, webhook deliveries): 1 … 100, default 20. */
export const limitQueryParam = z
  .string()
  .regex(/^\d+$/, 'limit must be a whole number')
  .transform(Number)
  .pipe(z.number().int().min(1, 'limit must be at least 1').max(100, 'limit must be at most 100'))
  .optional()
  .default(20)
  .openapi({ type: 'integer', minimum: 1, maximum: 100, default: 20, param: { name: 'limit', in: 'query' } });

/** A time in a record: ISO 8601 UTC with milliseconds. */
export const time = z.string().openapi({ format: 'date-time', example: '2026-11-22T08:15:30.123Z' });

export const PaginationSchema = z
  .object({
    page: z.number().int(),
    limit: z.number().int(),
    total: z.number().int(),
    totalPages: z.number().int(),
    hasMore: z.boolean(),
  })
  .openapi('Pagination');

export const success = <T extends z.ZodType>(data: T) => z.object({ success: z.literal(true), data });

/** v2's `_perf`: added to every v2 JSON body by the perf middleware, after the handler. */
export const perfField = z
  .number()
  .int()
  .optional()
  .openapi({ description: 'v2: whole milliseconds spent handling the request in the Worker (always sent)' });

export const successV2 = <T extends z.ZodType>(data: T) =>
  z.object({ success: z.literal(true), data, _perf: perfField });

/** An expiry in seconds from now, as JSON bodies give it (file changes, share links). */
export const EXPIRY_SECONDS = z
  .number()
  .int('must be a whole number of seconds')
  .min(MIN_EXPIRY_SECONDS, TOO_SHORT)
  .max(MAX_EXPIRY_SECONDS, TOO_LONG);

/** An expiry as a date-time, as JSON bodies give it; how far ahead is the service's to check. */
export const EXPIRY_DATE_TIME = z.iso.datetime({
  offset: true,
  message: 'must be an ISO 8601 date-time with a time zone',
});

/** The one rule for a body with both expiry forms. */
export const ONE_EXPIRY_FORM = {
  check: (body: { expiresAt?: unknown; expiresIn?: unknown }) =>
    body.expiresAt === undefined || body.expiresIn === undefined,
  message: 'give expiresAt or expiresIn, not both',
  path: ['expiresIn'],
};
