// D1 access for file records. No HTTP here: callers get plain rows.

export type FileRow = {
  id: string;
  account_id: string;
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
  /** Lowercase hex SHA-256 of the bytes; null for a file stored before digests (until backfilled). */
  sha256: string | null;
  /** The file request it came through (migration 0010); null for uploads with a key. */
  request_id?: string | null;
  /**
   * CRC-32 of the bytes, unsigned (migration 0012), computed with the SHA-256 while the upload
   * streamed (a ZIP's local headers carry it); null for a file stored before it, until backfilled.
   */
  crc32: number | null;
  /**
   * 'age' for an end-to-end encrypted file (migration 0017): its bytes (and size, SHA-256,
   * CRC-32) are the age payload alone; null (or absent in a row made by hand) for a plain file.
   */
  encryption?: string | null;
  /** An encrypted file's opaque `meta` (base64url, the client's), or null. */
  meta?: string | null;
  /** An encrypted file's owner's age header (ASCII): served before the payload to the owner and the default link. */
  e2e_header?: string | null;
} & FileStanding;

/** A file's scan, as migration 0016 keeps it. */
export type ScanStatus = 'pending' | 'clean' | 'infected' | 'too_large' | 'error' | 'skipped';

/**
 * What stands between a file and its visitors (migration 0016), read with every file row: its
 * moderation (quarantined, or removed: a tombstone), its scan (null: never to be scanned), and
 * when an operator last released it. src/moderation/standing.ts decides from these.
 */
export type FileStanding = {
  moderation_state: 'quarantined' | 'removed' | null;
  moderation_statement: string | null;
  moderated_at: string | null;
  scan_status: ScanStatus | null;
  scan_signature: string | null;
  scanned_at: string | null;
  released_at: string | null;
};

/** The columns an upload writes, in insert order. */
const INSERT_COLUMNS =
  'id, account_id, filename, original_name, size, mime_type, r2_key, etag, share_token, is_public, download_count, uploaded_at, updated_at, expires_at, request_id, sha256, crc32';

/** An encrypted file's columns (migration 0017): NULL for a plain file. */
const E2E_COLUMNS = 'encryption, meta, e2e_header';

/** The standing columns (migration 0016): NULL for a file in good standing that was never scanned. */
export const STANDING_COLUMNS =
  'moderation_state, moderation_statement, moderated_at, scan_status, scan_signature, scanned_at, released_at';

/** Every column of `files`: every read of a file carries its standing, so deciding it costs no read of its own. */
export const FILE_COLUMNS = `${INSERT_COLUMNS}, ${STANDING_COLUMNS}, ${E2E_COLUMNS}`;

// An expired row is invisible to every read, even before the sweep deletes it.
/** `?first, ?first+1, …`: numbered parameters for an IN list (D1 allows 100 per statement). */
export const placeholders = (count: number, first = 1) =>
  Array.from({ length: count }, (_, index) => `?${index + first}`).join(', ');

const live = (param: string) => `(expires_at IS NULL OR expires_at > ${param})`;
/**
 * SQL: the account in `column` has an active, unexpired key. A share link (default or made)
 * serves only while this holds: revoking an account's last key stops its links at once, and
 * rotating a key (a new one, then the old one revoked) keeps them. An expired key counts as
 * revoked here too. `now` is the parameter holding the current time.
 */
export const accountActive = (column: string, now: string) =>
  `${column} IN (SELECT account_id FROM api_keys WHERE status = 'active' AND ${live(now)})`;
const shared = (now: string) => `is_public = 1 AND ${accountActive('account_id', now)}`;

/**
 * SQL: the suspension statement of the account in `column` (NULL: not suspended, migration 0016),
 * read by primary key inside the statement that finds what a visitor asked for: knowing whether
 * the owner is suspended costs no read of its own.
 */
export const accountSuspension = (column: string) => `(SELECT suspension_statement FROM accounts WHERE id = ${column})`;

/** What a visitor's lookup also says of the owner: its suspension statement, or null. */
export type WithSuspension = { account_suspension: string | null };

/** Inserts rows (and any statements that go `alongside` them) in one batch: all or none. */
export async function insertFiles(
  db: D1Database,
  rows: FileRow[],
  alongside: D1PreparedStatement[] = [],
): Promise<void> {
  const statements = [...rows.map((row) => insertStatement(db, row)), ...alongside];
  if (statements.length === 1 && statements[0]) await statements[0].run();
  else await db.batch(statements);
}

// A new file is in good standing; only a file to be scanned names its scan's columns (so a file
// stored without one is written the same on a database before migration 0016, as the migration
// tests store them), and only an encrypted one those of 0017.
function insertStatement(db: D1Database, row: FileRow): D1PreparedStatement {
  const scan = row.scan_status === null ? [] : [row.scan_status, row.scanned_at];
  // Likewise only an encrypted file names the columns of migration 0017.
  const e2e = row.encryption ? [row.encryption, row.meta ?? null, row.e2e_header ?? null] : [];
  const columns = [
    INSERT_COLUMNS,
    ...(scan.length === 0 ? [] : ['scan_status, scanned_at']),
    ...(e2e.length === 0 ? [] : [E2E_COLUMNS]),
  ].join(', ');
  return db
    .prepare(`INSERT INTO files (${columns}) VALUES (${placeholders(17 + scan.length + e2e.length)})`)
    .bind(
      row.id,
      row.account_id,
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
      row.request_id ?? null,
      row.sha256,
      row.crc32,
      ...scan,
      ...e2e,
    );
}

