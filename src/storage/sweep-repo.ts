// D1 access for the scheduled sweep: expired rows, rows by R2 key range, and its saved positions.
import { type FileRow, placeholders } from './files-repo';

/** A deleted file row: enough to delete its blob and take it off its owner's account. */
export type GoneRow = { id: string; account_id: string; r2_key: string; size: number; expires_at: string | null };

const GONE = 'RETURNING id, account_id, r2_key, size, expires_at';
// D1 binds at most 100 parameters a statement.
const MAX_BOUND = 100;

/**
 * Deletes up to `limit` rows expired by `now` (ISO), oldest expiry first, and returns them whole
 * (each is a file.expired event, and only the statement that deleted a row returns it).
 */
export async function deleteExpiredFiles(db: D1Database, now: string, limit: number): Promise<FileRow[]> {
  const { results } = await db
    .prepare(
      `DELETE FROM files WHERE id IN (
         SELECT id FROM files WHERE expires_at IS NOT NULL AND expires_at <= ?1 ORDER BY expires_at LIMIT ?2
       ) RETURNING *`,
    )
    .bind(now, limit)
    .all<FileRow>();
  return results;
}

/**
 * Rows whose R2 key is in (after, upTo], in key order, at most `limit`. A removed file's tombstone
 * (migration 0016) is none of them: it names bytes deleted for good, on purpose (and a blob of it
 * still there, a failed delete, is then an orphan).
 */
export async function filesInKeyRange(db: D1Database, after: string, upTo: string, limit: number) {
  const { results } = await db
    .prepare(
      `SELECT id, account_id, r2_key, size, expires_at, uploaded_at FROM files
       WHERE r2_key > ?1 AND r2_key <= ?2 AND moderation_state IS NOT 'removed' ORDER BY r2_key LIMIT ?3`,
    )
    .bind(after, upTo, limit)
    .all<GoneRow & { uploaded_at: string }>();
  return results;
}

/** Deletes rows by id (one statement per 100 ids, in one batch) and returns them. */
export async function deleteFilesById(db: D1Database, ids: string[]): Promise<GoneRow[]> {
  const statements = [];
  for (let start = 0; start < ids.length; start += MAX_BOUND) {
    const chunk = ids.slice(start, start + MAX_BOUND);
    statements.push(db.prepare(`DELETE FROM files WHERE id IN (${placeholders(chunk.length)}) ${GONE}`).bind(...chunk));
  }
  return (await db.batch<GoneRow>(statements)).flatMap((result) => result.results);
}

/** The sweep's saved positions (listing cursors and the like), by name. */
export async function readSweepState(db: D1Database, names: string[]): Promise<Map<string, string>> {
  const { results } = await db
    .prepare(`SELECT name, value FROM sweep_state WHERE name IN (${placeholders(names.length)})`)
    .bind(...names)
    .all<{ name: string; value: string }>();
  return new Map(results.map((row) => [row.name, row.value]));
}

/** Saves positions by name (several in one batch). */
export async function writeSweepState(db: D1Database, values: Record<string, string>): Promise<void> {
  const save = db.prepare(
    'INSERT INTO sweep_state (name, value) VALUES (?1, ?2) ON CONFLICT (name) DO UPDATE SET value = ?2',
  );
  const statements = Object.entries(values).map(([name, value]) => save.bind(name, value));
  await (statements.length === 1 && statements[0] ? statements[0].run() : db.batch(statements));
}

/** Forgets positions: the next run starts from the beginning. */
export async function clearSweepState(db: D1Database, names: string[]): Promise<void> {
  await db
    .prepare(`DELETE FROM sweep_state WHERE name IN (${placeholders(names.length)})`)
    .bind(...names)
    .run();
}
