// D1 access for API keys. Only hashes are stored; the key itself never reaches this module.
// A key belongs to an account (accounts-repo.ts); its storage limits are its account's, so every
// read joins the account and shows them under the key's old column names.
import { type AccountLimits, insertAccountStatement } from './accounts-repo';

export type KeyRow = {
  id: string;
  account_id: string;
  prefix: string;
  name: string;
  status: 'active' | 'revoked';
  /** JSON array of scopes; null = every scope. */
  scopes: string | null;
  rate_limit_requests: number | null;
  rate_limit_window_seconds: number | null;
  /** The account's. */
  storage_quota_bytes: number | null;
  /** The account's. */
  max_files: number | null;
  created_at: string;
  updated_at: string;
  revoked_at: string | null;
  expires_at: string | null;
  last_used_at: string | null;
};

/** A key row's overrides under their API names (null: the configured default). */
export const overridesOf = (
  row: Pick<KeyRow, 'rate_limit_requests' | 'rate_limit_window_seconds' | 'storage_quota_bytes' | 'max_files'>,
) => ({
  rateLimitRequests: row.rate_limit_requests,
  rateLimitWindowSeconds: row.rate_limit_window_seconds,
  storageQuotaBytes: row.storage_quota_bytes,
  maxFiles: row.max_files,
});

export type KeyOverrides = {
  rateLimitRequests?: number | null;
  rateLimitWindowSeconds?: number | null;
  storageQuotaBytes?: number | null;
  maxFiles?: number | null;
};

const COLUMNS = `k.id, k.account_id, k.prefix, k.name, k.status, k.scopes, k.rate_limit_requests,
  k.rate_limit_window_seconds, a.storage_quota_bytes, a.max_files, k.created_at, k.updated_at, k.revoked_at,
  k.expires_at, k.last_used_at`;
const FROM = 'api_keys k JOIN accounts a ON a.id = k.account_id';

/** The account's policy overrides (accounts.policy, JSON; src/policy/), as the reads that take them show them. */
export type WithPolicy = { policy: string | null };

/**
 * A read of one key that also takes its account's policy overrides (`policy`: the column, in
 * the query). A database an earlier migration made has no accounts.policy, and so no overrides:
 * the read goes on without them rather than failing authentication (a deploy migrates first;
 * the migration tests run today's code on older schemas).
 */
async function firstWithPolicy<T>(db: D1Database, query: (policy: string) => string, ...values: unknown[]) {
  try {
    return await db
      .prepare(query('a.policy'))
      .bind(...values)
      .first<T & WithPolicy>();
  } catch (error) {
    if (!String(error).includes('no such column: a.policy')) throw error;
    return db
      .prepare(query('NULL AS policy'))
      .bind(...values)
      .first<T & WithPolicy>();
  }
}

/**
 * The id of the active, unexpired key with this hash: the only D1 read authentication needs,
 * once per isolate (an expired key, like a revoked one, never reaches its Durable Object).
 */
export function findActiveKeyIdByHash(db: D1Database, keyHash: string, now: string) {
  return db
    .prepare(
      `SELECT id FROM api_keys WHERE key_hash = ?1 AND status = 'active' AND (expires_at IS NULL OR expires_at > ?2)`,
    )
    .bind(keyHash, now)
    .first<{ id: string }>();
}

/**
 * What a key's Durable Object checks a presented key against: hash, status, account, scopes,
 * expiry, overrides; and the account's policy overrides, which the request takes along.
 */
export type KeyStateRow = Pick<
  KeyRow,
  | 'status'
  | 'account_id'
  | 'scopes'
  | 'expires_at'
  | 'rate_limit_requests'
  | 'rate_limit_window_seconds'
  | 'storage_quota_bytes'
  | 'max_files'
> & { key_hash: string } & WithPolicy &
  WithAccountSuspension;

/** The key's account's suspension statement (migration 0016), or null: read with the key, never apart. */
export type WithAccountSuspension = { suspension_statement: string | null };

export function findKeyState(db: D1Database, keyId: string) {
  return firstWithPolicy<KeyStateRow>(
    db,
    (policy) => `SELECT k.key_hash, k.status, k.account_id, k.scopes, k.expires_at, k.rate_limit_requests,
         k.rate_limit_window_seconds, a.storage_quota_bytes, a.max_files, ${policy}, a.suspension_statement
       FROM ${FROM} WHERE k.id = ?1`,
    keyId,
  );
}

