// D1 access for accounts: the owners of files, whose credentials are API keys.

export type AccountRow = {
  id: string;
  name: string;
  storage_quota_bytes: number | null;
  max_files: number | null;
  created_at: string;
  updated_at: string;
};

export type AccountLimits = { storageQuotaBytes?: number | null; maxFiles?: number | null };

const COLUMNS = 'id, name, storage_quota_bytes, max_files, created_at, updated_at';

/** The statement that makes an account (batched with its first key, whose id it takes). */
export function insertAccountStatement(
  db: D1Database,
  account: { id: string; name: string },
  limits: AccountLimits,
  now: string,
) {
  return db
    .prepare(
      `INSERT INTO accounts (id, name, storage_quota_bytes, max_files, created_at, updated_at)
       VALUES (?1, ?2, ?3, ?4, ?5, ?5)`,
    )
    .bind(account.id, account.name, limits.storageQuotaBytes ?? null, limits.maxFiles ?? null, now);
}

export function findAccount(db: D1Database, id: string) {
  return db.prepare(`SELECT ${COLUMNS} FROM accounts WHERE id = ?1`).bind(id).first<AccountRow>();
}

export async function listAccounts(db: D1Database): Promise<AccountRow[]> {
  const { results } = await db.prepare(`SELECT ${COLUMNS} FROM accounts ORDER BY created_at, id`).all<AccountRow>();
  return results;
}

/** Sets or clears (null) an account's limits; fields left undefined keep their value. */
export function updateAccountLimits(db: D1Database, id: string, limits: AccountLimits, now: string) {
  const given = (field: number | null | undefined) => (field === undefined ? 0 : 1);
  return db
    .prepare(
      `UPDATE accounts SET
         storage_quota_bytes = CASE WHEN ?2 THEN ?3 ELSE storage_quota_bytes END,
         max_files = CASE WHEN ?4 THEN ?5 ELSE max_files END,
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
    )
    .first<AccountRow>();
}
