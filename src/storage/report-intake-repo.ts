// D1 access for reports as they come in (POST /api/v2/reports, src/abuse/intake.ts): what a
// reported token names, the report given its target and reporter once that is known (with the
// target's tally for the day and its distinct reporters, in one transaction), and lifting or
// confirming a hold that reports put on a target. A reporter is its visitor id, never an address.
import { FILE_COLUMNS, type FileRow } from './files-repo';
import type { ReportTargetType } from './reports-repo';

/** What a report names: a file, a link, a collection or a file request, and whose it is. */
export type ReportTarget = { type: ReportTargetType; id: string; accountId: string };

/** A made link by its token (revoked or expired too): what it shares, and whether `memberId` is in its collection. */
export function linkOfToken(db: D1Database, token: string, memberId: string | null) {
  return db
    .prepare(
      `SELECT l.id, l.account_id, l.file_id, l.collection_id,
         EXISTS (SELECT 1 FROM collection_files m WHERE m.collection_id = l.collection_id AND m.file_id = ?2) AS member
       FROM share_links l WHERE l.token = ?1`,
    )
    .bind(token, memberId ?? '')
    .first<{ id: string; account_id: string; file_id: string | null; collection_id: string | null; member: number }>();
}

/** A file by its default link's token (its share_token), or a file request by its token. */
export function ownerOfToken(db: D1Database, table: 'files' | 'file_requests', token: string) {
  const column = table === 'files' ? 'share_token' : 'token';
  return db
    .prepare(`SELECT id, account_id FROM ${table} WHERE ${column} = ?1`)
    .bind(token)
    .first<{ id: string; account_id: string }>();
}

/** What storing a named report found: its target's reports that day, whether it was kept, the target's reporters. */
export type NamedReport = { received: number; stored: boolean; reporters: number };

/**
 * Gives a stored report its target and its reporter (the visitor id), in one transaction: the
 * target's tally for `day` counts it; past `maxPerDay` that day the report is counted but not
 * kept (its row is deleted); and the distinct reporters of the target's open reports since
 * `since` are read (what REPORT_QUARANTINE_THRESHOLD compares).
 */
export async function nameReport(
  db: D1Database,
  report: { id: string; target: ReportTarget; visitor: string },
  window: { day: string; since: string; maxPerDay: number },
): Promise<NamedReport> {
  const { id, target, visitor } = report;
  const past = `(SELECT received FROM report_tallies WHERE target_type = ?1 AND target_id = ?2 AND day = ?3) > ?4`;
  const [tally, , , reporters] = await db.batch<{ received?: number; reporters?: number }>([
    db
      .prepare(
        `INSERT INTO report_tallies (target_type, target_id, day, received) VALUES (?1, ?2, ?3, 1)
         ON CONFLICT (target_type, target_id, day) DO UPDATE SET received = received + 1 RETURNING received`,
      )
      .bind(target.type, target.id, window.day),
    db
      .prepare(
        `UPDATE reports SET target_type = ?1, target_id = ?2, target_account_id = ?6, visitor = ?7
         WHERE id = ?5 AND NOT ${past}`,
      )
      .bind(target.type, target.id, window.day, window.maxPerDay, id, target.accountId, visitor),
    db
      .prepare(`DELETE FROM reports WHERE id = ?5 AND ${past}`)
      .bind(target.type, target.id, window.day, window.maxPerDay, id),
    db
      .prepare(
        `SELECT COUNT(DISTINCT visitor) AS reporters FROM reports
         WHERE target_type = ?1 AND target_id = ?2 AND created_at >= ?3 AND status = 'open' AND visitor IS NOT NULL`,
      )
      .bind(target.type, target.id, window.since),
  ]);
  const received = tally?.results[0]?.received ?? 0;
  return { received, stored: received <= window.maxPerDay, reporters: reporters?.results[0]?.reporters ?? 0 };
}

/**
 * A hold that reports put on a target (its statement is `held`), lifted (`to` null: the file out
 * of quarantine, the links enabled again) or made the operator's own (`to`: their statement).
 * Holds of the operator's own (any other statement) are never touched. The file rows changed (a
 * file target), or the link ids (a link's or a collection's).
 */
export async function settleReportHold(
  db: D1Database,
  target: Pick<ReportTarget, 'type' | 'id'>,
  held: string,
  to: string | null,
  now: string,
): Promise<{ files: FileRow[]; links: string[] }> {
  if (target.type === 'file') {
    const change =
      to === null
        ? 'moderation_state = NULL, moderation_statement = NULL, moderated_at = NULL, updated_at = ?3'
        : 'moderation_statement = ?3';
    const { results } = await db
      .prepare(
        `UPDATE files SET ${change}
         WHERE id = ?1 AND moderation_state = 'quarantined' AND moderation_statement = ?2 RETURNING ${FILE_COLUMNS}`,
      )
      .bind(target.id, held, to ?? now)
      .all<FileRow>();
    return { files: results, links: [] };
  }
  if (target.type === 'request') return { files: [], links: [] };
  const links =
    target.type === 'link' ? 'link_id = ?1' : 'link_id IN (SELECT id FROM share_links WHERE collection_id = ?1)';
  const statement =
    to === null
      ? `DELETE FROM disabled_links WHERE ${links} AND statement = ?2 RETURNING link_id`
      : `UPDATE disabled_links SET statement = ?3 WHERE ${links} AND statement = ?2 RETURNING link_id`;
  const { results } = await db
    .prepare(statement)
    .bind(target.id, held, ...(to === null ? [] : [to]))
    .all<{ link_id: string }>();
  return { files: [], links: results.map((row) => row.link_id) };
}
