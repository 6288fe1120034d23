// Cloudflare Turnstile's siteverify, the one outside service a report may need: the token the
// widget gave the reporter's browser is checked with the secret (TURNSTILE_SECRET_KEY) at
// TURNSTILE_VERIFY_URL (Cloudflare's by default; tests point it at a stub that answers as
// Cloudflare's documented test secrets do). Nothing else knows the protocol.
import { ApiError, captchaFailed } from '../errors';
import { log } from '../log';

/** Turnstile as configured: both keys, and where tokens are checked. */
export type TurnstileSettings = { siteKey: string; secret: string; verifyUrl: string };

/** Tokens are at most 2,048 characters (Cloudflare's documented bound); longer ones never pass. */
export const MAX_TURNSTILE_TOKEN = 2048;

const unreachable = (cause: unknown) =>
  new ApiError('SERVICE_UNAVAILABLE', 'The challenge (Turnstile) could not be checked: try again', { cause });

/**
 * Checks a token: resolves when siteverify says `success: true`; 403 CAPTCHA_FAILED when there is
 * no token or siteverify refuses it; 503 SERVICE_UNAVAILABLE when siteverify cannot be reached or
 * answers something else (the report is not taken, and not counted as a failed challenge). The
 * reporter's address is not sent (siteverify's `remoteip` is optional).
 */
export async function verifyTurnstile(settings: TurnstileSettings, token: string | undefined): Promise<void> {
  if (!token || token.length > MAX_TURNSTILE_TOKEN) throw captchaFailed();
  const body = new URLSearchParams({ secret: settings.secret, response: token });
  let answer: unknown;
  try {
    const response = await fetch(settings.verifyUrl, { method: 'POST', body, signal: AbortSignal.timeout(10_000) });
    answer = response.ok ? await response.json() : undefined;
    if (answer === undefined) throw new Error(`siteverify answered ${response.status}`);
  } catch (error) {
    log('error', 'turnstile siteverify unreachable', { error: String(error) });
    throw unreachable(error);
  }
  if (typeof answer !== 'object' || answer === null || typeof (answer as { success?: unknown }).success !== 'boolean') {
    throw unreachable(new Error('siteverify answered no success field'));
  }
  if (!(answer as { success: boolean }).success) throw captchaFailed();
}
