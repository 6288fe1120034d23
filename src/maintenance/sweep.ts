// The scheduled sweep: expired files, blobs whose delete failed, and drift between R2 and D1.
// Every step is bounded, so one run stays within a Worker's subrequest limits; running it
// again only continues where the last run stopped.
import type { AccountsNamespace } from '../accounts/account-storage-client';
import { type EventSink, emitEvents } from '../events/emit';
import { fileEventData } from '../files/records';
import { deleteBlobsOrRecord, giveBack } from '../files/removal';
import { log } from '../log';
import { countBlobDeletionAttempt, forgetBlobDeletions, pendingBlobDeletions } from '../storage/blob-deletions-repo';
import { referencedSegments } from '../storage/segments-repo';
import {
  clearSweepState,
  deleteExpiredFiles,
  deleteFilesById,
  filesInKeyRange,
  readSweepState,
  writeSweepState,
} from '../storage/sweep-repo';
import { isoNow } from '../time';
import { MAX_UPLOAD_LIFETIME_MS, type UploadNamespace, uploadObject } from '../tus/tus-upload-client';
import { backfillDigests } from './digest-backfill';

export type SweepDeps = {
  db: D1Database;
  bucket: R2Bucket;
  /** Accounts' storage objects: rows removed here are given back to their accounts. */
  accounts: AccountsNamespace;
  /** tus uploads' objects: asked whether a blob without a row is an upload finishing right now. */
  uploads: UploadNamespace;
  /** Blobs without a row younger than this may belong to an upload still running (config.orphanGraceMs). */
  graceMs: number;
  now?: number;
  /** Wall-clock budget for the expiry step (ms); tests shrink it. */
  budgetMs?: number;
  /** Where file.expired events go (one per file the sweep deletes); none when absent. */
  events?: EventSink;
};

export type SweepReport = {
  expired: number;
  /** True when expired files were left for the next run (the budget ran out). */
  expiredLeft: boolean;
  retriedBlobDeletes: number;
  orphanBlobs: number;
  rowsWithoutBlob: number;
  /** Objects under uploads/ (tus tails) older than any upload can live, whose upload forgot them. */
  strayUploadObjects: number;
  /** Objects under segments/ (tus partial uploads) older than any upload can live that no file's segment names. */
  straySegments: number;
  /** Files stored before digests or CRC-32s that got what they lacked in this run (see digest-backfill.ts). */
  digestsBackfilled: number;
};

// A batch deletes up to 500 rows (one D1 statement) and their blobs (one R2 call, at most 1,000
// keys); batches repeat until no expired file is left or the budget is spent. Two subrequests
// a batch: within 20 s a run clears tens of thousands of files, far more than keys can upload
// in the 10 minutes between runs at their rate limits (see docs/limits.md).
const FILES_PREFIX = 'files/';

export const SWEEP_LIMITS = { expiredBatch: 500, budgetMs: 20_000, maxBatches: 400, retryBatch: 100, listPage: 500 };

export async function sweep(deps: SweepDeps): Promise<SweepReport> {
  const now = deps.now ?? Date.now();
  // Each step stands alone: one failing (it is logged) does not stop the others.
  const expiry = await step('expired', () => sweepExpired(deps, now), { expired: 0, expiredLeft: true });
  const retriedBlobDeletes = await step('blob deletes', () => retryBlobDeletes(deps), 0);
  const drift = await step('drift', () => reconcileStorage(deps, now), { orphanBlobs: 0, rowsWithoutBlob: 0 });
  const strayUploadObjects = await step('upload objects', () => sweepUploadObjects(deps, now), 0);
  const straySegments = await step('segment objects', () => sweepSegmentObjects(deps, now), 0);
  const backfill = await step('digest backfill', () => backfillDigests(deps), { hashed: 0, missing: 0 });
  return {
    ...expiry,
    retriedBlobDeletes,
    ...drift,
    strayUploadObjects,
    straySegments,
    digestsBackfilled: backfill.hashed,
  };
}

