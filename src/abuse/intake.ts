// Reports as they come in (POST /api/v2/reports, the form at /report; docs/abuse.md). Before the
// answer, the same work for every well-formed report: the per-address throttle, Turnstile when
// it is on, and the report stored as it was sent, naming nothing yet. After the answer (so that
// neither the answer nor its timing says whether the URL names anything): what the URL names,
// the reporter as the access log's visitor id under the target's account (never the address,
// and no one at all for a URL that names nothing), the target's daily bound, the threshold's
// hold, and `report.received` to the operator.
import { VISITOR_PERIOD_MS, visitorId } from '../access-log/visitor-id';
import { visitorSecret } from '../accounts/account-storage-client';
import type { Config } from '../config';
import { emitOperatorEvent } from '../events/emit';
import { randomBase64Url } from '../lib/crypto';
import { type GuardNamespace, throttleAddress } from '../limiter/auth-guard-client';
import { log } from '../log';
import { nameReport, type ReportTarget } from '../storage/report-intake-repo';
import { insertReport, type ReportReason } from '../storage/reports-repo';
import { isoNow } from '../time';
import { reportsPerAddress } from '../visitors/throttle';
import { holdReported } from './report-holds';
import { findReportTarget, reportedToken } from './report-target';
import type { AbuseDeps } from './service';
import { type TurnstileSettings, verifyTurnstile } from './turnstile';

/** A well-formed report, as the form or a script sent it (empty optional fields are null). */
export type ReportInput = {
  url: string;
  reason: ReportReason;
  details: string | null;
  contact: string | null;
  linkWithKey: string | null;
  turnstileToken?: string;
};

export type IntakeDeps = AbuseDeps & {
  guard: GuardNamespace;
  /** Work after the answer (the request's waitUntil). */
  waitUntil: (promise: Promise<unknown>) => void;
  config: Pick<Config, 'REPORTS_PER_ADDRESS' | 'REPORT_WINDOW_SECONDS' | 'REPORT_QUARANTINE_THRESHOLD'>;
  /** Set when Turnstile is on (both keys configured). */
  turnstile?: TurnstileSettings;
};

/** Reports of one target past this many in a UTC day are counted (report_tallies), not stored again. */
export const REPORTS_PER_TARGET_PER_DAY = 50;

/** The threshold counts distinct visitors over this long. */
export const THRESHOLD_WINDOW_MS = 24 * 60 * 60 * 1000;

export type ReceivedReport = { id: string; receivedAt: string };

/**
 * Takes one well-formed report from `address`: 429 past the address's allowance, 403
 * CAPTCHA_FAILED when Turnstile is on and the token does not pass; otherwise it is stored and
 * answered, and what it names is found after the answer.
 */
export async function receiveReport(deps: IntakeDeps, input: ReportInput, address: string): Promise<ReceivedReport> {
  await throttleAddress(deps.guard, address, reportsPerAddress(deps.config));
  if (deps.turnstile) await verifyTurnstile(deps.turnstile, input.turnstileToken);
  const now = Date.now();
  const id = `rpt_${randomBase64Url(16)}`;
  const receivedAt = isoNow(now);
  await insertReport(deps.db, {
    id,
    target_type: null,
    target_id: null,
    target_account_id: null,
    reason: input.reason,
    details: input.details,
    contact: input.contact,
    visitor: null,
    link_with_key: input.linkWithKey,
    created_at: receivedAt,
  });
  deps.waitUntil(
    nameReported(deps, { id, receivedAt, input }, address, now).catch((error: unknown) => {
      log('error', 'report stored, its target not named', { reportId: id, error: String(error) });
    }),
  );
  return { id, receivedAt };
}

type Stored = { id: string; receivedAt: string; input: ReportInput };

/** After the answer: names the report's target and reporter, bounds the target's day, holds it at the threshold, tells the operator. */
async function nameReported(deps: IntakeDeps, report: Stored, address: string, now: number): Promise<void> {
  const reported = reportedToken(report.input.url);
  const target = reported ? await findReportTarget(deps.db, reported) : null;
  let reporters = 0;
  let held = false;
  if (target) {
    const secrets = (accountId: string, at: number) => visitorSecret(deps.accounts, accountId, VISITOR_PERIOD_MS, at);
    const visitor = await visitorId(secrets, target.accountId, address, now);
    const named = await nameReport(
      deps.db,
      { id: report.id, target, visitor },
      {
        day: report.receivedAt.slice(0, 10),
        since: isoNow(now - THRESHOLD_WINDOW_MS),
        maxPerDay: REPORTS_PER_TARGET_PER_DAY,
      },
    );
    // Past the day's bound: counted, not stored again, and the operator is not told again.
    if (!named.stored) return;
    reporters = named.reporters;
    const threshold = deps.config.REPORT_QUARANTINE_THRESHOLD;
    if (threshold !== undefined && reporters >= threshold) held = await holdReported(deps, target);
  }
  emitOperatorEvent(
    deps.events,
    deps.operatorWebhook,
    'report.received',
    receivedEvent(report, target, reporters, held),
  );
}

/** What the operator's receiver gets: the report as GET /admin/reports shows it (never the link with its key), and whether it holds its target. */
const receivedEvent = (report: Stored, target: ReportTarget | null, reporters: number, held: boolean) => ({
  reportId: report.id,
  target: target && { type: target.type, id: target.id, accountId: target.accountId },
  reason: report.input.reason,
  details: report.input.details,
  contact: report.input.contact,
  reporters,
  createdAt: report.receivedAt,
  held,
});
