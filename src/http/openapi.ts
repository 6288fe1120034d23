// What the OpenAPI documents say beyond the validation schemas: response headers, binary bodies
// and error responses, written once and referenced by every operation.
import { type createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import type { Context, MiddlewareHandler } from 'hono';
import type { AppEnv } from '../env';
import {
  ApiError,
  archiveChanged,
  ERROR_STATUS,
  type ErrorCode,
  e2eInvalid,
  e2eRequired,
  policyViolation,
  validationError,
} from '../errors';
import { type ErrorBody, ErrorSchema } from '../schemas';
import { honoPath } from './fallbacks';

type HeaderSchema = { type: 'integer'; minimum: number } | { type: 'string' };
type HeaderObject = { description: string; required?: boolean; schema: HeaderSchema };

const integer = (minimum: number): HeaderSchema => ({ type: 'integer', minimum });
const string: HeaderSchema = { type: 'string' };

/** Registered under components.headers of each document (see openApiDocument). */
export const HEADER_COMPONENTS: Record<string, HeaderObject> = {
  'X-RateLimit-Limit': {
    description: 'Requests this API key may make in the current window. On every authenticated response.',
    schema: integer(1),
  },
  'X-RateLimit-Remaining': { description: 'Requests left in the current window.', schema: integer(0) },
  'X-RateLimit-Reset': { description: 'When the current window ends: Unix time in seconds, UTC.', schema: integer(0) },
  'Retry-After': { description: 'Seconds to wait before trying again.', schema: integer(1) },
};

const ref = (name: string) => ({ $ref: `#/components/headers/${name}` });

/** The rate-limit headers of every authenticated response (references to components.headers). */
export const RATE_LIMIT_HEADERS = {
  'X-RateLimit-Limit': ref('X-RateLimit-Limit'),
  'X-RateLimit-Remaining': ref('X-RateLimit-Remaining'),
  'X-RateLimit-Reset': ref('X-RateLimit-Reset'),
};

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'VALIDATION_ERROR (details names each field), TOO_MANY_FILES (also: a collection past MAX_COLLECTION_FILES, an archive past SUBREQUEST_BUDGET), TOO_MANY_LINKS (100 links to one file or collection), or DIGEST_MISMATCH (the bytes do not hash to the SHA-256 the client sent; nothing stored or charged)',
  401: 'UNAUTHORIZED: missing, malformed, unknown, revoked or expired key (always the same answer)',
  403:
    'FORBIDDEN: the key lacks the scope this operation needs; details: [{"scope": "<needed>"}]. ' +
    'ACCOUNT_SUSPENDED: the key’s account is suspended by this service’s operator (`statement` says why)',
  404: 'FILE_NOT_FOUND: unknown id, another account’s id, expired file, malformed id; LINK_NOT_FOUND and COLLECTION_NOT_FOUND likewise for a link or collection id',
  409:
    'LAST_KEYS_WRITE_KEY: the account’s last active key with keys:write cannot be revoked; ' +
    'IDEMPOTENCY_IN_PROGRESS: a request with this Idempotency-Key is still running',
  422: 'IDEMPOTENCY_KEY_REUSED: this Idempotency-Key was used for a different request',
  408: 'REQUEST_TIMEOUT: the upload ran past UPLOAD_TIMEOUT_SECONDS; nothing is stored',
  413: 'STORAGE_EXCEEDED (quota or file-count limit) or FILE_TOO_LARGE',
  415: 'INVALID_FILE_TYPE',
  416: 'RANGE_NOT_SATISFIABLE',
  429: 'RATE_LIMITED: over the key’s limit, or too many failed authentications from this address',
  451:
    'UNAVAILABLE_FOR_LEGAL_REASONS (RFC 7725): the file (or link) was taken down by this service’s operator; ' +
    '`statement` says why. With `Link: <ABUSE_CONTACT>; rel="blocked-by"` when the operator set one',
  503: 'SERVICE_UNAVAILABLE: the key’s storage account (or its Idempotency-Key store) cannot be reached; nothing was changed',
};

const errorHeaders = (status: number) => {
  if (status === 401) {
    return { 'WWW-Authenticate': { description: 'Always `Bearer`', required: true, schema: string } };
  }
  if (status === 429) return { ...RATE_LIMIT_HEADERS, 'Retry-After': { ...ref('Retry-After') } };
  if (status === 451) {
    return {
      ...RATE_LIMIT_HEADERS,
      Link: { description: '`<ABUSE_CONTACT>; rel="blocked-by"`, when ABUSE_CONTACT is set', schema: string },
    };
  }
  if (status === 416) {
    return {
      ...RATE_LIMIT_HEADERS,
      'Content-Range': { description: '`bytes */<size>`', required: true, schema: string },
    };
  }
  return RATE_LIMIT_HEADERS;
};