export function findOwnedFile(db: D1Database, id: string, keyId: string, now: string) {
  return db
    .prepare(`SELECT ${FILE_COLUMNS} FROM files WHERE id = ?1 AND account_id = ?2 AND ${live('?3')}`)
    .bind(id, keyId, now)
    .first<FileRow>();
}

/**
 * Counts one download and returns the row as it is after the increment, in one statement. A file
 * under moderation is not counted (null): it is not served (src/moderation/standing.ts says why).
 */
export function countOwnedDownload(db: D1Database, id: string, keyId: string, now: string) {
  return db
    .prepare(
      `UPDATE files SET download_count = download_count + 1
       WHERE id = ?1 AND account_id = ?2 AND ${live('?3')} AND moderation_state IS NULL RETURNING ${FILE_COLUMNS}`,
    )
    .bind(id, keyId, now)
    .first<FileRow>();
}

/** A public file by its default link's token, with its owner's suspension (one statement). */
export function findSharedFile(db: D1Database, token: string, now: string) {
  return db
    .prepare(
      `SELECT ${FILE_COLUMNS}, ${accountSuspension('account_id')} AS account_suspension
       FROM files WHERE share_token = ?1 AND ${shared('?2')} AND ${live('?2')}`,
    )
    .bind(token, now)
    .first<FileRow & WithSuspension>();
}

export function countSharedDownload(db: D1Database, token: string, now: string) {
  return db
    .prepare(
      `UPDATE files SET download_count = download_count + 1 WHERE share_token = ?1 AND ${shared('?2')} AND ${live('?2')} RETURNING ${FILE_COLUMNS}`,
    )
    .bind(token, now)
    .first<FileRow>();
}

/** Adds downloads counted elsewhere (a default link's counter object) to the file's row, if it is still there. */
export async function flushFileDownloads(db: D1Database, id: string, downloads: number): Promise<void> {
  await db.prepare('UPDATE files SET download_count = download_count + ?2 WHERE id = ?1').bind(id, downloads).run();
}

export async function incrementDownloadCount(db: D1Database, id: string): Promise<void> {
  await db.prepare('UPDATE files SET download_count = download_count + 1 WHERE id = ?1').bind(id).run();
}

export type FilePage = { rows: FileRow[]; total: number };

export type ListSort = 'uploadedAt' | 'size' | 'name';
export type ListOrder = 'asc' | 'desc';
export type ListQuery = { page: number; limit: number; sort: ListSort; order: ListOrder; q?: string };

// Each order has its own index (migrations 0004 and 0005): account_id, the column(s), id, expires_at.
const SORT_COLUMN: Record<ListSort, string> = {
  uploadedAt: 'uploaded_at',
  size: 'size',
  name: 'original_name COLLATE NOCASE',
};

const orderBy = (query: Pick<ListQuery, 'sort' | 'order'>, table = '') => {
  const direction = query.order === 'asc' ? 'ASC' : 'DESC';
  return `${table}${SORT_COLUMN[query.sort]} ${direction}, ${table}id ${direction}`;
};

// Case folds ASCII letters only, like the name order: SQLite's lower() knows no other.
const NAME_MATCHES = 'instr(lower(original_name), lower(?5)) > 0';

/**
 * One page of the key's live files in one statement. Without `q` the total is read, not
 * counted: the key's file count (kept by triggers, migration 0004) less its expired rows the
 * sweep has not removed yet; the page's row ids come from the order's index alone (it holds
 * expires_at), so deep pages skip index entries, not rows. With `q` (a substring of the original
 * name) both the page and the total scan the key's entries in the name index: a cost in
 * proportion to the key's file count (at most MAX_FILES_PER_KEY), see docs/limits.md. The outer
 * join keeps one row (the total) even past the last page.
 */
export async function listOwnedFiles(db: D1Database, keyId: string, now: string, query: ListQuery): Promise<FilePage> {
  const statement = db.prepare(listSql(query));
  const offset = (query.page - 1) * query.limit;
  const { results } = await (query.q === undefined
    ? statement.bind(keyId, now, query.limit, offset)
    : statement.bind(keyId, now, query.limit, offset, query.q)
  ).all<Omit<FileRow, 'id'> & { id: string | null; total: number }>();
  const rows = results.flatMap(({ total: _total, ...row }) => (row.id === null ? [] : [row as FileRow]));
  return { rows, total: Math.max(0, results[0]?.total ?? 0) };
}

