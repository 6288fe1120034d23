// D1 access for API keys. Only hashes are stored; the key itself never reaches this module.

export type KeyRow = {
  id: string;
  prefix: string;
  name: string;
  status: 'active' | 'revoked';
  rate_limit_requests: number | null;
  rate_limit_window_seconds: number | null;
  storage_quota_bytes: number | null;
  max_files: number | null;
  created_at: string;
  updated_at: string;
  revoked_at: string | null;
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

const COLUMNS =
  'id, prefix, name, status, rate_limit_requests, rate_limit_window_seconds, storage_quota_bytes, max_files, created_at, updated_at, revoked_at';

/** The id of the active key with this hash: the only D1 read authentication needs, once per isolate. */
export function findActiveKeyIdByHash(db: D1Database, keyHash: string) {
  return db
    .prepare(`SELECT id FROM api_keys WHERE key_hash = ?1 AND status = 'active'`)
    .bind(keyHash)
    .first<{ id: string }>();
}

/** What a key's Durable Object checks a presented key against: its hash, status and overrides. */
export type KeyStateRow = Pick<
  KeyRow,
  'status' | 'rate_limit_requests' | 'rate_limit_window_seconds' | 'storage_quota_bytes' | 'max_files'
> & { key_hash: string };

export function findKeyState(db: D1Database, keyId: string) {
  return db
    .prepare(
      `SELECT key_hash, status, rate_limit_requests, rate_limit_window_seconds, storage_quota_bytes, max_files
       FROM api_keys WHERE id = ?1`,
    )
    .bind(keyId)
    .first<KeyStateRow>();
}

export function findActiveKeyByHash(db: D1Database, keyHash: string) {
  return db
    .prepare(`SELECT ${COLUMNS} FROM api_keys WHERE key_hash = ?1 AND status = 'active'`)
    .bind(keyHash)
    .first<KeyRow>();
}

export async function insertKey(
  db: D1Database,
  key: { id: string; keyHash: string; prefix: string; name: string },
  overrides: KeyOverrides,
  now: string,
): Promise<KeyRow> {
  const row = await db
    .prepare(
      `INSERT INTO api_keys (id, key_hash, prefix, name, status, rate_limit_requests, rate_limit_window_seconds, storage_quota_bytes, max_files, created_at, updated_at)
       VALUES (?1, ?2, ?3, ?4, 'active', ?5, ?6, ?7, ?8, ?9, ?9) RETURNING ${COLUMNS}`,
    )
    .bind(
      key.id,
      key.keyHash,
      key.prefix,
      key.name,
      overrides.rateLimitRequests ?? null,
      overrides.rateLimitWindowSeconds ?? null,
      overrides.storageQuotaBytes ?? null,
      overrides.maxFiles ?? null,
      now,
    )
    .first<KeyRow>();
  if (!row) throw new Error('insert into api_keys returned no row');
  return row;
}

export async function listKeys(db: D1Database): Promise<KeyRow[]> {
  const { results } = await db.prepare(`SELECT ${COLUMNS} FROM api_keys ORDER BY created_at, id`).all<KeyRow>();
  return results;
}

/** Revokes by id; returns the row, or null when no such key exists. Revoking twice is harmless. */
export function revokeKey(db: D1Database, id: string, now: string) {
  return db
    .prepare(
      `UPDATE api_keys SET status = 'revoked', revoked_at = COALESCE(revoked_at, ?2), updated_at = ?2
       WHERE id = ?1 RETURNING ${COLUMNS}`,
    )
    .bind(id, now)
    .first<KeyRow>();
}

/** Sets or clears (null) a key's overrides; fields left undefined keep their value. */
export function updateKeyOverrides(db: D1Database, id: string, overrides: KeyOverrides, now: string) {
  const value = (field: number | null | undefined) => (field === undefined ? 0 : 1);
  return db
    .prepare(
      `UPDATE api_keys SET
         rate_limit_requests = CASE WHEN ?2 THEN ?3 ELSE rate_limit_requests END,
         rate_limit_window_seconds = CASE WHEN ?4 THEN ?5 ELSE rate_limit_window_seconds END,
         storage_quota_bytes = CASE WHEN ?6 THEN ?7 ELSE storage_quota_bytes END,
         max_files = CASE WHEN ?9 THEN ?10 ELSE max_files END,
         updated_at = ?8
       WHERE id = ?1 RETURNING ${COLUMNS}`,
    )
    .bind(
      id,
      value(overrides.rateLimitRequests),
      overrides.rateLimitRequests ?? null,
      value(overrides.rateLimitWindowSeconds),
      overrides.rateLimitWindowSeconds ?? null,
      value(overrides.storageQuotaBytes),
      overrides.storageQuotaBytes ?? null,
      now,
      value(overrides.maxFiles),
      overrides.maxFiles ?? null,
    )
    .first<KeyRow>();
}
