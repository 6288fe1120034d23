import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode, UnofficialStatusCode } from 'hono/utils/http-status';
import type { z } from 'zod';
import { type FieldDetail, issueDetails, namedMessage } from './lib/validation-messages.ts';

/** The closed set of error codes, and the one table that maps them to HTTP statuses. */
export const ERROR_STATUS = {
  UNAUTHORIZED: 401,
  // A valid key without the scope the route needs (details: [{ scope }]).
  FORBIDDEN: 403,
  RATE_LIMITED: 429,
  FILE_NOT_FOUND: 404,
  STORAGE_EXCEEDED: 413,
  FILE_TOO_LARGE: 413,
  INVALID_FILE_TYPE: 415,
  VALIDATION_ERROR: 400,
  TOO_MANY_FILES: 400,
  DIGEST_MISMATCH: 400,
  NOT_FOUND: 404,
  WEBHOOK_NOT_FOUND: 404,
  DELIVERY_NOT_FOUND: 404,
  // Share links (src/links/): an unknown, another account's, or dead file's link id.
  LINK_NOT_FOUND: 404,
  TOO_MANY_LINKS: 400,
  // Collections (src/collections/): an unknown, malformed or another account's collection id.
  COLLECTION_NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  // Revoking the account's last active key that holds keys:write (the account would lose its keys).
  LAST_KEYS_WRITE_KEY: 409,
  // Idempotency-Key (src/middleware/idempotency.ts): the key named another request; its first request still runs.
  IDEMPOTENCY_KEY_REUSED: 422,
  IDEMPOTENCY_IN_PROGRESS: 409,
  // Policy (src/policy/): a create or change that breaks a bound the operator set (details name each).
  POLICY_VIOLATION: 422,
  // End-to-end encryption (src/e2e/): an age file (or header) that breaks the format (details name
  // the rule); a plain upload to a request that takes only age files; an identity PUT that would
  // replace the account's recipient without saying so.
  E2E_INVALID: 422,
  E2E_REQUIRED: 422,
  E2E_IDENTITY_EXISTS: 409,
  RANGE_NOT_SATISFIABLE: 416,
  // ZIP archives (src/collections/archive.ts): a URL whose `?v=` names a version that is no longer current.
  ARCHIVE_CHANGED: 412,
  REQUEST_TIMEOUT: 408,
  // tus uploads (src/tus/): the statuses the tus 1.0.0 protocol prescribes.
  UPLOAD_CONFLICT: 409,
  UPLOAD_INCOMPLETE: 409,
  UPLOAD_GONE: 410,
  UNSUPPORTED_TUS_VERSION: 412,
  UNSUPPORTED_MEDIA_TYPE: 415,
  // tus's own status, outside Hono's list of known ones.
  CHECKSUM_MISMATCH: 460 as UnofficialStatusCode,
  // File requests (src/requests/): an unknown one is 404; a known token whose request no longer
  // takes files is 410, with the reason in the code.
  REQUEST_NOT_FOUND: 404,
  REQUEST_CLOSED: 410,
  REQUEST_EXPIRED: 410,
  REQUEST_FULL: 410,
  PASSWORD_REQUIRED: 401,
  // Abuse handling (src/moderation/, docs/abuse.md): RFC 7725's 451 for a thing taken down (a
  // file, a link, an account), with the operator's statement; a key of a suspended account; a file
  // a visitor may have only once its scan is clean; an upload whose SHA-256 is blocked; a report
  // whose Turnstile check failed; an admin action that does not fit the thing as it stands.
  UNAVAILABLE_FOR_LEGAL_REASONS: 451,
  ACCOUNT_SUSPENDED: 403,
  SCAN_PENDING: 409,
  CONTENT_BLOCKED: 451,
  CAPTCHA_FAILED: 403,
  MODERATION_CONFLICT: 409,
  UPLOAD_FAILED: 500,
  SERVICE_UNAVAILABLE: 503,
  INTERNAL_ERROR: 500,
} as const satisfies Record<string, ContentfulStatusCode>;