async function step<T>(name: string, work: () => Promise<T>, fallback: T): Promise<T> {
  try {
    return await work();
  } catch (error) {
    log('error', `sweep step failed: ${name}`, { error: String(error) });
    return fallback;
  }
}

/**
 * Deletes expired rows batch by batch, oldest expiry first (so no key's backlog holds up
 * another's), then their blobs. Their bytes already left the owners' accounts when they
 * expired (the key's object tracks expiry), so nothing is given back here.
 */
async function sweepExpired(deps: SweepDeps, now: number): Promise<{ expired: number; expiredLeft: boolean }> {
  const started = Date.now();
  const budget = deps.budgetMs ?? SWEEP_LIMITS.budgetMs;
  let expired = 0;
  for (let batch = 0; batch < SWEEP_LIMITS.maxBatches; batch++) {
    if (Date.now() - started > budget) return { expired, expiredLeft: true };
    const results = await deleteExpiredFiles(deps.db, isoNow(now), SWEEP_LIMITS.expiredBatch);
    if (results.length > 0) await deleteBlobsOrRecord(deps.db, deps.bucket, results, now);
    // RETURNING names each row the statement deleted: one event per file, whichever run got it.
    if (deps.events) {
      emitEvents(
        deps.events,
        results.map((row) => ({ accountId: row.account_id, type: 'file.expired', data: { file: fileEventData(row) } })),
      );
    }
    expired += results.length;
    if (results.length < SWEEP_LIMITS.expiredBatch) return { expired, expiredLeft: false };
  }
  return { expired, expiredLeft: true };
}

async function retryBlobDeletes(deps: SweepDeps): Promise<number> {
  const keys = await pendingBlobDeletions(deps.db, SWEEP_LIMITS.retryBatch);
  if (keys.length === 0) return 0;
  try {
    await deps.bucket.delete(keys);
  } catch (error) {
    log('error', 'blob delete retry failed', { count: keys.length, error: String(error) });
    await countBlobDeletionAttempt(deps.db, keys);
    return 0;
  }
  await forgetBlobDeletions(deps.db, keys);
  return keys.length;
}

/**
 * A tus upload's object is written at files/<accountId>/<fileId> when its last byte arrives, its row
 * a moment later; R2 dates a multipart object by when its upload began (possibly days ago). So a
 * blob without a row whose upload (named by the file id) is still active is not an orphan.
 * Parts of unfinished uploads are not objects at all, and tails live under uploads/: the
 * listing of files/ never sees them.
 */
async function notFinishingUploads(deps: SweepDeps, objects: R2Object[]): Promise<R2Object[]> {
  const active = await Promise.all(
    objects.map(async (object) => {
      const [, accountId = '', fileId = ''] = object.key.split('/');
      const found = await uploadObject(deps.uploads, fileId).view({ accountId });
      return found.status === 'active';
    }),
  );
  return objects.filter((_, i) => !active[i]);
}

// No tus upload lives longer than MAX_UPLOAD_LIFETIME_MS; its object deletes its tails when it
// ends. What is still there a day later was forgotten (its cleanup failed for good).
const STRAY_AFTER_MS = MAX_UPLOAD_LIFETIME_MS + 24 * 60 * 60 * 1000;

/**
 * One listing page of `prefix` per run (its position under `cursor` in sweep_state): deletes the
 * objects older than any upload can live that `stray` picks among them.
 */
async function sweepStrayObjects(
  deps: SweepDeps,
  now: number,
  place: { prefix: string; cursor: string },
  stray: (keys: string[]) => Promise<string[]>,
): Promise<number> {
  const saved = await readSweepState(deps.db, [place.cursor]);
  const page = await deps.bucket.list({
    prefix: place.prefix,
    limit: SWEEP_LIMITS.listPage,
    cursor: saved.get(place.cursor),
  });
  const old = page.objects.filter((object) => object.uploaded.getTime() < now - STRAY_AFTER_MS);
  const keys = await stray(old.map((object) => object.key));
  if (keys.length > 0) await deps.bucket.delete(keys);
  await (page.truncated
    ? writeSweepState(deps.db, { [place.cursor]: page.cursor })
    : clearSweepState(deps.db, [place.cursor]));
  return keys.length;
}

