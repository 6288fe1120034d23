// One POST to a receiver, with the safety rules: the address rule again, no redirects, a short
// timeout, a bounded read, and no answer reading the same however it came about.
import type { TargetRules } from '../lib/public-address';
import { checkWebhookUrl } from './url';

/** A receiver has this long to answer (headers and the first KiB of its body). */
export const DELIVERY_TIMEOUT_MS = 10_000;
const MAX_RESPONSE_BYTES = 1024;

/** A refused connection, a reset, a TLS failure and a timeout: all read as this. */
export const NO_RESPONSE = 'no response';

/**
 * What one attempt came to: 2xx is delivered; anything else (3xx included) is retried, except a
 * URL the address rule refuses (`final`: no retry can change it, only a new URL and a resend).
 * `error` is recorded for the account to read; `cause`, for the operator's log only.
 */
export type AttemptResult = {
  ok: boolean;
  statusCode: number | null;
  error?: string;
  cause?: 'timed out' | 'could not connect';
  final?: boolean;
};

export async function postWebhook(
  url: string,
  headers: Record<string, string>,
  body: string,
  rules: TargetRules,
): Promise<AttemptResult> {
  // Rows stored before the rule (or by hand, or while loopback was allowed) are checked as sent.
  const checked = checkWebhookUrl(url, rules);
  if ('problem' in checked) {
    return { ok: false, statusCode: null, error: `refused: url ${checked.problem}`, final: true };
  }
  const signal = AbortSignal.timeout(DELIVERY_TIMEOUT_MS);
  let response: Response;
  try {
    response = await fetch(checked.href, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'edgeshare-webhooks/1', ...headers },
      body,
      // A redirect is the receiver's answer, not an address to follow: it fails the attempt.
      redirect: 'manual',
      signal,
    });
  } catch {
    // A refused connection ends the attempt at once (the next waits for the schedule). The record
    // reads the same however it failed; ports are no scan target: a receiver other than loopback
    // (development) has the default port of https.
    const cause = signal.aborted ? 'timed out' : 'could not connect';
    return { ok: false, statusCode: null, error: NO_RESPONSE, cause };
  }
  await drain(response);
  const ok = response.status >= 200 && response.status < 300;
  if (ok) return { ok, statusCode: response.status };
  const error = response.status >= 300 && response.status < 400 ? 'redirect not followed' : `HTTP ${response.status}`;
  return { ok, statusCode: response.status, error };
}

/** Reads at most the first KiB (frees the connection), then cancels the rest. */
async function drain(response: Response): Promise<void> {
  if (!response.body) return;
  const reader = response.body.getReader();
  let read = 0;
  try {
    while (read < MAX_RESPONSE_BYTES) {
      const next = await reader.read();
      if (next.done) return;
      read += next.value.length;
    }
    await reader.cancel();
  } catch {
    // A body that breaks off or times out changes nothing: the status was already given.
  }
}
