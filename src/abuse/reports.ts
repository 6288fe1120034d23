// The operator's review of abuse reports (GET /admin/reports, POST /admin/reports/{id}/resolve):
// a page of open or resolved reports, newest first, and a decision applied to a report's target
// that resolves every open report of that target with it. What each action does to each kind of
// target is in docs/abuse.md ("Resolving a report").
import { ApiError, validationError } from '../errors';
import { collectionLinkIds, findFileForOperator, findLinkForOperator } from '../storage/moderation-repo';
import {
  findReport,
  listReports,
  type ReportAction,
  type ReportPosition,
  type ReviewedReportRow,
  resolveReports,
} from '../storage/reports-repo';
import { isoNow } from '../time';
import { type PagePosition, pageOf, positionOf } from './paging';
import { settleHold } from './report-holds';
import { type AbuseDeps, disableLink, quarantineFile, removeFile, setAccountSuspension } from './service';

export type ReportPage = { rows: ReviewedReportRow[]; nextCursor: string | null };

/** One page of the review: reports with `status`, newest first; `cursor` from the page before. */
export async function reviewReports(
  deps: Pick<AbuseDeps, 'db'>,
  status: 'open' | 'resolved',
  limit: number,
  cursor?: string,
): Promise<ReportPage> {
  const after = cursor === undefined ? undefined : reportPosition(positionOf(cursor));
  const rows = await listReports(deps.db, status, limit, after);
  return pageOf(rows, limit, (last) => [last.created_at, last.id]);
}

const reportPosition = ([createdAt, id]: PagePosition): ReportPosition => ({ createdAt, id });

const notApplicable = (action: ReportAction, what: string) =>
  validationError('action', `${action} does not apply to ${what}`);

/**
 * Applies `action` to the report's target, then resolves the report and every other open report
 * of that target with the same action and statement. dismiss: nothing is done to the target;
 * quarantine: a file is quarantined, a link disabled, a collection's every link disabled;
 * remove: a file (or a file link's file) is removed; suspend: the target's account is suspended.
 * An action that fits no target (a report that named nothing takes only dismiss) is 400. A hold
 * the reports put on the target is lifted by dismiss and kept, under this statement, by the others
 * (src/abuse/report-holds.ts).
 */
export async function resolveReport(
  deps: AbuseDeps,
  id: string,
  resolution: { action: ReportAction; statement: string },
): Promise<{ report: ReviewedReportRow; resolved: string[] }> {
  const report = await findReport(deps.db, id);
  if (!report) throw new ApiError('NOT_FOUND', 'No such report');
  if (report.status === 'resolved') {
    throw new ApiError('MODERATION_CONFLICT', 'This report is resolved already');
  }
  await applyAction(deps, report, resolution);
  // A hold the reports put on the target (REPORT_QUARANTINE_THRESHOLD) ends with this decision.
  if (report.target_type !== null && report.target_id !== null) {
    await settleHold(deps, { type: report.target_type, id: report.target_id }, resolution.action, resolution.statement);
  }
  const resolved = await resolveReports(deps.db, report, resolution, isoNow());
  const after = await findReport(deps.db, id);
  return { report: after ?? report, resolved };
}

async function applyAction(
  deps: AbuseDeps,
  report: ReviewedReportRow,
  { action, statement }: { action: ReportAction; statement: string },
): Promise<void> {
  if (action === 'dismiss') return;
  const { target_type: type, target_id: targetId, target_account_id: accountId } = report;
  if (type === null || targetId === null) throw notApplicable(action, 'a report that named nothing');
  if (action === 'suspend') {
    if (accountId === null) throw notApplicable(action, 'a target without an account');
    await setAccountSuspension(deps, accountId, { suspend: true, statement });
    return;
  }
  if (type === 'file') {
    // Quarantining a file removed already changes nothing more: the report is resolved all the same.
    const file = await findFileForOperator(deps.db, targetId, isoNow());
    if (action === 'quarantine' && file?.moderation_state !== 'removed')
      await quarantineFile(deps, targetId, statement);
    if (action === 'remove') await removeFile(deps, targetId, statement, false);
    return;
  }
  if (type === 'link') {
    const link = await findLinkForOperator(deps.db, targetId);
    if (!link) throw new ApiError('LINK_NOT_FOUND');
    if (action === 'quarantine') await disableLink(deps, targetId, statement);
    else if (link.file_id === null) throw notApplicable(action, 'a collection’s link (remove its files one by one)');
    else await removeFile(deps, link.file_id, statement, false);
    return;
  }
  if (type === 'collection' && action === 'quarantine') {
    for (const linkId of await collectionLinkIds(deps.db, targetId)) await disableLink(deps, linkId, statement);
    return;
  }
  throw notApplicable(action, type === 'request' ? 'a file request (suspend its account)' : `a ${type}`);
}