/** uploads/: tus tails older than any upload were forgotten by a failed cleanup. */
const sweepUploadObjects = (deps: SweepDeps, now: number) =>
  sweepStrayObjects(deps, now, { prefix: 'uploads/', cursor: 'uploads_cursor' }, async (keys) => keys);

/**
 * segments/: a partial upload's object older than any upload can live is either a file's
 * segment (file_segments names it: kept) or one its upload failed for good to delete (no partial
 * lives that long unclaimed): deleted.
 */
const sweepSegmentObjects = (deps: SweepDeps, now: number) =>
  sweepStrayObjects(deps, now, { prefix: 'segments/', cursor: 'segments_cursor' }, async (keys) => {
    const stray: string[] = [];
    for (let start = 0; start < keys.length; start += 100) {
      const batch = keys.slice(start, start + 100);
      const kept = await referencedSegments(deps.db, batch);
      stray.push(...batch.filter((key) => !kept.has(key)));
    }
    return stray;
  });

/**
 * Walks the bucket one listing page per run and compares it with the rows for the same key
 * range: blobs with no row are deleted once older than the grace (no upload can still be
 * running for them: see config.orphanGraceMs); rows whose blob is gone (as old) are deleted and
 * their bytes given back. The position is kept in sweep_state.
 */
async function reconcileStorage(
  deps: SweepDeps,
  now: number,
): Promise<{ orphanBlobs: number; rowsWithoutBlob: number }> {
  const saved = await readSweepState(deps.db, ['r2_cursor', 'r2_after']);
  // Only rows whose blob lives under files/: a tus final upload's row (r2_key concat/…) has its
  // bytes in segments/ objects, which belong to it by file_segments, not by key.
  const after = saved.get('r2_after') ?? FILES_PREFIX;
  const page = await deps.bucket.list({
    prefix: FILES_PREFIX,
    limit: SWEEP_LIMITS.listPage,
    cursor: saved.get('r2_cursor'),
  });
  const last = page.objects.at(-1)?.key;
  const upTo = page.truncated && last ? last : `${FILES_PREFIX}\uffff`;

  const rows = await filesInKeyRange(deps.db, after, upTo, SWEEP_LIMITS.listPage * 2);
  // When the range holds more rows than were read, a blob past the last row read may still
  // have its row: such blobs are judged on a later pass, never taken for orphans.
  const judgedUpTo = rows.length === SWEEP_LIMITS.listPage * 2 ? (rows.at(-1)?.r2_key ?? upTo) : upTo;

  const cutoff = now - deps.graceMs;
  const rowKeys = new Set(rows.map((row) => row.r2_key));
  const blobKeys = new Set(page.objects.map((object) => object.key));
  const candidates = page.objects.filter(
    (object) => object.key <= judgedUpTo && !rowKeys.has(object.key) && object.uploaded.getTime() < cutoff,
  );
  const orphans = await notFinishingUploads(deps, candidates);
  const missing = rows.filter((row) => !blobKeys.has(row.r2_key) && Date.parse(row.uploaded_at) < cutoff);

  if (orphans.length > 0) await deps.bucket.delete(orphans.map((object) => object.key));
  if (missing.length > 0) {
    const gone = await deleteFilesById(
      deps.db,
      missing.map((row) => row.id),
    );
    await giveBack(deps.accounts, gone);
  }

  await (page.truncated && last
    ? writeSweepState(deps.db, { r2_cursor: page.cursor, r2_after: last })
    : clearSweepState(deps.db, ['r2_cursor', 'r2_after']));
  return { orphanBlobs: orphans.length, rowsWithoutBlob: missing.length };
}
