// D1 access for share links an account makes (migrations 0007 and 0013): to one of its files, or
// to one of its collections. No HTTP here: callers get rows.
import type { CollectionRow } from './collections-repo';
import { accountActive, accountSuspension, FILE_COLUMNS, type FileRow } from './files-repo';

export type LinkRow = {
  id: string;
  /** The file it shares; null for a collection's link. */
  file_id: string | null;
  /** The collection it shares (migration 0013); null for a file's link. */
  collection_id: string | null;
  account_id: string;
  token: string;
  label: string | null;
  password_hash: string | null;
  password_salt: string | null;
  password_iterations: number | null;
  max_downloads: number | null;
  download_count: number;
  expires_at: string | null;
  last_downloaded_at: string | null;
  created_at: string;
  updated_at: string;
  revoked_at: string | null;
};

const LINK_COLUMNS =
  'id, file_id, collection_id, account_id, token, label, password_hash, password_salt, password_iterations, max_downloads, download_count, expires_at, last_downloaded_at, created_at, updated_at, revoked_at';

/** The link's columns qualified by `l.`, for statements that join its file. */
const L = LINK_COLUMNS.split(', ')
  .map((column) => `l.${column}`)
  .join(', ');

// A file's link is reachable only while its file is: an expired file's links are dead before the
// sweep removes the file (and, through the trigger of migration 0007, them). A collection's link
// lives while its collection does: deleting the collection deletes its links (migration 0013).
const FILE_LIVE = `(l.collection_id IS NOT NULL OR
  EXISTS (SELECT 1 FROM files f WHERE f.id = l.file_id AND (f.expires_at IS NULL OR f.expires_at > ?2)))`;

/**
 * Inserts a link unless what it shares (its file, or its collection) already has `maxPerTarget`
 * links (counted in the same statement, so concurrent creates cannot pass the bound), with its age
 * headers (`alongside`, kept only if the link went in) in the same transaction. False when the
 * bound refused it.
 */
export async function insertLink(
  db: D1Database,
  row: LinkRow,
  maxPerTarget: number,
  alongside: D1PreparedStatement[] = [],
): Promise<boolean> {
  const insert = db
    .prepare(
      `INSERT INTO share_links (${LINK_COLUMNS})
       SELECT ?1, ?2, ?17, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15
       WHERE (CASE WHEN ?2 IS NOT NULL THEN (SELECT COUNT(*) FROM share_links WHERE file_id = ?2)
                   ELSE (SELECT COUNT(*) FROM share_links WHERE collection_id = ?17) END) < ?16`,
    )
    .bind(
      row.id,
      row.file_id,
      row.account_id,
      row.token,
      row.label,
      row.password_hash,
      row.password_salt,
      row.password_iterations,
      row.max_downloads,
      row.download_count,
      row.expires_at,
      row.last_downloaded_at,
      row.created_at,
      row.updated_at,
      row.revoked_at,
      maxPerTarget,
      row.collection_id,
    );
  if (alongside.length === 0) return (await insert.run()).meta.changes > 0;
  const [result] = await db.batch([insert, ...alongside]);
  return (result?.meta.changes ?? 0) > 0;
}

/** A collection's links, newest first (the caller has checked that the collection is the account's). */
export async function listLinksOfCollection(db: D1Database, collectionId: string, accountId: string) {
  const { results } = await db
    .prepare(
      `SELECT ${LINK_COLUMNS} FROM share_links WHERE collection_id = ?1 AND account_id = ?2 ORDER BY created_at DESC, id DESC`,
    )
    .bind(collectionId, accountId)
    .all<LinkRow>();
  return results;
}

/** A file's links, newest first (the caller has checked that the file is the account's and live). */
export async function listLinksOfFile(db: D1Database, fileId: string, accountId: string): Promise<LinkRow[]> {
  const { results } = await db
    .prepare(
      `SELECT ${LINK_COLUMNS} FROM share_links WHERE file_id = ?1 AND account_id = ?2 ORDER BY created_at DESC, id DESC`,
    )
    .bind(fileId, accountId)
    .all<LinkRow>();
  return results;
}

/** The account's link, while its file is live. */
export function findOwnedLink(db: D1Database, id: string, accountId: string, now: string) {
  return db
    .prepare(`SELECT ${L} FROM share_links l WHERE l.id = ?1 AND l.account_id = ?3 AND ${FILE_LIVE}`)
    .bind(id, now, accountId)
    .first<LinkRow>();
}

/** What an owner may change on a link; absent fields stay as they are. */
export type LinkChanges = {
  label?: string | null;
  /** A new hash, or null to remove the password. */
  password?: { hash: string; salt: string; iterations: number } | null;
  maxDownloads?: number | null;
  expiresAt?: string | null;
};

/** Changes the account's link (file live) and returns it as it is after, or null. */
export function updateOwnedLink(db: D1Database, id: string, accountId: string, now: string, changes: LinkChanges) {
  const set = (value: unknown) => (value === undefined ? 0 : 1);
  const password = changes.password;
  return db
    .prepare(
      `UPDATE share_links AS l SET
         label = CASE WHEN ?4 = 1 THEN ?5 ELSE label END,
         password_hash = CASE WHEN ?6 = 1 THEN ?7 ELSE password_hash END,
         password_salt = CASE WHEN ?6 = 1 THEN ?8 ELSE password_salt END,
         password_iterations = CASE WHEN ?6 = 1 THEN ?9 ELSE password_iterations END,
         max_downloads = CASE WHEN ?10 = 1 THEN ?11 ELSE max_downloads END,
         expires_at = CASE WHEN ?12 = 1 THEN ?13 ELSE expires_at END,
         updated_at = ?2
       WHERE l.id = ?1 AND l.account_id = ?3 AND ${FILE_LIVE} RETURNING ${LINK_COLUMNS}`,
    )
    .bind(
      id,
      now,
      accountId,
      set(changes.label),
      changes.label ?? null,
      set(password),
      password?.hash ?? null,
      password?.salt ?? null,
      password?.iterations ?? null,
      set(changes.maxDownloads),
      changes.maxDownloads ?? null,
      set(changes.expiresAt),
      changes.expiresAt ?? null,
    )
    .first<LinkRow>();
}