/**
 * An active key by its hash, with its account's policy overrides and suspension (authentication
 * without the key's object).
 */
export function findActiveKeyByHash(db: D1Database, keyHash: string) {
  return firstWithPolicy<KeyRow & WithAccountSuspension>(
    db,
    (policy) =>
      `SELECT ${COLUMNS}, ${policy}, a.suspension_statement FROM ${FROM} WHERE k.key_hash = ?1 AND k.status = 'active'`,
    keyHash,
  );
}

export function findKey(db: D1Database, id: string) {
  return db.prepare(`SELECT ${COLUMNS} FROM ${FROM} WHERE k.id = ?1`).bind(id).first<KeyRow>();
}

export type NewKey = { id: string; keyHash: string; prefix: string; name: string };
export type KeyOptions = {
  /** The account the key joins; without it the key founds an account of its own, named after it. */
  accountId?: string;
  /** The name of the account the key founds (default: the key's name). */
  accountName?: string;
  /** null or absent: every scope. */
  scopes?: string | null;
  expiresAt?: string | null;
};

/**
 * Inserts a key (and, for a key without an account, its new account, which takes the key's id
 * and its storage overrides). Returns the key as reads show it.
 */
export async function insertKey(
  db: D1Database,
  key: NewKey,
  overrides: KeyOverrides & Pick<AccountLimits, 'policy'>,
  now: string,
  options: KeyOptions = {},
): Promise<KeyRow> {
  const accountId = options.accountId ?? key.id;
  const statements = options.accountId
    ? []
    : [insertAccountStatement(db, { id: key.id, name: options.accountName ?? key.name }, overrides, now)];
  statements.push(
    db
      .prepare(
        `INSERT INTO api_keys (id, account_id, key_hash, prefix, name, status, scopes, expires_at,
           rate_limit_requests, rate_limit_window_seconds, created_at, updated_at)
         VALUES (?1, ?2, ?3, ?4, ?5, 'active', ?6, ?7, ?8, ?9, ?10, ?10)`,
      )
      .bind(
        key.id,
        accountId,
        key.keyHash,
        key.prefix,
        key.name,
        options.scopes ?? null,
        options.expiresAt ?? null,
        overrides.rateLimitRequests ?? null,
        overrides.rateLimitWindowSeconds ?? null,
        now,
      ),
    db.prepare(`SELECT ${COLUMNS} FROM ${FROM} WHERE k.id = ?1`).bind(key.id),
  );
  const results = await db.batch<KeyRow>(statements);
  const row = results.at(-1)?.results[0];
  if (!row) throw new Error('insert into api_keys returned no row');
  return row;
}

export async function listKeys(db: D1Database): Promise<KeyRow[]> {
  const { results } = await db.prepare(`SELECT ${COLUMNS} FROM ${FROM} ORDER BY k.created_at, k.id`).all<KeyRow>();
  return results;
}

export async function listAccountKeys(db: D1Database, accountId: string): Promise<KeyRow[]> {
  const { results } = await db
    .prepare(`SELECT ${COLUMNS} FROM ${FROM} WHERE k.account_id = ?1 ORDER BY k.created_at, k.id`)
    .bind(accountId)
    .all<KeyRow>();
  return results;
}

/** An UPDATE of one key, then the key as reads show it (null when no such key). */
async function changeKey(db: D1Database, id: string, updates: D1PreparedStatement[]): Promise<KeyRow | null> {
  const results = await db.batch<KeyRow>([
    ...updates,
    db.prepare(`SELECT ${COLUMNS} FROM ${FROM} WHERE k.id = ?1`).bind(id),
  ]);
  return results.at(-1)?.results[0] ?? null;
}

/** Revokes by id; returns the row, or null when no such key exists. Revoking twice is harmless. */
export function revokeKey(db: D1Database, id: string, now: string) {
  return changeKey(db, id, [
    db
      .prepare(
        `UPDATE api_keys SET status = 'revoked', revoked_at = COALESCE(revoked_at, ?2), updated_at = ?2 WHERE id = ?1`,
      )
      .bind(id, now),
  ]);
}

