// Files stored before digests existed (and tus final uploads whose digest was not computed
// right after creation) get theirs from the scheduled sweep: a bounded number per
// run, each streamed once from R2 through the runtime's SHA-256 (memory: one chunk). Bounded so
// a run stays inside a cron invocation's CPU and subrequest limits; the next run goes on from
// where this one stopped, and starts over once it reaches the newest.
import { log } from '../log';
import { filesWithoutDigest, setDigest } from '../storage/digests-repo';
import { digestBlob } from '../storage/segments';
import { clearSweepState, readSweepState, writeSweepState } from '../storage/sweep-repo';

/** Per run: at most this many files, and (after the first) at most this many bytes. */
export const BACKFILL_LIMITS = { files: 20, bytes: 512 * 1024 * 1024 };

export type BackfillReport = { hashed: number; missing: number };

const CURSOR = 'digest_after';

export async function backfillDigests(
  deps: { db: D1Database; bucket: R2Bucket },
  limits = BACKFILL_LIMITS,
): Promise<BackfillReport> {
  const saved = (await readSweepState(deps.db, [CURSOR])).get(CURSOR);
  const after = saved ? (JSON.parse(saved) as { uploadedAt: string; id: string }) : undefined;
  const files = await filesWithoutDigest(deps.db, after, limits.files);
  let bytes = 0;
  let hashed = 0;
  let missing = 0;
  let last: { uploadedAt: string; id: string } | undefined;
  for (const file of files) {
    // The first file always goes, however large, so one big file can never stall the backfill.
    if (last && bytes + file.size > limits.bytes) break;
    last = { uploadedAt: file.uploaded_at, id: file.id };
    bytes += file.size;
    // One object, or (a tus final upload, whose digest its request computes just after creation)
    // its segments in order.
    const sha256 = await digestBlob(deps, file);
    if (sha256 === null) {
      // No blob: the sweep's drift step deals with the row.
      missing++;
      continue;
    }
    if (await setDigest(deps.db, file.id, file.etag, sha256)) hashed++;
  }
  const reachedEnd = files.length < limits.files && last?.id === files.at(-1)?.id;
  await (last && !reachedEnd
    ? writeSweepState(deps.db, { [CURSOR]: JSON.stringify(last) })
    : clearSweepState(deps.db, [CURSOR]));
  if (hashed > 0 || missing > 0) log('info', 'digest backfill', { hashed, missing });
  return { hashed, missing };
}
