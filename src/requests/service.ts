// The file request service: make, list, read, change and close an account's requests, and find
// the request behind a public URL. Rules only: no HTTP here.
import type { Config } from '../config';
import { ApiError, validationError } from '../errors';
import { isAllowed } from '../files/file-type';
import { randomBase64Url } from '../lib/crypto';
import { checkE2e, checkRequest, type Policy, requestExpirySeconds } from '../policy/service';
import {
  closeOwnedRequest,
  findOwnedRequest,
  findRequestByToken as findRequestRow,
  insertRequest,
  listOwnedRequests,
  type RequestChanges,
  type RequestRow,
  type RequestWithOwner,
  updateOwnedRequest,
} from '../storage/requests-repo';
import { isoNow } from '../time';
import { hashPassword, passwordText } from '../visitors/password';
import {
  DEFAULT_REQUEST_EXPIRY_SECONDS,
  DEFAULT_REQUEST_FILES,
  MAX_REQUEST_EXPIRY_SECONDS,
  type RequestCreate,
  type RequestUpdate,
} from './schemas';

export type RequestStatus = 'open' | 'closed' | 'expired' | 'full';

export const REQUEST_ID_PATTERN = /^[A-Za-z0-9_-]{22}$/;
/** 192 random bits, base64url. */
export const REQUEST_TOKEN_PATTERN = /^[A-Za-z0-9_-]{32}$/;

export const requestNotFound = () => new ApiError('REQUEST_NOT_FOUND');

/** Closed first, then expired, then full: the reason a request takes no more files, or open. */
export function requestStatus(row: RequestRow, now = Date.now()): RequestStatus {
  if (row.closed_at !== null) return 'closed';
  if (Date.parse(row.expires_at) <= now) return 'expired';
  if (row.file_count >= row.max_files || (row.max_bytes !== null && row.bytes >= row.max_bytes)) return 'full';
  return 'open';
}

/** The 410 for a request that takes no files (closed, expired or full). */
export function requestGone(status: Exclude<RequestStatus, 'open'>): ApiError {
  const code = ({ closed: 'REQUEST_CLOSED', expired: 'REQUEST_EXPIRED', full: 'REQUEST_FULL' } as const)[status];
  return new ApiError(code);
}

export const allowedTypesOf = (row: Pick<RequestRow, 'allowed_types'>): string[] | null =>
  row.allowed_types === null ? null : (JSON.parse(row.allowed_types) as string[]);

/** Whether every type `pattern` admits is admitted by `by` (patterns end in `*` for a prefix). */
const covers = (by: string, pattern: string) =>
  pattern.endsWith('*')
    ? by.endsWith('*') && pattern.slice(0, -1).startsWith(by.slice(0, -1))
    : isAllowed(pattern, [by]);

/**
 * The patterns a file must match to come in through the request: the request's AND the
 * server's (which may have narrowed since the request was made).
 */
export function effectiveTypes(requestTypes: string[] | null, serverTypes: readonly string[]): string[] {
  if (requestTypes === null) return [...serverTypes];
  return requestTypes.flatMap((pattern) =>
    serverTypes.some((server) => covers(server, pattern))
      ? [pattern]
      : serverTypes.filter((server) => covers(pattern, server)),
  );
}

function checkTypes(types: string[] | null | undefined, config: Config): string | null | undefined {
  if (types === undefined || types === null) return types;
  const normalized = [...new Set(types.map((type) => type.toLowerCase()))];
  const outside = normalized.filter((pattern) => !config.ALLOWED_FILE_TYPES.some((server) => covers(server, pattern)));
  if (outside.length > 0) {
    throw validationError('allowedTypes', `not allowed by this server: ${outside.join(', ')}`);
  }
  return JSON.stringify(normalized);
}

function checkFileSize(size: number | null | undefined, config: Config) {
  if (size !== undefined && size !== null && size > config.MAX_FILE_SIZE) {
    throw validationError('maxFileSize', `must be at most MAX_FILE_SIZE (${config.MAX_FILE_SIZE})`);
  }
  return size;
}

function expiry(body: { expiresIn?: number; expiresAt?: string }, now: number): string | undefined {
  if (body.expiresIn !== undefined) return isoNow(now + body.expiresIn * 1000);
  if (body.expiresAt === undefined) return undefined;
  const at = Date.parse(body.expiresAt);
  if (at <= now) throw validationError('expiresAt', 'must be in the future');
  if (at > now + MAX_REQUEST_EXPIRY_SECONDS * 1000)
    throw validationError('expiresAt', 'must be at most 365 days ahead');
  return isoNow(at);
}

const passwordHash = async (password: string | null | undefined) =>
  password === undefined ? undefined : password === null ? null : passwordText(await hashPassword(password));

/**
 * What a request may be made with beyond its REST body: `exactBytes`, the exact size of every file
 * it takes (MCP's create_upload_url; see limits.ts, checkExactSize).
 */
