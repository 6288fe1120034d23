// The visitor id: an HMAC-SHA-256 of the client's address under a secret of the link's account that
// changes every VISITOR_PERIOD_MS, cut to 96 bits. One visitor is recognised within a period and
// never across two; the address itself is never stored, logged or returned. The secret lives in
// the account's object (AccountStorage.visitorKey) and is cached here per isolate.
import { toBase64Url } from '../lib/encoding';

/** 30 days: the secret's life. Periods are counted from the Unix epoch, the same for every account. */
export const VISITOR_PERIOD_MS = 30 * 24 * 60 * 60 * 1000;

export const visitorPeriod = (now: number) => Math.floor(now / VISITOR_PERIOD_MS);

/** Fetches the account's secret for the period `now` falls in (raw bytes). */
export type VisitorSecretSource = (accountId: string, now: number) => Promise<ArrayBuffer>;

type Cached = { period: number; key: Promise<CryptoKey> };
const keys = new Map<string, Cached>();
const MAX_KEYS = 10_000;

function keyFor(source: VisitorSecretSource, accountId: string, now: number): Promise<CryptoKey> {
  const period = visitorPeriod(now);
  const cached = keys.get(accountId);
  if (cached && cached.period === period) return cached.key;
  const key = source(accountId, now).then((secret) =>
    crypto.subtle.importKey('raw', secret, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']),
  );
  if (keys.size >= MAX_KEYS) keys.clear();
  keys.set(accountId, { period, key });
  // A failed fetch is not kept: the next event asks again.
  key.catch(() => {
    if (keys.get(accountId)?.key === key) keys.delete(accountId);
  });
  return key;
}

/** The opaque id of `address` (as clientAddress groups it) for the account, at `now`. */
export async function visitorId(
  source: VisitorSecretSource,
  accountId: string,
  address: string,
  now: number,
): Promise<string> {
  const key = await keyFor(source, accountId, now);
  const mac = await crypto.subtle.sign('HMAC', key, new TextEncoder().encode(address));
  return toBase64Url(new Uint8Array(mac, 0, 12));
}
