// D1 access for accounts: the owners of files, whose credentials are API keys.

export type AccountRow = {
  id: string;
  name: string;
  storage_quota_bytes: number | null;
  max_files: number | null;
  /** The account's policy overrides (JSON object of the bounds overridden, src/policy/), or null: none. */
  policy: string | null;
  created_at: string;
  updated_at: string;
  /** Suspended by the operator (migration 0016): when, and the statement; both null when not. */
  suspended_at: string | null;
  suspension_statement: string | null;
};

/**
 * An account's limits as a create or change gives them; absent fields stay. `policy`: a JSON merge
 * patch (RFC 7396) of its policy overrides: a null member removes that override.
 */
export type AccountLimits = { storageQuotaBytes?: number | null; maxFiles?: number | null; policy?: string };

const COLUMNS =
  'id, name, storage_quota_bytes, max_files, policy, created_at, updated_at, suspended_at, suspension_statement';

// The overrides after a merge patch; an object left empty is stored as NULL (no override at all).
const PATCHED_POLICY = (patch: string) => `NULLIF(json_patch(COALESCE(policy, '{}'), ${patch}), '{}')`;

/** The statement that makes an account (batched with its first key, whose id it takes). */
export function insertAccountStatement(
  db: D1Database,
  account: { id: string; name: string },
  limits: AccountLimits,
  now: string,
) {
  const values = [account.id, account.name, limits.storageQuotaBytes ?? null, limits.maxFiles ?? null, now];
  // The policy column only when overrides are given: a key made without them works on a database
  // from before migration 0014 too (the migration tests make keys on older schemas).
  if (limits.policy === undefined) {
    return db
      .prepare(
        `INSERT INTO accounts (id, name, storage_quota_bytes, max_files, created_at, updated_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?5)`,
      )
      .bind(...values);
  }
  return db
    .prepare(
      `INSERT INTO accounts (id, name, storage_quota_bytes, max_files, policy, created_at, updated_at)
       VALUES (?1, ?2, ?3, ?4, NULLIF(json_patch('{}', ?6), '{}'), ?5, ?5)`,
    )
    .bind(...values, limits.policy);
}

export function findAccount(db: D1Database, id: string) {
  return db.prepare(`SELECT ${COLUMNS} FROM accounts WHERE id = ?1`).bind(id).first<AccountRow>();
}

export async function listAccounts(db: D1Database): Promise<AccountRow[]> {
  const { results } = await db.prepare(`SELECT ${COLUMNS} FROM accounts ORDER BY created_at, id`).all<AccountRow>();
  return results;
}

/**
 * Sets or clears (null) an account's limits, and patches its policy overrides; fields left
 * undefined keep their value. One statement: two changes of different overrides never undo each other.
 */
export function updateAccountLimits(db: D1Database, id: string, limits: AccountLimits, now: string) {
  const given = (field: number | null | undefined) => (field === undefined ? 0 : 1);
  return db
    .prepare(
      `UPDATE accounts SET
         storage_quota_bytes = CASE WHEN ?2 THEN ?3 ELSE storage_quota_bytes END,
         max_files = CASE WHEN ?4 THEN ?5 ELSE max_files END,
         policy = CASE WHEN ?7 IS NULL THEN policy ELSE ${PATCHED_POLICY('?7')} END,
         updated_at = ?6
       WHERE id = ?1 RETURNING ${COLUMNS}`,
    )
    .bind(
      id,
      given(limits.storageQuotaBytes),
      limits.storageQuotaBytes ?? null,
      given(limits.maxFiles),
      limits.maxFiles ?? null,
      now,
      limits.policy ?? null,
    )
    .first<AccountRow>();
}