const errorContent = { 'application/json': { schema: ErrorSchema } };

/** An error envelope as the API sends it, for the documents' examples. */
function errorExample(code: ErrorCode): ErrorBody {
  const error =
    code === 'VALIDATION_ERROR'
      ? validationError('page', 'page must be at least 1')
      : code === 'POLICY_VIOLATION'
        ? policyViolation([{ field: 'expiresIn', rule: 'linkMaxExpirySeconds', limit: 604800 }])
        : code === 'ARCHIVE_CHANGED'
          ? archiveChanged(
              `https://files.example.com/api/v2/collections/col_3q2-7wEAAAAAAAAAAAAAAA/archive?v=${'3f'.repeat(32)}`,
            )
          : code === 'UNAVAILABLE_FOR_LEGAL_REASONS' || code === 'ACCOUNT_SUSPENDED'
            ? new ApiError(code, undefined, { statement: 'Removed after a copyright notice (case 2026-118).' })
            : code === 'E2E_INVALID'
              ? e2eInvalid({
                  field: 'file',
                  rule: 'column_width',
                  message: 'line 3: a body line of 65 columns; at most 64',
                })
              : code === 'E2E_REQUIRED'
                ? e2eRequired()
                : new ApiError(code);
  const body: ErrorBody = { error: error.message, code };
  if (error.details) body.details = error.details;
  if (error.statement) body.statement = error.statement;
  return body;
}

/**
 * The error envelope of one status with an example of each code answered with it (Swagger UI
 * shows each response's own, not the schema's one example).
 */
function errorContentOf(status: number, only: readonly ErrorCode[] = []) {
  const chosen = only.filter((code) => ERROR_STATUS[code] === status);
  const codes =
    chosen.length > 0
      ? chosen
      : (Object.keys(ERROR_STATUS) as ErrorCode[]).filter(
          (code) => ERROR_STATUS[code] === status && !FEATURE_CODES.has(code),
        );
  if (codes.length === 0) return errorContent;
  const examples = Object.fromEntries(codes.map((code) => [code, { summary: code, value: errorExample(code) }]));
  return { 'application/json': { schema: ErrorSchema, examples } };
}

/**
 * Codes of one feature's own operations (file requests): in their examples only, never in every
 * operation's answer with that status.
 */
const FEATURE_CODES = new Set<ErrorCode>([
  'COLLECTION_NOT_FOUND',
  'REQUEST_NOT_FOUND',
  'REQUEST_CLOSED',
  'REQUEST_EXPIRED',
  'REQUEST_FULL',
  'PASSWORD_REQUIRED',
  'POLICY_VIOLATION',
  'E2E_INVALID',
  'E2E_REQUIRED',
  'E2E_IDENTITY_EXISTS',
  'ARCHIVE_CHANGED',
  'SCAN_PENDING',
  'CONTENT_BLOCKED',
  'CAPTCHA_FAILED',
  'MODERATION_CONFLICT',
]);

/** The error envelope for each status, with the headers each carries, and a default for the rest. */
export const errors = (...statuses: number[]) => errorsWith([], ...statuses);

/** `errors`, with the examples of a status limited to `codes` where some of them have it. */
export const errorsWith = (codes: readonly ErrorCode[], ...statuses: number[]) => ({
  ...Object.fromEntries(
    // Every authenticated operation may answer 403 for a key without its scope.
    (statuses.includes(401) ? [...statuses, 403].sort((a, b) => a - b) : statuses).map((status) => [
      status,
      {
        description: ERROR_DESCRIPTIONS[status] ?? 'Error envelope',
        headers: errorHeaders(status),
        content: errorContentOf(status, codes),
      },
    ]),
  ),
  default: { description: 'Any other error (INTERNAL_ERROR, …), as the error envelope', content: errorContentOf(500) },
});

/** One error status with its own description and only `codes` as examples (a feature's own 404s, say). */
export function errorResponse(status: number, description: string, codes: ErrorCode[]) {
  const examples = Object.fromEntries(codes.map((code) => [code, { summary: code, value: errorExample(code) }]));
  return {
    [status]: {
      description,
      headers: errorHeaders(status),
      content: { 'application/json': { schema: ErrorSchema, examples } },
    },
  };
}

/**
 * The 422 of an operation the policy bounds (src/policy/). On v2 writes the Idempotency-Key's 422
 * is added to it (idempotency/openapi.ts): both codes share the status.
 */
export const POLICY_ERRORS = errorResponse(
  422,
  'POLICY_VIOLATION: the request breaks a bound this service sets (GET /api/v2/policy); details: ' +
    '[{"field", "rule", "limit"}], one per bound broken; nothing was created or changed',
  ['POLICY_VIOLATION'],
);