export type RequestInternals = { exactBytes?: number };

/**
 * Makes a file request. `policy`: the account's bounds (src/policy/), checked before anything is
 * written; a request made without an expiry stays open the default 7 days, or less when the
 * policy bounds it.
 */
export async function createRequest(
  db: D1Database,
  config: Config,
  policy: Policy,
  accountId: string,
  body: RequestCreate,
  internals: RequestInternals = {},
  now = Date.now(),
): Promise<RequestRow> {
  // Malformed values (400) first, then the policy (422), then the password's slow hash.
  const expiresAt = expiry(body, now);
  const maxFileSize = checkFileSize(body.maxFileSize, config) ?? null;
  const allowedTypes = checkTypes(body.allowedTypes, config) ?? null;
  checkRequest(policy, body, { now });
  if (body.e2e) checkE2e(policy, 'e2e');
  const row: RequestRow = {
    id: randomBase64Url(16),
    account_id: accountId,
    token: randomBase64Url(24),
    label: body.label ?? null,
    message: body.message ?? null,
    max_files: body.maxFiles ?? DEFAULT_REQUEST_FILES,
    max_file_size: maxFileSize,
    max_bytes: body.maxBytes ?? null,
    allowed_types: allowedTypes,
    is_public: body.isPublic ? 1 : 0,
    password_hash: (await passwordHash(body.password)) ?? null,
    file_count: 0,
    bytes: 0,
    created_at: isoNow(now),
    updated_at: isoNow(now),
    expires_at: expiresAt ?? isoNow(now + requestExpirySeconds(policy, DEFAULT_REQUEST_EXPIRY_SECONDS) * 1000),
    closed_at: null,
    exact_bytes: internals.exactBytes ?? null,
    e2e: body.e2e ? 1 : 0,
  };
  await insertRequest(db, row);
  return row;
}

export async function getRequest(db: D1Database, id: string, accountId: string): Promise<RequestRow> {
  if (!REQUEST_ID_PATTERN.test(id)) throw requestNotFound();
  const row = await findOwnedRequest(db, id, accountId);
  if (!row) throw requestNotFound();
  return row;
}

export function listRequests(db: D1Database, accountId: string, page: { page: number; limit: number }) {
  return listOwnedRequests(db, accountId, { limit: page.limit, offset: (page.page - 1) * page.limit });
}

/** Changes a file request: only the fields sent, each judged against the account's policy first. */
export async function updateRequest(
  db: D1Database,
  config: Config,
  policy: Policy,
  id: string,
  accountId: string,
  body: RequestUpdate,
  now = Date.now(),
): Promise<RequestRow> {
  if (!REQUEST_ID_PATTERN.test(id)) throw requestNotFound();
  const expiresAt = expiry(body, now);
  const maxFileSize = checkFileSize(body.maxFileSize, config);
  const allowedTypes = checkTypes(body.allowedTypes, config);
  checkRequest(policy, body, { change: true, now });
  if (typeof maxFileSize === 'number') {
    // An upload URL with an exact size (never changed) would take no file below it: refused, not kept.
    const exact = (await getRequest(db, id, accountId)).exact_bytes;
    if (exact !== null && maxFileSize < exact) {
      throw validationError(
        'maxFileSize',
        `must be at least ${exact}: this request takes files of exactly ${exact} bytes`,
      );
    }
  }
  const changes: RequestChanges = {
    label: body.label,
    message: body.message,
    max_files: body.maxFiles,
    max_file_size: maxFileSize,
    max_bytes: body.maxBytes,
    allowed_types: allowedTypes,
    is_public: body.isPublic === undefined ? undefined : body.isPublic ? 1 : 0,
    password_hash: await passwordHash(body.password),
    expires_at: expiresAt,
  };
  if (body.closed !== undefined) changes.closed_at = body.closed ? isoNow(now) : null;
  const row = await updateOwnedRequest(db, id, accountId, isoNow(now), changes);
  if (!row) throw requestNotFound();
  return row;
}

export async function closeRequest(db: D1Database, id: string, accountId: string, now = Date.now()) {
  if (!REQUEST_ID_PATTERN.test(id)) throw requestNotFound();
  const row = await closeOwnedRequest(db, id, accountId, isoNow(now));
  if (!row) throw requestNotFound();
  return row;
}

/**
 * The request behind a public URL whatever its status: 404 when unknown, or when its account has
 * no active, unexpired key left (a rotation, which always leaves one, keeps it serving).
 */
export async function requestByToken(db: D1Database, token: string): Promise<RequestWithOwner> {
  if (!REQUEST_TOKEN_PATTERN.test(token)) throw requestNotFound();
  const row = await findRequestRow(db, token, isoNow());
  if (!row?.owner_active) throw requestNotFound();
  return row;
}
