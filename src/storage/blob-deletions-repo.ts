// D1 access for blob_deletions: R2 keys whose delete failed, retried by the sweep.
import { placeholders } from './files-repo';

/** Records keys whose delete failed (again: one more attempt), in one batch. */
export async function recordBlobDeletions(db: D1Database, rows: { account_id: string; r2_key: string }[], at: string) {
  const insert = db.prepare(
    `INSERT INTO blob_deletions (r2_key, key_id, failed_at) VALUES (?1, ?2, ?3)
     ON CONFLICT (r2_key) DO UPDATE SET attempts = attempts + 1, failed_at = ?3`,
  );
  await db.batch(rows.map((row) => insert.bind(row.r2_key, row.account_id, at)));
}

/** The keys that failed longest ago, at most `limit`. */
export async function pendingBlobDeletions(db: D1Database, limit: number): Promise<string[]> {
  const { results } = await db
    .prepare('SELECT r2_key FROM blob_deletions ORDER BY failed_at LIMIT ?1')
    .bind(limit)
    .all<{ r2_key: string }>();
  return results.map((row) => row.r2_key);
}

/** Another attempt failed. */
export async function countBlobDeletionAttempt(db: D1Database, keys: string[]): Promise<void> {
  await db
    .prepare(`UPDATE blob_deletions SET attempts = attempts + 1 WHERE r2_key IN (${placeholders(keys.length)})`)
    .bind(...keys)
    .run();
}

/** The keys are gone from R2. */
export async function forgetBlobDeletions(db: D1Database, keys: string[]): Promise<void> {
  await db
    .prepare(`DELETE FROM blob_deletions WHERE r2_key IN (${placeholders(keys.length)})`)
    .bind(...keys)
    .run();
}
