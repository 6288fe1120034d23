// After rows are deleted: their blobs go, and their bytes return to the owners' quota.
import { freeBytes, type LimiterNamespace } from '../limiter/client';
import { log } from '../log';
import { isoNow } from '../time';

export type RemovalDeps = { db: D1Database; bucket: R2Bucket; limiter: LimiterNamespace };
export type RemovedRow = { key_id: string; r2_key: string; size: number };

/** Deletes the blobs of rows already removed, records failures for a retry, frees quota. */
export async function removeBlobsOf(deps: RemovalDeps, rows: RemovedRow[], now = Date.now()): Promise<void> {
  if (rows.length === 0) return;
  await deleteBlobsOrRecord(deps.db, deps.bucket, rows, now);
  await giveBack(deps.limiter, rows);
}

/** Frees the bytes of deleted rows in each owner's account: one call per key. */
export async function giveBack(limiter: LimiterNamespace, rows: { key_id: string; size: number }[]): Promise<void> {
  const bytesByKey = new Map<string, number>();
  for (const row of rows) bytesByKey.set(row.key_id, (bytesByKey.get(row.key_id) ?? 0) + row.size);
  await Promise.all([...bytesByKey].map(([keyId, bytes]) => freeBytes(limiter, keyId, bytes)));
}

/** One R2 call for up to 1,000 keys; if it fails, the keys go to blob_deletions for the sweep. */
export async function deleteBlobsOrRecord(
  db: D1Database,
  bucket: R2Bucket,
  rows: { key_id: string; r2_key: string }[],
  now = Date.now(),
): Promise<void> {
  try {
    await bucket.delete(rows.map((row) => row.r2_key));
  } catch (error) {
    log('error', 'blob delete failed, recorded for retry', { count: rows.length, error: String(error) });
    const insert = db.prepare(
      `INSERT INTO blob_deletions (r2_key, key_id, failed_at) VALUES (?1, ?2, ?3)
       ON CONFLICT (r2_key) DO UPDATE SET attempts = attempts + 1, failed_at = ?3`,
    );
    await db.batch(rows.map((row) => insert.bind(row.r2_key, row.key_id, isoNow(now))));
  }
}
