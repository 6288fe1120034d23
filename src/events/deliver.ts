// One POST to a receiver, with the safety rules: the address rule again, no redirects, a short
// timeout, a bounded read.
import { checkWebhookUrl } from '../webhooks/url';

/** A receiver has this long to answer (headers and the first KiB of its body). */
export const DELIVERY_TIMEOUT_MS = 10_000;
const MAX_RESPONSE_BYTES = 1024;

/**
 * What one attempt came to: 2xx is delivered; anything else (3xx included) is retried, except a
 * URL the address rule refuses (`final`: no retry can change it, only a new URL and a resend).
 */
export type AttemptResult = {
  ok: boolean;
  statusCode: number | null;
  error?: string;
  final?: boolean;
};

export async function postWebhook(url: string, headers: Record<string, string>, body: string): Promise<AttemptResult> {
  // Rows stored before the rule (or by hand) are checked as sent, control characters included.
  const checked = checkWebhookUrl(url);
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
    return { ok: false, statusCode: null, error: signal.aborted ? 'timed out' : 'could not connect' };
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
