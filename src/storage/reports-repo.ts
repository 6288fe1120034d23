// D1 access for abuse reports (migration 0016): storing one, the operator's review (open or
// resolved, newest first, a page at a time) and resolving every open report of a target at once.
// A reporter is its visitor id (the access log's keyed hash), never an address.

export type ReportTargetType = 'file' | 'link' | 'collection' | 'request';
export type ReportReason = 'malware' | 'phishing' | 'csam' | 'copyright' | 'illegal' | 'spam' | 'other';
export type ReportAction = 'dismiss' | 'quarantine' | 'remove' | 'suspend';

export type ReportRow = {
  id: string;
  target_type: ReportTargetType | null;
  target_id: string | null;
  target_account_id: string | null;
  reason: ReportReason;
  details: string | null;
  contact: string | null;
  visitor: string | null;
  link_with_key: string | null;
  status: 'open' | 'resolved';
  resolution_action: ReportAction | null;
  resolution_statement: string | null;
  created_at: string;
  resolved_at: string | null;
};

/** A report as the review reads it: with the distinct visitors who reported its target. */
export type ReviewedReportRow = ReportRow & { reporters: number };

const COLUMNS =
  'id, target_type, target_id, target_account_id, reason, details, contact, visitor, link_with_key, status, ' +
  'resolution_action, resolution_statement, created_at, resolved_at';

// Distinct reporters of the report's target (every report of it, through reports_by_target); a
// report that named nothing has only its own.
const REPORTERS = `CASE WHEN r.target_id IS NULL THEN (r.visitor IS NOT NULL) ELSE
  (SELECT COUNT(DISTINCT x.visitor) FROM reports x WHERE x.target_type = r.target_type AND x.target_id = r.target_id)
  END AS reporters`;

const R = COLUMNS.split(', ')
  .map((column) => `r.${column}`)
  .join(', ');

/** Stores a new report (open). */
export async function insertReport(
  db: D1Database,
  row: Omit<ReportRow, 'status' | 'resolution_action' | 'resolution_statement' | 'resolved_at'>,
): Promise<void> {
  await db
    .prepare(
      `INSERT INTO reports (id, target_type, target_id, target_account_id, reason, details, contact, visitor,
         link_with_key, created_at)
       VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)`,
    )
    .bind(
      row.id,
      row.target_type,
      row.target_id,
      row.target_account_id,
      row.reason,
      row.details,
      row.contact,
      row.visitor,
      row.link_with_key,
      row.created_at,
    )
    .run();
}

/** Where a page of the review ends: the last report's time and id (newest first). */
export type ReportPosition = { createdAt: string; id: string };

/**
 * One page of reports with `status`, newest first (created_at, then id), after `after`: one walk
 * of reports_by_status. Reads `limit + 1` so the caller knows whether another page follows.
 */
export async function listReports(
  db: D1Database,
  status: 'open' | 'resolved',
  limit: number,
  after?: ReportPosition,
): Promise<ReviewedReportRow[]> {
  const { results } = await db
    .prepare(
      `SELECT ${R}, ${REPORTERS} FROM reports r
       WHERE r.status = ?1 AND (?2 IS NULL OR (r.created_at, r.id) < (?2, ?3))
       ORDER BY r.created_at DESC, r.id DESC LIMIT ?4`,
    )
    .bind(status, after?.createdAt ?? null, after?.id ?? '', limit + 1)
    .all<ReviewedReportRow>();
  return results;
}

export function findReport(db: D1Database, id: string) {
  return db.prepare(`SELECT ${R}, ${REPORTERS} FROM reports r WHERE r.id = ?1`).bind(id).first<ReviewedReportRow>();
}

/**
 * Resolves the report and every other open report of its target (when it has one) with the
 * operator's action and statement; the ids resolved. A report already resolved stays as it was.
 */
export async function resolveReports(
  db: D1Database,
  report: Pick<ReportRow, 'id' | 'target_type' | 'target_id'>,
  resolution: { action: ReportAction; statement: string },
  now: string,
): Promise<string[]> {
  const { results } = await db
    .prepare(
      `UPDATE reports SET status = 'resolved', resolution_action = ?4, resolution_statement = ?5, resolved_at = ?6
       WHERE status = 'open' AND (id = ?1 OR (?3 IS NOT NULL AND target_type = ?2 AND target_id = ?3))
       RETURNING id`,
    )
    .bind(report.id, report.target_type, report.target_id, resolution.action, resolution.statement, now)
    .all<{ id: string }>();
  return results.map((row) => row.id);
}