/**
 * The 422 of an upload (or a link to an encrypted file): the policy's bounds (an expiry, E2E_ALLOWED)
 * and the age format (docs/e2e.md). On v2 writes the Idempotency-Key's 422 is added to it.
 */
export const E2E_UPLOAD_ERRORS = errorResponse(
  422,
  'POLICY_VIOLATION: a bound this service sets (an expiry; `encryption` where E2E_ALLOWED is off); details ' +
    '[{"field", "rule", "limit"}]. E2E_INVALID: an age file (or header) that breaks the format; details ' +
    '[{"field", "rule", "message"}] name the rule. Nothing was stored or changed',
  ['POLICY_VIOLATION', 'E2E_INVALID'],
);

/** An OpenAPI response whose body is JSON of this schema (no rate-limit headers: the admin API). */
export const jsonResponse = <T extends z.ZodType>(schema: T, description: string) => ({
  description,
  content: { 'application/json': { schema } },
});

/** A JSON success response of an authenticated operation. */
export const ok = <T extends z.ZodType>(schema: T, description: string) => ({
  description,
  headers: RATE_LIMIT_HEADERS,
  content: { 'application/json': { schema } },
});

const text = (description: string): HeaderObject => ({ description, required: true, schema: string });

const FILE_HEADERS: Record<string, HeaderObject> = {
  'Content-Length': { description: 'Bytes in this response', required: true, schema: integer(0) },
  'Content-Disposition': text('`attachment; filename="<ASCII form>"; filename*=UTF-8\'\'<originalName>`'),
  ETag: text('Strong entity tag of the stored bytes'),
  'Last-Modified': text('The upload time, as an HTTP date'),
  'Accept-Ranges': text('`bytes`'),
  'Cache-Control': text('`private, no-transform`'),
  'Repr-Digest': {
    description:
      'RFC 9530: `sha-256=:<base64>:`, the SHA-256 of the whole file (also on a 206). Sent whenever the ' +
      'digest is known: every file but one stored before digests and not yet backfilled.',
    schema: { type: 'string' },
  },
};

const binary = (description: string) => ({
  '*/*': { schema: { type: 'string' as const, format: 'binary', description } },
});

/** The responses of a download (GET carries the bytes; HEAD the same headers and no body). */
export function downloadResponses(method: 'get' | 'head') {
  const body = (description: string) => (method === 'get' ? { content: binary(description) } : {});
  return {
    200: {
      description: 'The whole file; Content-Type is its stored media type',
      headers: { ...RATE_LIMIT_HEADERS, ...FILE_HEADERS },
      ...body('The file’s bytes'),
    },
    206: {
      description: 'The requested byte range',
      headers: {
        ...RATE_LIMIT_HEADERS,
        ...FILE_HEADERS,
        'Content-Range': text('`bytes <first>-<last>/<size>`'),
      },
      ...body('The bytes of the range'),
    },
    304: {
      description: 'Not modified (If-None-Match or If-Modified-Since matched); no body',
      headers: { ...RATE_LIMIT_HEADERS, ETag: text('Strong entity tag of the stored bytes') },
    },
    // 451: a file the operator quarantined or removed is served to no one, its owner included.
    ...errors(401, 404, 416, 429, 451),
  };
}

const header = (name: string, description: string) =>
  z
    .string()
    .optional()
    .openapi({ param: { name, in: 'header' }, description });

/**
 * The conditional and range request headers a download honours. Documented, not validated:
 * the download reads them itself, and ignores a malformed one as HTTP says.
 */
export const DOWNLOAD_REQUEST_HEADERS = [
  header('Range', 'One range, `bytes=<first>-[<last>]` or `bytes=-<suffix>`: 206 with that part'),
  header('If-None-Match', 'The ETag you have: 304 when it still matches'),
  header('If-Modified-Since', 'An HTTP date: 304 when the file is not newer'),
  header('If-Range', 'An ETag or HTTP date: the Range applies only while it matches'),
];

type RouteConfig = Parameters<typeof createRoute>[0];

/**
 * Serves a route at its definition's method and path, and puts the definition in the router's
 * document, without the validators `router.openapi` would add: for handlers that read their own
 * input (tus's headers, streamed bodies), whose answers to a bad one are the protocol's, not
 * VALIDATION_ERROR. `needs` is the route's declaration (route-needs.ts).
 */
export function serveDocumented(
  router: OpenAPIHono<AppEnv>,
  route: RouteConfig,
  needs: MiddlewareHandler<AppEnv>,
  handler: (c: Context<AppEnv>) => Response | Promise<Response>,
): void {
  router.on(route.method.toUpperCase(), honoPath(route.path), needs, handler);
  router.openAPIRegistry.registerPath(route);
}