export type ErrorCode = keyof typeof ERROR_STATUS;

const DEFAULT_MESSAGE: Record<ErrorCode, string> = {
  UNAUTHORIZED: 'Invalid or inactive API key',
  FORBIDDEN: 'This API key lacks the scope this request needs',
  RATE_LIMITED: 'Too many requests',
  FILE_NOT_FOUND: 'File not found',
  STORAGE_EXCEEDED: 'Storage limit of this account reached',
  FILE_TOO_LARGE: 'File is too large',
  INVALID_FILE_TYPE: 'File type not allowed',
  VALIDATION_ERROR: 'Invalid request',
  TOO_MANY_FILES: 'Too many files',
  DIGEST_MISMATCH: 'The file does not match the SHA-256 the client sent; nothing was stored',
  NOT_FOUND: 'Not found',
  WEBHOOK_NOT_FOUND: 'Webhook not found',
  DELIVERY_NOT_FOUND: 'Delivery not found',
  LINK_NOT_FOUND: 'Link not found',
  TOO_MANY_LINKS: 'Too many links to this file',
  COLLECTION_NOT_FOUND: 'Collection not found',
  METHOD_NOT_ALLOWED: 'Method not allowed',
  LAST_KEYS_WRITE_KEY: 'This is the account’s last active key with keys:write: make another one before revoking it',
  IDEMPOTENCY_KEY_REUSED: 'This Idempotency-Key was used for a different request',
  IDEMPOTENCY_IN_PROGRESS: 'A request with this Idempotency-Key is still running: retry later',
  POLICY_VIOLATION: 'This request breaks a bound this service sets (GET /api/v2/policy); nothing was changed',
  E2E_INVALID: 'Not a valid age file: nothing was stored',
  E2E_REQUIRED: 'This file request takes only end-to-end encrypted (age) files: nothing was stored',
  E2E_IDENTITY_EXISTS:
    'The account has another age recipient already: send "replace": true to replace it (files keep their headers)',
  RANGE_NOT_SATISFIABLE: 'Requested range not satisfiable',
  ARCHIVE_CHANGED:
    'This archive has changed since its URL was made (v= names another version): download it from the start at the URL in details',
  REQUEST_TIMEOUT: 'The request took too long',
  UPLOAD_CONFLICT: 'Upload-Offset does not match the upload, or another request is writing to it',
  UPLOAD_INCOMPLETE: 'The upload is not complete yet',
  UPLOAD_GONE: 'The upload has expired or was terminated',
  UNSUPPORTED_TUS_VERSION: 'Unsupported tus version',
  UNSUPPORTED_MEDIA_TYPE: 'Unsupported Content-Type',
  CHECKSUM_MISMATCH: 'Upload-Checksum does not match the bytes received',
  REQUEST_NOT_FOUND: 'File request not found',
  REQUEST_CLOSED: 'This file request is closed',
  REQUEST_EXPIRED: 'This file request has expired',
  REQUEST_FULL: 'This file request has received all the files it takes',
  PASSWORD_REQUIRED: 'This file request needs its password (HTTP Basic, empty user name)',
  UNAVAILABLE_FOR_LEGAL_REASONS: 'Unavailable for legal reasons: this service’s operator took it down',
  ACCOUNT_SUSPENDED: 'This account is suspended: its keys can do nothing until the operator lifts the suspension',
  SCAN_PENDING: 'This file is being scanned: try again later',
  CONTENT_BLOCKED: 'This file is blocked by this service: its SHA-256 is on the blocklist; nothing was stored',
  CAPTCHA_FAILED: 'The challenge (Turnstile) was not passed: try again',
  MODERATION_CONFLICT: 'This action does not apply to the thing as it stands',
  UPLOAD_FAILED: 'Upload failed',
  SERVICE_UNAVAILABLE: 'Service temporarily unavailable',
  INTERNAL_ERROR: 'Internal server error',
};