/** The list statement for a query: ?1 key id, ?2 now, ?3 limit, ?4 offset, ?5 the search text (with q). */
export function listSql(query: Pick<ListQuery, 'sort' | 'order' | 'q'>): string {
  const search = query.q !== undefined;
  const total = search
    ? `SELECT COUNT(*) AS total FROM files WHERE account_id = ?1 AND ${live('?2')} AND ${NAME_MATCHES}`
    : `SELECT COALESCE((SELECT files FROM key_stats WHERE account_id = ?1), 0)
              - (SELECT COUNT(*) FROM files WHERE account_id = ?1 AND expires_at IS NOT NULL AND expires_at <= ?2) AS total`;
  return `SELECT t.total, f.* FROM (${total}) t LEFT JOIN (
       SELECT ${FILE_COLUMNS} FROM files WHERE rowid IN (
         SELECT rowid FROM files WHERE account_id = ?1 AND ${live('?2')}${search ? ` AND ${NAME_MATCHES}` : ''}
         ORDER BY ${orderBy(query)} LIMIT ?3 OFFSET ?4
       )
     ) f ON 1
     ORDER BY ${orderBy(query, 'f.')}`;
}

/** What an owner may change on a file; absent fields stay as they are. */
export type FileChanges = {
  isPublic?: boolean;
  originalName?: string;
  /** A new expiry (ISO 8601), or null for none. */
  expiresAt?: string | null;
};

export type UpdatedFile = { row: FileRow; previousExpiresAt: string | null };

/**
 * Changes the caller's live file and returns it as it is after the change (and the expiry it had
 * before), or null when there is no such file. Without an expiry change that is one statement;
 * with one, a batch (one trip, one transaction) reads the old expiry first, which RETURNING
 * cannot show.
 */
export async function updateOwnedFile(
  db: D1Database,
  id: string,
  keyId: string,
  now: string,
  changes: FileChanges,
): Promise<UpdatedFile | null> {
  const setsExpiry = changes.expiresAt !== undefined;
  const update = db
    .prepare(
      `UPDATE files SET
         is_public = COALESCE(?4, is_public),
         original_name = COALESCE(?5, original_name),
         expires_at = CASE WHEN ?6 = 1 THEN ?7 ELSE expires_at END,
         updated_at = ?3
       WHERE id = ?1 AND account_id = ?2 AND ${live('?3')} RETURNING ${FILE_COLUMNS}`,
    )
    .bind(
      id,
      keyId,
      now,
      changes.isPublic === undefined ? null : changes.isPublic ? 1 : 0,
      changes.originalName ?? null,
      setsExpiry ? 1 : 0,
      changes.expiresAt ?? null,
    );
  if (!setsExpiry) {
    const row = await update.first<FileRow>();
    return row && { row, previousExpiresAt: row.expires_at };
  }
  const [before, after] = await db.batch<{ expires_at: string | null } | FileRow>([
    db.prepare(`SELECT expires_at FROM files WHERE id = ?1 AND account_id = ?2 AND ${live('?3')}`).bind(id, keyId, now),
    update,
  ]);
  const row = after?.results[0] as FileRow | undefined;
  const previous = before?.results[0] as { expires_at: string | null } | undefined;
  return row && previous ? { row, previousExpiresAt: previous.expires_at } : null;
}

/** Removes the caller's live row and returns it, so the blob can be deleted after. */
export function deleteOwnedFile(db: D1Database, id: string, keyId: string, now: string) {
  return db
    .prepare(`DELETE FROM files WHERE id = ?1 AND account_id = ?2 AND ${live('?3')} RETURNING ${FILE_COLUMNS}`)
    .bind(id, keyId, now)
    .first<FileRow>();
}

/** Removes the caller's live rows among ids in one statement; returns the rows deleted. */
export async function deleteOwnedFiles(db: D1Database, ids: string[], keyId: string, now: string) {
  if (ids.length === 0) return [];
  const { results } = await db
    .prepare(
      `DELETE FROM files WHERE account_id = ?1 AND ${live('?2')} AND id IN (${placeholders(ids.length, 3)}) RETURNING ${FILE_COLUMNS}`,
    )
    .bind(keyId, now, ...ids)
    .all<FileRow>();
  return results;
}

/** One page of the live files that came through a request of the account, newest first, with their total. */
export async function listRequestFiles(
  db: D1Database,
  requestId: string,
  keyId: string,
  now: string,
  page: { limit: number; offset: number },
): Promise<FilePage> {
  const where = `request_id = ?1 AND account_id = ?2 AND ${live('?3')}`;
  const [rows, total] = await db.batch<FileRow | { total: number }>([
    db
      .prepare(`SELECT ${FILE_COLUMNS} FROM files WHERE ${where} ORDER BY uploaded_at DESC, id DESC LIMIT ?4 OFFSET ?5`)
      .bind(requestId, keyId, now, page.limit, page.offset),
    db.prepare(`SELECT COUNT(*) AS total FROM files WHERE ${where}`).bind(requestId, keyId, now),
  ]);
  return {
    rows: (rows?.results ?? []) as FileRow[],
    total: (total?.results[0] as { total: number } | undefined)?.total ?? 0,
  };
}
