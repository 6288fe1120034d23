// D1 access for file_segments (migration 0011): the ordered R2 objects of a file stored in
// segments (a tus final upload), and the keys its deletion left in blob_deletions.
import { placeholders } from './files-repo';

/**
 * One R2 object's part of a file: `size` bytes from byte `start` of the object (migration 0017:
 * past an age file's header in its first partial; 0, the whole object, for every other).
 */
export type Segment = { r2_key: string; size: number; start?: number };
export type SegmentRow = Segment & { seq: number; upload_id: string; upload_url: string };

/** The statements that record a file's segments, in order: run in the batch that inserts its row. */
export function segmentInserts(db: D1Database, fileId: string, segments: Omit<SegmentRow, 'seq'>[]) {
  const insert = db.prepare(
    'INSERT INTO file_segments (file_id, seq, r2_key, size, upload_id, upload_url, start) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)',
  );
  return segments.map((segment, seq) =>
    insert.bind(fileId, seq, segment.r2_key, segment.size, segment.upload_id, segment.upload_url, segment.start ?? 0),
  );
}

/** A file's segments in order (none for a file stored as one object, or one already deleted). */
export async function listSegments(db: D1Database, fileId: string): Promise<SegmentRow[]> {
  const { results } = await db
    .prepare(
      'SELECT seq, r2_key, size, start, upload_id, upload_url FROM file_segments WHERE file_id = ?1 ORDER BY seq',
    )
    .bind(fileId)
    .all<SegmentRow>();
  return results;
}

/** Of these keys, those a file's segment names (at most 100 keys a call: D1's bound parameters). */
export async function referencedSegments(db: D1Database, keys: string[]): Promise<Set<string>> {
  if (keys.length === 0) return new Set();
  const { results } = await db
    .prepare(`SELECT r2_key FROM file_segments WHERE r2_key IN (${placeholders(keys.length)})`)
    .bind(...keys)
    .all<{ r2_key: string }>();
  return new Set(results.map((row) => row.r2_key));
}

/** Whether a file's segment is this object: then it is the file's, whatever its upload thinks. */
export async function segmentReferenced(db: D1Database, r2Key: string): Promise<boolean> {
  const row = await db.prepare('SELECT 1 AS found FROM file_segments WHERE r2_key = ?1').bind(r2Key).first();
  return row !== null;
}

/**
 * Segment keys waiting in blob_deletions for these accounts (their files' rows are gone: the
 * trigger of migration 0011 queued them), at most `limit`.
 */
export async function queuedSegmentKeys(db: D1Database, accountIds: string[], limit: number): Promise<string[]> {
  const ranges = accountIds.map((_, i) => `(r2_key > ?${2 * i + 2} AND r2_key < ?${2 * i + 3})`).join(' OR ');
  const bounds = accountIds.flatMap((id) => [`segments/${id}/`, `segments/${id}0`]);
  const { results } = await db
    .prepare(`SELECT r2_key FROM blob_deletions WHERE ${ranges} LIMIT ?1`)
    .bind(limit, ...bounds)
    .all<{ r2_key: string }>();
  return results.map((row) => row.r2_key);
}

/**
 * Takes back a final upload's row without touching its segments' objects (they go back to
 * their partial uploads): the segments first, so the trigger queues nothing. Returns whether
 * the row was there.
 */
export async function abandonSegmentedFile(db: D1Database, fileId: string): Promise<boolean> {
  const [, deleted] = await db.batch([
    db.prepare('DELETE FROM file_segments WHERE file_id = ?1').bind(fileId),
    db.prepare('DELETE FROM files WHERE id = ?1 RETURNING id').bind(fileId),
  ]);
  return (deleted?.results.length ?? 0) > 0;
}

/** Whether `id` is a live file of the account stored in segments (a final upload). */
export async function isSegmentedFileOf(db: D1Database, id: string, accountId: string): Promise<boolean> {
  const row = await db
    .prepare("SELECT 1 AS found FROM files WHERE id = ?1 AND account_id = ?2 AND r2_key LIKE 'concat/%'")
    .bind(id, accountId)
    .first();
  return row !== null;
}
