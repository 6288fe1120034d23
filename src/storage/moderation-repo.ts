// D1 access for the operator's decisions (migration 0016): a file quarantined, released or removed
// (its tombstone), a link disabled, an account suspended, a file's scan. Who may be served is not
// decided here (src/moderation/standing.ts); these only write and read the facts it decides from.
import type { AccountRow } from './accounts-repo';
import { FILE_COLUMNS, type FileRow, type ScanStatus } from './files-repo';
import type { LinkRow } from './links-repo';

const live = '(expires_at IS NULL OR expires_at > ?2)';

/** Any account's live file by id (the operator's view): null when unknown, expired or deleted. */
export function findFileForOperator(db: D1Database, id: string, now: string) {
  return db.prepare(`SELECT ${FILE_COLUMNS} FROM files WHERE id = ?1 AND ${live}`).bind(id, now).first<FileRow>();
}

/**
 * Quarantines a live file that is in good standing; the row as it is after, or null when the
 * statement changed nothing (unknown, or already quarantined or removed: the caller reads why).
 * updated_at moves (a collection's archive changes with it).
 */
export function quarantineFile(db: D1Database, id: string, statement: string, now: string) {
  return db
    .prepare(
      `UPDATE files SET moderation_state = 'quarantined', moderation_statement = ?3, moderated_at = ?2, updated_at = ?2
       WHERE id = ?1 AND ${live} AND moderation_state IS NULL RETURNING ${FILE_COLUMNS}`,
    )
    .bind(id, now, statement)
    .first<FileRow>();
}

/**
 * Releases a live file that is not removed: out of quarantine, and served to visitors whatever
 * its scan says (released_at). The row as it is after, or null (unknown, or removed).
 */
export function releaseFile(db: D1Database, id: string, now: string) {
  return db
    .prepare(
      `UPDATE files SET moderation_state = NULL, moderation_statement = NULL, moderated_at = NULL, released_at = ?2,
         updated_at = ?2
       WHERE id = ?1 AND ${live} AND moderation_state IS NOT 'removed' RETURNING ${FILE_COLUMNS}`,
    )
    .bind(id, now)
    .first<FileRow>();
}

/**
 * Makes a live file a tombstone (state `removed`) in one transaction: its row stays, the segments
 * of a file stored in segments join blob_deletions (as deleting its row would queue them), and
 * with `blockHash` its SHA-256 joins the blocklist. The row as it is after, or null when the
 * statement changed nothing (unknown, or removed already). Its bytes are the caller's to delete.
 */
export async function removeFile(
  db: D1Database,
  id: string,
  statement: string,
  now: string,
  blockHash: boolean,
): Promise<FileRow | null> {
  const removed = `EXISTS (SELECT 1 FROM files WHERE id = ?1 AND moderation_state = 'removed')`;
  const statements = [
    db
      .prepare(
        `UPDATE files SET moderation_state = 'removed', moderation_statement = ?3, moderated_at = ?2, updated_at = ?2
         WHERE id = ?1 AND ${live} AND moderation_state IS NOT 'removed' RETURNING ${FILE_COLUMNS}`,
      )
      .bind(id, now, statement),
    db
      .prepare(
        `INSERT OR IGNORE INTO blob_deletions (r2_key, key_id, failed_at, attempts)
         SELECT s.r2_key, f.account_id, ?2, 0 FROM file_segments s JOIN files f ON f.id = s.file_id
         WHERE s.file_id = ?1 AND ${removed}`,
      )
      .bind(id, now),
    db.prepare(`DELETE FROM file_segments WHERE file_id = ?1 AND ${removed}`).bind(id),
  ];
  if (blockHash) {
    statements.push(
      db
        .prepare(
          `INSERT OR IGNORE INTO blocklist (sha256, reason, created_at)
           SELECT sha256, ?3, ?2 FROM files WHERE id = ?1 AND sha256 IS NOT NULL AND moderation_state = 'removed'`,
        )
        .bind(id, now, statement),
    );
  }
  const [updated] = await db.batch<FileRow>(statements);
  return updated?.results[0] ?? null;
}

