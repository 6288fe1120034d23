// Which receiver URLs a webhook may have: https to a public host on the default port, plain http
// only to a loopback address and only in development (ALLOW_LOOPBACK_TARGETS); never a private,
// link-local, CGNAT or metadata address, nor a name only a local network resolves or one that
// embeds such an address (the rule of src/lib/public-address.ts). Checked on create, on change,
// and again before every delivery, for rows stored before the rule.
import { hostReach, type TargetRules, targetProblem } from '../lib/public-address.ts';

const MAX_URL_LENGTH = 2048;

// C0, space, DEL, C1, other whitespace and the bidi controls: the URL parser silently drops tab,
// CR and LF and trims the rest from the ends, so a URL is refused as sent, before it is parsed.
const CONTROL_OR_SPACE = /[\u0000-\u0020\u007f-\u009f\u202a-\u202e\u2066-\u2069\s]/u;

/** A receiver URL as it is stored (`new URL(raw).href`), or why it cannot be one. */
export type CheckedWebhookUrl = { href: string } | { problem: string };

/** The rules as a request's configuration sets them (ALLOW_LOOPBACK_TARGETS). */
export const targetRules = (config: { ALLOW_LOOPBACK_TARGETS: boolean }): TargetRules => ({
  allowLoopback: config.ALLOW_LOOPBACK_TARGETS,
});

/**
 * `rules.allowLoopback`: whether a loopback address may be named (development). The request
 * schemas check with it allowed, the shape of a URL; the routes and the delivery check again with
 * the configuration's (webhooks/service.ts, deliver.ts).
 */
export function checkWebhookUrl(raw: string, rules: TargetRules): CheckedWebhookUrl {
  if (raw.length > MAX_URL_LENGTH) return { problem: `must be at most ${MAX_URL_LENGTH} characters` };
  if (CONTROL_OR_SPACE.test(raw)) return { problem: 'must not contain control characters or whitespace' };
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    return { problem: 'must be an absolute URL' };
  }
  if (parsed.username || parsed.password) return { problem: 'must not carry a user name or password' };
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return { problem: 'must use https' };
  const problem = targetProblem(parsed.hostname, rules);
  if (problem !== undefined) return { problem };
  const loopback = hostReach(parsed.hostname).kind === 'loopback';
  if (parsed.protocol === 'http:' && !loopback) {
    return { problem: 'must use https (plain http only for a loopback address, in development)' };
  }
  // The URL parser drops a scheme's default port: any port left is another one.
  if (parsed.port !== '' && !loopback) return { problem: 'must use the default port of https (443)' };
  // Percent-encoding and punycode can lengthen it: what is stored stays within the bound too.
  if (parsed.href.length > MAX_URL_LENGTH) {
    return { problem: `must be at most ${MAX_URL_LENGTH} characters once encoded` };
  }
  return { href: parsed.href };
}