/** Revokes the account's link (once: a second revoke keeps the first time) and returns it. */
export function revokeOwnedLink(db: D1Database, id: string, accountId: string, now: string) {
  return db
    .prepare(
      `UPDATE share_links AS l SET revoked_at = COALESCE(revoked_at, ?2), updated_at = ?2
       WHERE l.id = ?1 AND l.account_id = ?3 AND ${FILE_LIVE} RETURNING ${LINK_COLUMNS}`,
    )
    .bind(id, now, accountId)
    .first<LinkRow>();
}

/**
 * What stands between a link and its visitors besides what it shares (migration 0016): its
 * account's suspension and its own disabling, each the operator's statement, or null.
 */
export type LinkFacts = { suspension: string | null; disabled: string | null };

/** A file's link and its file, with the link's age header when the file is encrypted (else null). */
export type SharedByLink = { link: LinkRow; file: FileRow; header: string | null; facts?: LinkFacts };
/** A collection's link and its collection (its members are read apart, for the archive). */
export type SharedCollectionByLink = { link: LinkRow; collection: CollectionRow; facts: LinkFacts };

const COLLECTION_COLUMNS = 'id, account_id, name, note, created_at, updated_at';

/**
 * A link that is not revoked, not expired, whose account has an active key (the default link's
 * condition), with what it shares: its file while the file is live, or its collection (a
 * collection's links go with it), and what stands between it and its visitors (`facts`). One
 * statement, whichever kind the token is. Exhaustion is not D1's to say (the link's counter
 * object owns the count).
 */
export async function findLiveLinkByToken(
  db: D1Database,
  token: string,
  now: string,
): Promise<(SharedByLink & { facts: LinkFacts }) | SharedCollectionByLink | null> {
  const F = FILE_COLUMNS.split(', ')
    .map((column) => `f.${column} AS f_${column}`)
    .join(', ');
  const C = COLLECTION_COLUMNS.split(', ')
    .map((column) => `c.${column} AS c_${column}`)
    .join(', ');
  const row = await db
    .prepare(
      `SELECT ${L}, ${F}, ${C}, h.header AS h_header,
         ${accountSuspension('l.account_id')} AS s_suspension, d.statement AS s_disabled
       FROM share_links l
       LEFT JOIN files f ON f.id = l.file_id
       LEFT JOIN link_headers h ON h.link_id = l.id AND h.file_id = l.file_id
       LEFT JOIN collections c ON c.id = l.collection_id AND c.account_id = l.account_id
       LEFT JOIN disabled_links d ON d.link_id = l.id
       WHERE l.token = ?1 AND l.revoked_at IS NULL AND (l.expires_at IS NULL OR l.expires_at > ?2)
         AND ((f.id IS NOT NULL AND (f.expires_at IS NULL OR f.expires_at > ?2)) OR c.id IS NOT NULL)
         AND ${accountActive('l.account_id', '?2')}`,
    )
    .bind(token, now)
    .first<Record<string, unknown>>();
  if (!row) return null;
  const link: Record<string, unknown> = {};
  const file: Record<string, unknown> = {};
  const collection: Record<string, unknown> = {};
  let header: string | null = null;
  for (const [name, value] of Object.entries(row)) {
    if (name === 'h_header') header = value as string | null;
    else if (name.startsWith('f_')) file[name.slice(2)] = value;
    else if (name.startsWith('c_')) collection[name.slice(2)] = value;
    else if (!name.startsWith('s_')) link[name] = value;
  }
  const facts = { suspension: row.s_suspension as string | null, disabled: row.s_disabled as string | null };
  if (link.collection_id !== null) return { link: link as LinkRow, collection: collection as CollectionRow, facts };
  return { link: link as LinkRow, file: file as FileRow, header, facts };
}

/**
 * Writes a link's count as its counter object holds it, and adds what is new to its file's
 * downloadCount, in one transaction. Idempotent: the file gets only the difference from the
 * count D1 already holds, and nothing when D1 is not behind, so a retried flush adds nothing.
 * Returns false when the link's row is gone (its file was deleted, or it expired and was swept).
 */
export async function flushLinkCount(
  db: D1Database,
  linkId: string,
  count: number,
  lastDownloadedAt: string | null,
): Promise<boolean> {
  const [, updated] = await db.batch([
    db
      .prepare(
        `UPDATE files SET download_count = download_count + (?2 - (SELECT download_count FROM share_links WHERE id = ?1))
         WHERE id = (SELECT file_id FROM share_links WHERE id = ?1)
           AND ?2 > (SELECT download_count FROM share_links WHERE id = ?1)`,
      )
      .bind(linkId, count),
    db
      .prepare(
        `UPDATE share_links SET download_count = MAX(download_count, ?2),
           last_downloaded_at = COALESCE(?3, last_downloaded_at) WHERE id = ?1`,
      )
      .bind(linkId, count, lastDownloadedAt),
  ]);
  return (updated?.meta.changes ?? 0) > 0;
}