/** A bound of the policy a request broke: the field at fault, the bound's name, and its value. */
export type PolicyDetail = { field: string; rule: string; limit: number | boolean };

/**
 * The rule of the age format an upload or header broke (E2E_INVALID): where (`file`, `e2eHeader`,
 * …), which rule (a header problem of src/lib/age/errors.ts, or `payload_length`), and how.
 */
export type E2eDetail = { field: string; rule: string; message: string };

/**
 * A validation failure names its field; a 403 FORBIDDEN names the scope the key lacks; a 404
 * FILE_NOT_FOUND about several ids at once (a collection's new members) names each one missing; a
 * 422 POLICY_VIOLATION names each bound broken; a 412 ARCHIVE_CHANGED names the archive's current URL.
 */
export type ErrorDetail =
  | { field: string; message: string }
  | { scope: string }
  | { id: string }
  | PolicyDetail
  | E2eDetail
  | { url: string };

export class ApiError extends HTTPException {
  readonly code: ErrorCode;
  readonly details: ErrorDetail[] | undefined;
  readonly headers: Record<string, string>;
  /** The operator's reasoned decision (a 451, a suspended account's 403): the envelope carries it. */
  readonly statement: string | undefined;

  constructor(
    code: ErrorCode,
    message?: string,
    options: { details?: ErrorDetail[]; headers?: Record<string, string>; cause?: unknown; statement?: string } = {},
  ) {
    super(ERROR_STATUS[code], { message: message ?? DEFAULT_MESSAGE[code], cause: options.cause });
    this.name = 'ApiError';
    this.code = code;
    this.details = options.details;
    this.headers = options.headers ?? {};
    this.statement = options.statement;
  }

  get statusCode(): ContentfulStatusCode {
    return ERROR_STATUS[this.code];
  }
}

/** The 403 for a key without the scope a request needs (before the request has any effect). */
export const forbidden = (scope: string, headers?: Record<string, string>) =>
  new ApiError('FORBIDDEN', `This API key lacks the scope ${scope}`, { details: [{ scope }], headers });

/** The 422 for a create or change that breaks bounds of the policy: every one of them, in `details`. */
export const policyViolation = (details: PolicyDetail[], message?: string) =>
  new ApiError('POLICY_VIOLATION', message, { details });

/** The envelope's sentence for validation details: the first one's, when it names its field. */
const validationText = (details: FieldDetail[]) => {
  const first = details[0];
  if (!first) return undefined;
  return first.message.includes(first.field) ? first.message : `Invalid ${first.field}: ${first.message}`;
};

/** A 400 about one field; a predicate message ("must be in the future") is prefixed with the field. */
export const validationError = (field: string, message: string) => {
  const details = [{ field, message: namedMessage(field, message) }];
  return new ApiError('VALIDATION_ERROR', validationText(details), { details });
};

/** A 400 about several fields at once, each detail naming its field. */
export const validationErrors = (details: FieldDetail[]) =>
  new ApiError('VALIDATION_ERROR', validationText(details), { details });

/** The 400 for a failed zod parse: one detail per problem, each naming its field. */
export const zodValidationError = (issues: readonly z.core.$ZodIssue[]) => validationErrors(issueDetails(issues));

// The error envelope (ErrorBody) has one schema and type: ErrorSchema in api/schemas.ts.

/**
 * The one 429, whatever was counted (a key's requests, an address's failures, downloads or
 * uploads, a link's wrong passwords): Retry-After until the window's `reset` (Unix seconds), at
 * least 1. `headers`: what the throttle shows besides (a key's X-RateLimit-*).
 */
export const rateLimited = (reset: number, message?: string, headers: Record<string, string> = {}, now = Date.now()) =>
  new ApiError('RATE_LIMITED', message, {
    headers: { ...headers, 'Retry-After': String(Math.max(1, reset - Math.floor(now / 1000))) },
  });

