// Files stored before digests existed (SHA-256, migration 0008) or before CRC-32s (migration
// 0012), and tus final uploads whose digests were not computed right after creation, get what
// they lack from the scheduled sweep: a bounded number per run, each streamed once from R2
// through the runtime's SHA-256 and the native CRC-32 as needed (memory: one chunk), so a file
// that lacks both is read once for both. Bounded so a run stays inside a cron invocation's CPU
// and subrequest limits; the next run goes on from where this one stopped, and starts over once
// it reaches the newest.
import { log } from '../log';
import { filesWithoutDigest, setDigests } from '../storage/digests-repo';
import { digestBlob } from '../storage/segments';
import { clearSweepState, readSweepState, writeSweepState } from '../storage/sweep-repo';

/** Per run: at most this many files, and (after the first) at most this many bytes. */
export const BACKFILL_LIMITS = { files: 20, bytes: 512 * 1024 * 1024 };

/** hashed: files given what they lacked (a SHA-256, a CRC-32 or both); missing: files without a blob. */
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
    // One object, or (a tus final upload, whose digests its request computes just after creation)
    // its segments in order. Only what the row lacks is computed: the SHA-256 is most of the cost.
    const digests = await digestBlob(deps, file, { sha256: file.sha256 === null, crc32: file.crc32 === null });
    if (digests === null) {
      // No blob: the sweep's drift step deals with the row.
      missing++;
      continue;
    }
    if (await setDigests(deps.db, file.id, file.etag, digests)) hashed++;
  }
  const reachedEnd = files.length < limits.files && last?.id === files.at(-1)?.id;
  await (last && !reachedEnd
    ? writeSweepState(deps.db, { [CURSOR]: JSON.stringify(last) })
    : clearSweepState(deps.db, [CURSOR]));
  if (hashed > 0 || missing > 0) log('info', 'digest backfill', { hashed, missing });
  return { hashed, missing };
}
