// After rows are deleted: their blobs go, and their bytes return to the owners' quota.
import { type AccountsNamespace, freeFiles } from '../accounts/account-storage-client';
import type { EventSink } from '../events/emit';
import type { LimiterNamespace } from '../limiter/key-limiter-client';
import { log } from '../log';
import { recordBlobDeletions } from '../storage/blob-deletions-repo';
import { deleteBlobs } from '../storage/segments';
import { isoNow } from '../time';

export type RemovalDeps = {
  db: D1Database;
  bucket: R2Bucket;
  limiter: LimiterNamespace;
  accounts: AccountsNamespace;
  events: EventSink;
};
export type RemovedRow = {
  id: string;
  account_id: string;
  r2_key: string;
  size: number;
  expires_at: string | null;
  /** A removed file's tombstone (migration 0016) gave its quota back when its bytes went. */
  moderation_state?: string | null;
};

/** Deletes the blobs of rows already removed, records failures for a retry, frees quota. */
export async function removeBlobsOf(deps: RemovalDeps, rows: RemovedRow[], now = Date.now()): Promise<void> {
  if (rows.length === 0) return;
  await deleteBlobsOrRecord(deps.db, deps.bucket, rows, now);
  await giveBack(
    deps.accounts,
    rows.filter((row) => row.moderation_state !== 'removed'),
  );
}

/** Takes deleted rows off their owners' accounts: one call per account. */
export async function giveBack(accounts: AccountsNamespace, rows: Omit<RemovedRow, 'r2_key'>[]): Promise<void> {
  if (rows.length === 0) return;
  return freeFiles(
    accounts,
    rows.map((row) => ({ accountId: row.account_id, id: row.id, size: row.size, expiresAt: row.expires_at })),
  );
}

/**
 * One R2 call for up to 1,000 keys; if it fails, the keys go to blob_deletions for the sweep. A
 * file stored in segments (a tus final upload) had its segments queued there by its row's
 * deletion: they are deleted now too (src/storage/segments.ts).
 */
export async function deleteBlobsOrRecord(
  db: D1Database,
  bucket: R2Bucket,
  rows: { account_id: string; r2_key: string }[],
  now = Date.now(),
): Promise<void> {
  await deleteBlobs({ db, bucket }, rows, async (failed, error) => {
    log('error', 'blob delete failed, recorded for retry', { count: failed.length, error: String(error) });
    await recordBlobDeletions(db, failed, isoNow(now));
  });
}