/** The 422 for an age file or header that breaks the format: the rule broken, in `details`. */
export const e2eInvalid = (detail: E2eDetail) =>
  new ApiError('E2E_INVALID', `Not a valid age file (${detail.field}: ${detail.message}); nothing was stored`, {
    details: [detail],
  });

/** The 422 for a plain upload to a file request that takes only age files. */
export const e2eRequired = () =>
  new ApiError('E2E_REQUIRED', undefined, {
    details: [{ field: 'encryption', message: 'must be "age": this request takes only end-to-end encrypted files' }],
  });

/** The 409 for an identity PUT that would replace the account's recipient without `"replace": true`. */
export const e2eIdentityExists = () => new ApiError('E2E_IDENTITY_EXISTS');

/** The 404 for a collection id that is unknown, malformed or another account's (no hint which). */
export const collectionNotFound = () => new ApiError('COLLECTION_NOT_FOUND');

/** The 404 for file ids of a request that are unknown, malformed or another account's: each named. */
export const filesNotFound = (ids: readonly string[]) =>
  new ApiError('FILE_NOT_FOUND', ids.length === 1 ? 'File not found' : `${ids.length} files not found`, {
    details: ids.map((id) => ({ id })),
  });

/**
 * The 412 for an archive URL whose version (`?v=`) is not the archive's current one: a resume
 * that sends no If-Range (`curl -C -`) fails instead of appending another archive's bytes.
 * `url`: the same route with the current version.
 */
export const archiveChanged = (url: string) => new ApiError('ARCHIVE_CHANGED', undefined, { details: [{ url }] });

/** The 400 for more members than a collection (or an archive) may hold. */
export const tooManyFiles = (message: string) => new ApiError('TOO_MANY_FILES', message);

/**
 * The 451 of a thing taken down (RFC 7725): a file quarantined or removed, a link disabled, an
 * account suspended (its links and file requests), with the operator's statement. The renderer
 * adds `Link: <ABUSE_CONTACT>; rel="blocked-by"` to every 451.
 */
export const unavailableForLegalReasons = (statement: string) =>
  new ApiError('UNAVAILABLE_FOR_LEGAL_REASONS', undefined, { statement });

/** The 403 for every key of a suspended account, whatever it asks (the /mcp endpoint too). */
export const accountSuspended = (statement: string, headers?: Record<string, string>) =>
  new ApiError('ACCOUNT_SUSPENDED', undefined, { statement, headers });

/**
 * The 409 for a visitor of a file not (yet) cleared by its scan in SCAN_MODE=gate: Retry-After
 * while the scan runs; `held`: a file the scanner could not clear (too large, an error), served
 * only once an operator releases it.
 */
export const scanPending = (retryAfterSeconds: number, held = false) =>
  new ApiError('SCAN_PENDING', held ? SCAN_HELD_MESSAGE : undefined, {
    headers: { 'Retry-After': String(retryAfterSeconds) },
  });

/** The SCAN_PENDING of a file its scan could not clear (too large, a scanner error): held for the operator. */
export const SCAN_HELD_MESSAGE = 'This file could not be scanned: it is held until this service’s operator reviews it';

/** The 451 for an upload whose SHA-256 is on the blocklist (in bulk: a per-file failure with this code). */
export const contentBlocked = () => new ApiError('CONTENT_BLOCKED');

/** The 403 for a report whose Turnstile token did not pass siteverify. */
export const captchaFailed = () => new ApiError('CAPTCHA_FAILED');

/** The 409 for an operator's action that does not fit the thing as it stands. */
export const moderationConflict = (message: string) => new ApiError('MODERATION_CONFLICT', message);

/** The one 401 for a missing or refused credential, with the challenge RFC 6750 asks for. */
export const unauthorized = (message?: string) =>
  new ApiError('UNAUTHORIZED', message, { headers: { 'WWW-Authenticate': 'Bearer' } });