/**
 * Revokes an account's key unless it is the account's last active, unexpired key holding
 * `keys:write` (scopes NULL hold every scope), so the account can always still manage its keys.
 * One statement, so two revocations racing cannot both pass. Returns the row when revoked, 'last-admin' when refused, null when there is no
 * such key in the account.
 */
export async function revokeAccountKey(
  db: D1Database,
  accountId: string,
  id: string,
  now: string,
): Promise<KeyRow | 'last-admin' | null> {
  const admin = (alias: string) =>
    `(${alias}.status = 'active' AND (${alias}.expires_at IS NULL OR ${alias}.expires_at > ?3) AND (${alias}.scopes IS NULL
      OR EXISTS (SELECT 1 FROM json_each(${alias}.scopes) WHERE value = 'keys:write')))`;
  const results = await db.batch<{ id: string } | KeyRow>([
    db
      .prepare(
        `UPDATE api_keys AS t SET status = 'revoked', revoked_at = COALESCE(revoked_at, ?3), updated_at = ?3
         WHERE t.id = ?2 AND t.account_id = ?1 AND (NOT ${admin('t')} OR EXISTS (
           SELECT 1 FROM api_keys k WHERE k.account_id = ?1 AND k.id <> ?2 AND ${admin('k')}
         )) RETURNING id`,
      )
      .bind(accountId, id, now),
    db.prepare(`SELECT ${COLUMNS} FROM ${FROM} WHERE k.id = ?1 AND k.account_id = ?2`).bind(id, accountId),
  ]);
  const row = results[1]?.results[0] as KeyRow | undefined;
  if (!row) return null;
  if ((results[0]?.results.length ?? 0) > 0 || row.status === 'revoked') return row;
  return 'last-admin';
}

/** Renames an account's key; null when the account has no such key. */
export function renameAccountKey(db: D1Database, accountId: string, id: string, name: string, now: string) {
  return changeKey(db, id, [
    db
      .prepare('UPDATE api_keys SET name = ?3, updated_at = ?4 WHERE id = ?2 AND account_id = ?1')
      .bind(accountId, id, name, now),
  ]).then((row) => (row?.account_id === accountId ? row : null));
}

/**
 * Sets or clears (null) a key's overrides; fields left undefined keep their value. The rate
 * limit is the key's; the storage quota and file limit are its account's (shared by its keys).
 */
export function updateKeyOverrides(db: D1Database, id: string, overrides: KeyOverrides, now: string) {
  const given = (field: number | null | undefined) => (field === undefined ? 0 : 1);
  return changeKey(db, id, [
    db
      .prepare(
        `UPDATE api_keys SET
           rate_limit_requests = CASE WHEN ?2 THEN ?3 ELSE rate_limit_requests END,
           rate_limit_window_seconds = CASE WHEN ?4 THEN ?5 ELSE rate_limit_window_seconds END,
           updated_at = ?6
         WHERE id = ?1`,
      )
      .bind(
        id,
        given(overrides.rateLimitRequests),
        overrides.rateLimitRequests ?? null,
        given(overrides.rateLimitWindowSeconds),
        overrides.rateLimitWindowSeconds ?? null,
        now,
      ),
    db
      .prepare(
        `UPDATE accounts SET
           storage_quota_bytes = CASE WHEN ?2 THEN ?3 ELSE storage_quota_bytes END,
           max_files = CASE WHEN ?4 THEN ?5 ELSE max_files END,
           updated_at = ?6
         WHERE id = (SELECT account_id FROM api_keys WHERE id = ?1)`,
      )
      .bind(
        id,
        given(overrides.storageQuotaBytes),
        overrides.storageQuotaBytes ?? null,
        given(overrides.maxFiles),
        overrides.maxFiles ?? null,
        now,
      ),
  ]);
}

/** Notes when a key was last used (from its Durable Object, at most once a minute per key). */
export async function touchLastUsed(db: D1Database, id: string, at: string): Promise<void> {
  await db
    .prepare('UPDATE api_keys SET last_used_at = ?2 WHERE id = ?1 AND (last_used_at IS NULL OR last_used_at < ?2)')
    .bind(id, at)
    .run();
}
