// Holds that reports put on a target (REPORT_QUARANTINE_THRESHOLD): N distinct visitors' open
// reports of one target within 24 hours put it where the operator's `quarantine` would (a file
// quarantined, a file's made link disabled, a collection's links disabled), with a statement of
// its own, until the operator decides. Resolving the target's reports decides: `dismiss` lifts
// the hold (the file served again, the links enabled), any other action makes it the operator's
// own (their statement replaces the hold's). A file request is never held (its account may be
// suspended). Holds the operator put themselves are never lifted here.
import { ApiError } from '../errors';
import { emitEvent } from '../events/emit';
import { fileEventData } from '../files/records';
import { collectionLinkIds, findLinkForOperator } from '../storage/moderation-repo';
import { type ReportTarget, settleReportHold } from '../storage/report-intake-repo';
import type { ReportAction } from '../storage/reports-repo';
import { isoNow } from '../time';
import { type AbuseDeps, disableLink, quarantineFile } from './service';

/** What visitors read on the 451 of a held target, and its owner in the notice. */
export const REPORT_HOLD_STATEMENT =
  'Held after reports from several visitors, until the operator of this service reviews them.';

/**
 * Puts the hold on `target` (once: a target held already, or under the operator's own decision,
 * stays as it is). False when there was nothing to hold (gone, removed, a file request).
 */
export async function holdReported(deps: AbuseDeps, target: ReportTarget): Promise<boolean> {
  try {
    if (target.type === 'file') await quarantineFile(deps, target.id, REPORT_HOLD_STATEMENT);
    else if (target.type === 'link') await disableLink(deps, target.id, REPORT_HOLD_STATEMENT);
    else if (target.type === 'collection') {
      for (const id of await collectionLinkIds(deps.db, target.id)) await disableLink(deps, id, REPORT_HOLD_STATEMENT);
    } else return false;
    return true;
  } catch (error) {
    // Gone since it was reported, or removed: nothing to hold.
    if (error instanceof ApiError) return false;
    throw error;
  }
}

/**
 * The operator's decision on a target's reports, applied to the hold they put on it (if any):
 * `dismiss` lifts it (the owner gets `file.released`); any other action keeps it under the
 * operator's statement (the owner gets `file.quarantined` or `link.disabled` with it).
 */
export async function settleHold(
  deps: AbuseDeps,
  target: Pick<ReportTarget, 'type' | 'id'>,
  action: ReportAction,
  statement: string,
): Promise<void> {
  const lift = action === 'dismiss';
  const settled = await settleReportHold(deps.db, target, REPORT_HOLD_STATEMENT, lift ? null : statement, isoNow());
  for (const row of settled.files) {
    const file = fileEventData(row);
    if (lift) emitEvent(deps.events, row.account_id, 'file.released', { file, statement });
    else emitEvent(deps.events, row.account_id, 'file.quarantined', { file, statement });
  }
  if (lift) return;
  for (const id of settled.links) {
    const link = await findLinkForOperator(deps.db, id);
    if (!link) continue;
    emitEvent(deps.events, link.account_id, 'link.disabled', {
      linkId: link.id,
      fileId: link.file_id,
      collectionId: link.collection_id,
      statement,
    });
  }
}
