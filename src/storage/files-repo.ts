// D1 access for file records. No HTTP here: callers get plain rows.

export type FileRow = {
  id: string;
  key_id: string;
  filename: string;
  original_name: string;
  size: number;
  mime_type: string;
  r2_key: string;
  etag: string;
  share_token: string;
  is_public: number;
  download_count: number;
  uploaded_at: string;
  updated_at: string;
  expires_at: string | null;
};

const COLUMNS =
  'id, key_id, filename, original_name, size, mime_type, r2_key, etag, share_token, is_public, download_count, uploaded_at, updated_at, expires_at';

// An expired row is invisible to every read, even before the sweep deletes it.
/** `?first, ?first+1, …`: numbered parameters for an IN list (D1 allows 100 per statement). */
export const placeholders = (count: number, first = 1) =>
  Array.from({ length: count }, (_, index) => `?${index + first}`).join(', ');

const live = (param: string) => `(expires_at IS NULL OR expires_at > ${param})`;
// A share link serves only while its owner's key is active: revoking a key stops its links at once.
const SHARED = `is_public = 1 AND key_id IN (SELECT id FROM api_keys WHERE status = 'active')`;

/** Inserts rows in one batch: all or none. */
export async function insertFiles(db: D1Database, rows: FileRow[]): Promise<void> {
  const statements = rows.map((row) => insertStatement(db, row));
  if (statements.length === 1 && statements[0]) await statements[0].run();
  else await db.batch(statements);
}

function insertStatement(db: D1Database, row: FileRow): D1PreparedStatement {
  return db
    .prepare(`INSERT INTO files (${COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)`)
    .bind(
      row.id,
      row.key_id,
      row.filename,
      row.original_name,
      row.size,
      row.mime_type,
      row.r2_key,
      row.etag,
      row.share_token,
      row.is_public,
      row.download_count,
      row.uploaded_at,
      row.updated_at,
      row.expires_at,
    );
}

export function findOwnedFile(db: D1Database, id: string, keyId: string, now: string) {
  return db
    .prepare(`SELECT ${COLUMNS} FROM files WHERE id = ?1 AND key_id = ?2 AND ${live('?3')}`)
    .bind(id, keyId, now)
    .first<FileRow>();
}

/** Counts one download and returns the row as it is after the increment, in one statement. */
export function countOwnedDownload(db: D1Database, id: string, keyId: string, now: string) {
  return db
    .prepare(
      `UPDATE files SET download_count = download_count + 1 WHERE id = ?1 AND key_id = ?2 AND ${live('?3')} RETURNING ${COLUMNS}`,
    )
    .bind(id, keyId, now)
    .first<FileRow>();
}

export function findSharedFile(db: D1Database, token: string, now: string) {
  return db
    .prepare(`SELECT ${COLUMNS} FROM files WHERE share_token = ?1 AND ${SHARED} AND ${live('?2')}`)
    .bind(token, now)
    .first<FileRow>();
}

export function countSharedDownload(db: D1Database, token: string, now: string) {
  return db
    .prepare(
      `UPDATE files SET download_count = download_count + 1 WHERE share_token = ?1 AND ${SHARED} AND ${live('?2')} RETURNING ${COLUMNS}`,
    )
    .bind(token, now)
    .first<FileRow>();
}

export async function incrementDownloadCount(db: D1Database, id: string): Promise<void> {
  await db.prepare('UPDATE files SET download_count = download_count + 1 WHERE id = ?1').bind(id).run();
}

export type FilePage = { rows: FileRow[]; total: number };

/**
 * Newest first, in one statement. The total is read, not counted: the key's file count (kept by
 * triggers, migration 0004) less its expired rows the sweep has not removed yet. The page's row
 * ids come from the listing index alone (it holds expires_at), so deep pages skip index entries,
 * not rows; the outer join keeps one row (the total) even past the last page.
 */
export async function listOwnedFiles(
  db: D1Database,
  keyId: string,
  now: string,
  page: number,
  limit: number,
): Promise<FilePage> {
  const { results } = await db
    .prepare(
      `SELECT t.total, f.* FROM (
         SELECT COALESCE((SELECT files FROM key_stats WHERE key_id = ?1), 0)
              - (SELECT COUNT(*) FROM files WHERE key_id = ?1 AND expires_at IS NOT NULL AND expires_at <= ?2) AS total
       ) t LEFT JOIN (
         SELECT ${COLUMNS} FROM files WHERE rowid IN (
           SELECT rowid FROM files WHERE key_id = ?1 AND ${live('?2')}
           ORDER BY uploaded_at DESC, id DESC LIMIT ?3 OFFSET ?4
         )
       ) f ON 1
       ORDER BY f.uploaded_at DESC, f.id DESC`,
    )
    .bind(keyId, now, limit, (page - 1) * limit)
    .all<Omit<FileRow, 'id'> & { id: string | null; total: number }>();
  const total = Math.max(0, results[0]?.total ?? 0);
  const rows = results.flatMap(({ total: _total, ...row }) => (row.id === null ? [] : [row as FileRow]));
  return { rows, total };
}

/** Removes the caller's live row and returns it, so the blob can be deleted after. */
export function deleteOwnedFile(db: D1Database, id: string, keyId: string, now: string) {
  return db
    .prepare(`DELETE FROM files WHERE id = ?1 AND key_id = ?2 AND ${live('?3')} RETURNING ${COLUMNS}`)
    .bind(id, keyId, now)
    .first<FileRow>();
}

/** Removes the caller's live rows among ids in one statement; returns the rows deleted. */
export async function deleteOwnedFiles(db: D1Database, ids: string[], keyId: string, now: string) {
  if (ids.length === 0) return [];
  const { results } = await db
    .prepare(
      `DELETE FROM files WHERE key_id = ?1 AND ${live('?2')} AND id IN (${placeholders(ids.length, 3)}) RETURNING ${COLUMNS}`,
    )
    .bind(keyId, now, ...ids)
    .all<FileRow>();
  return results;
}