/** Whether a SHA-256 (lowercase hex) is on the blocklist: one read of its primary key. */
export async function isBlocked(db: D1Database, sha256: string): Promise<boolean> {
  return (await db.prepare('SELECT 1 AS found FROM blocklist WHERE sha256 = ?1').bind(sha256).first()) !== null;
}

/** A link as the operator sees it: its row, and its disabling (null: none). */
export type OperatorLinkRow = LinkRow & { disabled_statement: string | null; disabled_at: string | null };

const LINK_READ = `SELECT l.*, d.statement AS disabled_statement, d.disabled_at AS disabled_at
  FROM share_links l LEFT JOIN disabled_links d ON d.link_id = l.id WHERE l.id = ?1`;

/** Any account's link by id (revoked or expired too), with its disabling. */
export function findLinkForOperator(db: D1Database, id: string) {
  return db.prepare(LINK_READ).bind(id).first<OperatorLinkRow>();
}

/**
 * Disables a link (the first statement stays: a link is disabled once). The link as it is after,
 * and whether this call disabled it; null when there is no such link.
 */
export async function disableLink(
  db: D1Database,
  id: string,
  statement: string,
  now: string,
): Promise<{ link: OperatorLinkRow; disabled: boolean } | null> {
  const [inserted, read] = await db.batch<{ link_id: string } | OperatorLinkRow>([
    db
      .prepare(
        `INSERT INTO disabled_links (link_id, statement, disabled_at) SELECT id, ?2, ?3 FROM share_links WHERE id = ?1
         ON CONFLICT (link_id) DO NOTHING RETURNING link_id`,
      )
      .bind(id, statement, now),
    db.prepare(LINK_READ).bind(id),
  ]);
  const link = read?.results[0] as OperatorLinkRow | undefined;
  return link ? { link, disabled: (inserted?.results.length ?? 0) > 0 } : null;
}

/** The live links of a collection (not revoked), for disabling them all. */
export async function collectionLinkIds(db: D1Database, collectionId: string): Promise<string[]> {
  const { results } = await db
    .prepare('SELECT id FROM share_links WHERE collection_id = ?1 AND revoked_at IS NULL')
    .bind(collectionId)
    .all<{ id: string }>();
  return results.map((row) => row.id);
}

/**
 * Suspends an account (a statement given again replaces the first; the time stays the first) or
 * lifts its suspension (`statement` null). The account as it is after and as it was, or null
 * when there is no such account: one transaction.
 */
export async function setSuspension(
  db: D1Database,
  id: string,
  statement: string | null,
  now: string,
): Promise<{ before: AccountRow; after: AccountRow } | null> {
  const [before, after] = await db.batch<AccountRow>([
    db.prepare('SELECT * FROM accounts WHERE id = ?1').bind(id),
    db
      .prepare(
        `UPDATE accounts SET
           suspended_at = CASE WHEN ?2 IS NULL THEN NULL ELSE COALESCE(suspended_at, ?3) END,
           suspension_statement = ?2,
           updated_at = ?3
         WHERE id = ?1 RETURNING *`,
      )
      .bind(id, statement, now),
  ]);
  const was = before?.results[0];
  const is = after?.results[0];
  return was && is ? { before: was, after: is } : null;
}

/**
 * Records where a file's scan stands (the scanner's, src/moderation/); the row as it is after, or
 * null when the file is gone. `at`: when it reached this status.
 */
export function setScan(
  db: D1Database,
  id: string,
  scan: { status: ScanStatus; signature: string | null; at: string },
) {
  return db
    .prepare(
      `UPDATE files SET scan_status = ?2, scan_signature = ?3, scanned_at = ?4 WHERE id = ?1 RETURNING ${FILE_COLUMNS}`,
    )
    .bind(id, scan.status, scan.signature, scan.at)
    .first<FileRow>();
}
