// D1 access for an account's storage: what its live files add up to, from their rows.

/** A live file that will expire; `expiresAt` in ms since the epoch. */
export type ExpiringFile = { id: string; size: number; expiresAt: number };

/**
 * The account's live files at `now` (ISO): how many, their bytes, and those that will expire.
 * One batch, so both reads see the same rows. A removed file's tombstone (migration 0016) holds
 * no bytes and counts for nothing: its quota was given back when its bytes were deleted.
 */
export async function liveFilesOfAccount(
  db: D1Database,
  accountId: string,
  now: string,
): Promise<{ files: number; bytes: number; expiring: ExpiringFile[] }> {
  const live = "(expires_at IS NULL OR expires_at > ?2) AND moderation_state IS NOT 'removed'";
  const [totals, expiring] = await db.batch([
    db
      .prepare(`SELECT COUNT(*) AS n, COALESCE(SUM(size), 0) AS bytes FROM files WHERE account_id = ?1 AND ${live}`)
      .bind(accountId, now),
    db
      .prepare(
        "SELECT id, size, expires_at FROM files WHERE account_id = ?1 AND expires_at > ?2 AND moderation_state IS NOT 'removed'",
      )
      .bind(accountId, now),
  ]);
  const total = (totals?.results[0] as { n: number; bytes: number } | undefined) ?? { n: 0, bytes: 0 };
  const rows = (expiring?.results ?? []) as { id: string; size: number; expires_at: string }[];
  return {
    files: total.n,
    bytes: total.bytes,
    expiring: rows.map((row) => ({ id: row.id, size: row.size, expiresAt: Date.parse(row.expires_at) })),
  };
}
