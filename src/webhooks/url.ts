// Which receiver URLs a webhook may have: https to a public host, plain http only on this machine,
// never a private, link-local, CGNAT or metadata address (checked on create, on change, and again
// before every delivery, for rows stored before the rule).
import { hostReach } from '../lib/public-address.ts';

const MAX_URL_LENGTH = 2048;

// C0, space, DEL, C1, other whitespace and the bidi controls: the URL parser silently drops tab,
// CR and LF and trims the rest from the ends, so a URL is refused as sent, before it is parsed.
const CONTROL_OR_SPACE = /[\u0000-\u0020\u007f-\u009f\u202a-\u202e\u2066-\u2069\s]/u;

/** A receiver URL as it is stored (`new URL(raw).href`), or why it cannot be one. */
export type CheckedWebhookUrl = { href: string } | { problem: string };

export function checkWebhookUrl(raw: string): CheckedWebhookUrl {
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
  const reach = hostReach(parsed.hostname);
  if (reach.kind === 'non-public') {
    return { problem: `must not name a private, link-local or other non-public address: ${reach.range}` };
  }
  if (parsed.protocol === 'http:' && reach.kind !== 'loopback') {
    return { problem: 'must use https (plain http only for 127.0.0.0/8, [::1] and localhost)' };
  }
  // Percent-encoding and punycode can lengthen it: what is stored stays within the bound too.
  if (parsed.href.length > MAX_URL_LENGTH) {
    return { problem: `must be at most ${MAX_URL_LENGTH} characters once encoded` };
  }
  return { href: parsed.href };
}
