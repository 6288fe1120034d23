// D1 access for accounts' age identities (migration 0017, docs/e2e.md): the public recipient and
// the optional passphrase backup (an armored age file). The identity itself is never here.

export type IdentityRow = {
  account_id: string;
  recipient: string;
  backup: string | null;
  created_at: string;
  updated_at: string;
};

const COLUMNS = 'account_id, recipient, backup, created_at, updated_at';

export function findIdentity(db: D1Database, accountId: string) {
  return db.prepare(`SELECT ${COLUMNS} FROM e2e_identities WHERE account_id = ?1`).bind(accountId).first<IdentityRow>();
}

/**
 * Keeps the account's identity: a first one, or a change that keeps the recipient (a new backup;
 * `backup` undefined keeps the stored one, null removes it), or, with `replace`, another
 * recipient (whose old backup goes: it holds the old identity). Null when the account has another
 * recipient and `replace` is not set: the check and the write are one statement, so two devices
 * racing cannot both replace it unasked. `created`: this call made the account's first identity
 * (read in the same transaction, not guessed from the times, which two calls in one millisecond share).
 */
export async function putIdentity(
  db: D1Database,
  accountId: string,
  identity: { recipient: string; backup: string | null | undefined; replace: boolean },
  now: string,
): Promise<{ row: IdentityRow; created: boolean } | null> {
  const [before, after] = await db.batch<{ found: number } | IdentityRow>([
    db.prepare('SELECT 1 AS found FROM e2e_identities WHERE account_id = ?1').bind(accountId),
    db
      .prepare(
        `INSERT INTO e2e_identities (${COLUMNS}) VALUES (?1, ?2, ?3, ?5, ?5)
         ON CONFLICT (account_id) DO UPDATE SET
           recipient = excluded.recipient,
           backup = CASE WHEN ?4 = 1 AND e2e_identities.recipient = excluded.recipient THEN backup ELSE excluded.backup END,
           updated_at = excluded.updated_at
         WHERE e2e_identities.recipient = excluded.recipient OR ?6 = 1
         RETURNING ${COLUMNS}`,
      )
      .bind(
        accountId,
        identity.recipient,
        identity.backup ?? null,
        identity.backup === undefined ? 1 : 0,
        now,
        identity.replace ? 1 : 0,
      ),
  ]);
  const row = after?.results[0] as IdentityRow | undefined;
  return row ? { row, created: (before?.results.length ?? 0) === 0 } : null;
}
