// The visitor id: the same for one address within a 30-day period, another one in the next, and
// never the same for two accounts; old periods' secrets are gone for good. Time is moved with the
// `now` the account's object takes.
import { env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { VISITOR_PERIOD_MS, visitorId } from '../../src/access-log/visitor-id';
import { visitorSecret } from '../../src/accounts/account-storage-client';
import { createKey, someAddress } from '../helpers/worker';

const DAY = 24 * 60 * 60 * 1000;
const secrets = (accountId: string, now: number) =>
  visitorSecret(env.ACCOUNT_STORAGE, accountId, VISITOR_PERIOD_MS, now);

describe('visitor ids', () => {
  it('stay the same within a 30-day period and change across its end', async () => {
    const { id: accountId } = await createKey('visitors');
    const address = someAddress();
    const periodStart = (Math.floor(Date.now() / VISITOR_PERIOD_MS) + 1) * VISITOR_PERIOD_MS;
    const early = await visitorId(secrets, accountId, address, periodStart + 1000);
    const late = await visitorId(secrets, accountId, address, periodStart + 29 * DAY);
    const lastMillisecond = await visitorId(secrets, accountId, address, periodStart + VISITOR_PERIOD_MS - 1);
    const next = await visitorId(secrets, accountId, address, periodStart + VISITOR_PERIOD_MS);
    expect(late).toBe(early);
    expect(lastMillisecond).toBe(early);
    expect(next).not.toBe(early);
    // Within the next period it is stable again.
    expect(await visitorId(secrets, accountId, address, periodStart + VISITOR_PERIOD_MS + 10 * DAY)).toBe(next);
    // Another address, another id.
    expect(await visitorId(secrets, accountId, someAddress(), periodStart + 1000)).not.toBe(early);
  });

  it('differ between accounts for one address', async () => {
    const [a, b] = [await createKey('a'), await createKey('b')];
    const address = someAddress();
    const now = Date.now();
    expect(await visitorId(secrets, a.id, address, now)).not.toBe(await visitorId(secrets, b.id, address, now));
  });

  it('cannot be made again for a period two behind: its secret is deleted', async () => {
    const { id: accountId } = await createKey('forgets');
    const now = Date.now();
    const first = new Uint8Array(await secrets(accountId, now));
    expect(new Uint8Array(await secrets(accountId, now))).toEqual(first);
    await secrets(accountId, now + 2 * VISITOR_PERIOD_MS);
    const again = new Uint8Array(await secrets(accountId, now));
    expect(again).toHaveLength(32);
    expect(again).not.toEqual(first);
  });
});
