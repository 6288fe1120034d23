// The KeyLimiter object driven directly over RPC, with explicit clock values for window edges.
import { describe, expect, it } from 'vitest';
import { limiterOf, storedEntries, storedWindow } from '../helpers/rate-limits';

const STORAGE_KEYS = ['account', 'holds', 'seq', 'window'];

/** A fresh object for each test: names are never reused. */
const fresh = () => {
  const name = `limiter-test-${crypto.randomUUID()}`;
  return { name, limiter: limiterOf(name) };
};

// A fixed, aligned instant (2026-01-01T00:00:00Z is a multiple of every window used here).
const T0 = Date.UTC(2026, 0, 1);

describe('KeyLimiter.admit', () => {
  it('admits up to the limit in one window, then refuses without counting the refusals', async () => {
    const { name, limiter } = fresh();
    const windowSeconds = 60;
    const seen = [];
    for (let i = 0; i < 5; i++) seen.push(await limiter.admit({ limit: 3, windowSeconds, now: T0 + i * 1000 }));
    expect(seen.map((result) => [result.allowed, result.remaining])).toEqual([
      [true, 2],
      [true, 1],
      [true, 0],
      [false, 0],
      [false, 0],
    ]);
    // Every answer in the window names the same reset: the window's end, in Unix seconds.
    for (const result of seen) expect(result).toMatchObject({ limit: 3, reset: T0 / 1000 + windowSeconds });
    expect(await storedWindow(name)).toEqual({ start: T0, count: 3 });
  });

  it('admits again in the next window, with the count restarted', async () => {
    const { name, limiter } = fresh();
    const admit = (now: number) => limiter.admit({ limit: 2, windowSeconds: 10, now });
    expect((await admit(T0)).allowed).toBe(true);
    expect((await admit(T0 + 5_000)).allowed).toBe(true);
    // The last millisecond of the window still belongs to it.
    expect(await admit(T0 + 9_999)).toMatchObject({ allowed: false, remaining: 0, reset: T0 / 1000 + 10 });
    // The first millisecond of the next one does not.
    expect(await admit(T0 + 10_000)).toMatchObject({ allowed: true, remaining: 1, reset: T0 / 1000 + 20 });
    expect(await admit(T0 + 19_999)).toMatchObject({ allowed: true, remaining: 0, reset: T0 / 1000 + 20 });
    expect((await admit(T0 + 19_999)).allowed).toBe(false);
    // A window skipped entirely leaves nothing behind: the count starts over.
    expect(await admit(T0 + 55_000)).toMatchObject({ allowed: true, remaining: 1, reset: T0 / 1000 + 60 });
    expect(await storedWindow(name)).toEqual({ start: T0 + 50_000, count: 1 });
  });

  it('aligns windows to multiples of their length since the epoch, not to the first request', async () => {
    const { limiter } = fresh();
    // First request 25 s into a 60 s window: the window still ends at the next whole minute.
    const first = await limiter.admit({ limit: 1, windowSeconds: 60, now: T0 + 25_000 });
    expect(first).toMatchObject({ allowed: true, reset: T0 / 1000 + 60 });
    expect((await limiter.admit({ limit: 1, windowSeconds: 60, now: T0 + 59_000 })).allowed).toBe(false);
    expect((await limiter.admit({ limit: 1, windowSeconds: 60, now: T0 + 60_000 })).allowed).toBe(true);
  });

  it('is exact for a burst of concurrent calls', async () => {
    const { name, limiter } = fresh();
    const results = await Promise.all(
      Array.from({ length: 50 }, () => limiter.admit({ limit: 20, windowSeconds: 3600, now: T0 + 1 })),
    );
    const allowed = results.filter((result) => result.allowed);
    expect(allowed).toHaveLength(20);
    expect(allowed.map((result) => result.remaining).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 20 }, (_, i) => i),
    );
    expect(results.filter((result) => !result.allowed).every((result) => result.remaining === 0)).toBe(true);
    expect(await storedWindow(name)).toEqual({ start: T0, count: 20 });
  });

  it('applies a changed limit to the current count, never answering a negative Remaining', async () => {
    const { limiter } = fresh();
    const admit = (limit: number) => limiter.admit({ limit, windowSeconds: 3600, now: T0 + 1 });
    for (let i = 0; i < 4; i++) expect((await admit(10)).allowed).toBe(true);
    expect(await admit(2)).toMatchObject({ allowed: false, remaining: 0, limit: 2 });
    expect(await admit(5)).toMatchObject({ allowed: true, remaining: 0, limit: 5 });
    expect(await admit(5)).toMatchObject({ allowed: false, remaining: 0 });
  });
});

describe('KeyLimiter storage', () => {
  it('holds only the current window after moving through many windows', async () => {
    const { name, limiter } = fresh();
    for (let window = 0; window < 6; window++) {
      for (let i = 0; i < 3; i++) await limiter.admit({ limit: 100, windowSeconds: 60, now: T0 + window * 60_000 + i });
    }
    const entries = await storedEntries(name);
    expect(entries).toEqual([['window', { start: T0 + 5 * 60_000, count: 3 }]]);
  });

  it('keeps a few small values: the window, the account, the holds and their sequence', async () => {
    const { name, limiter } = fresh();
    const keyId = name;
    const admitted = await limiter.admit({
      limit: 5,
      windowSeconds: 60,
      now: T0,
      hold: { keyId, bytes: 100, files: 1, limits: LIMITS },
    });
    await limiter.commit({
      keyId,
      holdId: admitted.grant?.id,
      files: [{ id: 'a', size: 40, expiresAt: null }],
      limits: LIMITS,
    });
    await limiter.admit({ limit: 5, windowSeconds: 60, now: T0 + 120_000 });
    await limiter.admit({ limit: 5, windowSeconds: 60, now: T0 + 121_000 });

    const entries = new Map(await storedEntries(name));
    expect([...entries.keys()].sort()).toEqual(STORAGE_KEYS);
    expect(entries.get('window')).toEqual({ start: T0 + 120_000, count: 2 });
    expect(entries.get('account')).toEqual({ bytes: 40, files: 1 });
    expect(entries.get('holds')).toEqual({});
  });
});

const LIMITS = { quotaBytes: 1_000, maxFiles: 5, holdTtlMs: 60_000 };
const file = (id: string, size: number, expiresAt: string | null = null) => ({ id, size, expiresAt });

describe('KeyLimiter storage account', () => {
  it('commits files in order while they fit the quota and the file limit, refusing the rest', async () => {
    const { name: keyId, limiter } = fresh();
    const result = await limiter.commit({
      keyId,
      files: [file('a', 600), file('b', 500), file('c', 400), file('d', 0), file('e', 0), file('f', 0), file('g', 0)],
      limits: LIMITS,
    });
    expect(result.accepted).toEqual(['a', 'c', 'd', 'e', 'f']);
    expect(result.refused).toEqual([
      { id: 'b', exceeded: 'bytes' },
      { id: 'g', exceeded: 'files' },
    ]);
    expect(await limiter.usage({ keyId })).toEqual({ usedBytes: 1_000, files: 5, heldBytes: 0, heldFiles: 0 });
  });

  it('puts older holds first: a younger hold is refused what an older one needs, never the reverse', async () => {
    const { name: keyId, limiter } = fresh();
    const reserve = (holdId: string | undefined, needBytes: number) =>
      limiter.reserve({ keyId, holdId, needBytes, needFiles: 1, aheadBytes: 0, aheadFiles: 0, limits: LIMITS });
    const older = (await reserve(undefined, 100)).grant?.id;
    const younger = (await reserve(undefined, 100)).grant?.id;
    expect(older && younger).toBeTruthy();
    // The younger grows to 800: room, since the older needs only 100.
    expect((await reserve(younger, 800)).grant).toMatchObject({ bytes: 800 });
    // The older grows to 500: it comes first, so it gets it, although the younger holds 800.
    expect((await reserve(older, 500)).grant).toMatchObject({ bytes: 500 });
    // The younger, asking again, no longer fits beside the older.
    expect(await reserve(younger, 801)).toEqual({ grant: null, exceeded: 'bytes' });
    expect((await reserve(younger, 500)).grant).toMatchObject({ bytes: 500 });
  });

  it('takes an expiring file off the account the moment it expires, and frees it only once', async () => {
    const { name: keyId, limiter } = fresh();
    const expiresAt = new Date(T0 + 60_000).toISOString();
    await limiter.commit({ keyId, files: [file('x', 300, expiresAt), file('y', 200)], limits: LIMITS, now: T0 });
    expect(await limiter.usage({ keyId, now: T0 + 59_999 })).toMatchObject({ usedBytes: 500, files: 2 });
    expect(await limiter.usage({ keyId, now: T0 + 60_000 })).toMatchObject({ usedBytes: 200, files: 1 });
    // The sweep deleting the expired row later does not take it off again.
    await limiter.free({ keyId, files: [file('x', 300, expiresAt)], now: T0 + 70_000 });
    expect(await limiter.usage({ keyId, now: T0 + 70_000 })).toMatchObject({ usedBytes: 200, files: 1 });
    // Deleting a live file does.
    await limiter.free({ keyId, files: [file('y', 200)], now: T0 + 70_000 });
    expect(await limiter.usage({ keyId, now: T0 + 70_000 })).toMatchObject({ usedBytes: 0, files: 0 });
  });

  it('follows a changed expiry: sooner, later, never, and back to life', async () => {
    const { name: keyId, limiter } = fresh();
    const at = (ms: number) => new Date(T0 + ms).toISOString();
    await limiter.commit({ keyId, files: [file('x', 300, at(60_000))], limits: LIMITS, now: T0 });
    await limiter.reschedule({ keyId, files: [{ ...file('x', 300, at(120_000)), previous: at(60_000) }], now: T0 });
    expect(await limiter.usage({ keyId, now: T0 + 90_000 })).toMatchObject({ usedBytes: 300 });
    await limiter.reschedule({ keyId, files: [{ ...file('x', 300, null), previous: at(120_000) }], now: T0 + 90_000 });
    expect(await limiter.usage({ keyId, now: T0 + 500_000 })).toMatchObject({ usedBytes: 300 });
    await limiter.reschedule({ keyId, files: [{ ...file('x', 300, at(0)), previous: null }], now: T0 + 500_000 });
    expect(await limiter.usage({ keyId, now: T0 + 500_000 })).toMatchObject({ usedBytes: 0, files: 0 });
  });

  it('drops holds older than their lifetime, so a dead upload cannot keep the room', async () => {
    const { name: keyId, limiter } = fresh();
    await limiter.reserve({
      keyId,
      needBytes: 900,
      needFiles: 1,
      aheadBytes: 0,
      aheadFiles: 0,
      limits: LIMITS,
      now: T0,
    });
    expect(await limiter.usage({ keyId, limits: LIMITS, now: T0 + 1 })).toMatchObject({ heldBytes: 900 });
    expect(await limiter.usage({ keyId, limits: LIMITS, now: T0 + LIMITS.holdTtlMs + 1 })).toMatchObject({
      heldBytes: 0,
    });
  });
});

describe('KeyLimiter reservations (tus uploads)', () => {
  const reserveFor = (limiter: ReturnType<typeof fresh>['limiter'], keyId: string, needBytes: number, until?: number) =>
    limiter.reserve({ keyId, needBytes, needFiles: 1, aheadBytes: 0, aheadFiles: 0, limits: LIMITS, until, now: T0 });

  it('keeps a reservation’s room from every other upload, younger or older, and from their commits', async () => {
    const { name: keyId, limiter } = fresh();
    // An older, ordinary hold that is streaming.
    const older = (await reserveFor(limiter, keyId, 100)).grant?.id;
    const reservation = (await reserveFor(limiter, keyId, 700, T0 + 3_600_000)).grant?.id;
    expect(older && reservation).toBeTruthy();
    // The older hold may not grow into the reserved room…
    expect(
      await limiter.reserve({
        keyId,
        holdId: older,
        needBytes: 301,
        needFiles: 1,
        aheadBytes: 0,
        aheadFiles: 0,
        limits: LIMITS,
        now: T0,
      }),
    ).toEqual({ grant: null, exceeded: 'bytes' });
    // …nor commit past it, while the reservation itself commits in full.
    const refused = await limiter.commit({ keyId, holdId: older, files: [file('o', 301)], limits: LIMITS, now: T0 });
    expect(refused.refused).toEqual([{ id: 'o', exceeded: 'bytes' }]);
    const settled = await limiter.commit({
      keyId,
      holdId: reservation,
      files: [file('r', 700)],
      limits: LIMITS,
      now: T0,
    });
    expect(settled.accepted).toEqual(['r']);
    expect(await limiter.usage({ keyId, limits: LIMITS, now: T0 })).toEqual({
      usedBytes: 700,
      files: 1,
      heldBytes: 0,
      heldFiles: 0,
    });
  });

  it('lives until its own end, however old, then stops counting', async () => {
    const { name: keyId, limiter } = fresh();
    await reserveFor(limiter, keyId, 900, T0 + 10 * LIMITS.holdTtlMs);
    expect(await limiter.usage({ keyId, limits: LIMITS, now: T0 + 5 * LIMITS.holdTtlMs })).toMatchObject({
      heldBytes: 900,
    });
    expect(await limiter.usage({ keyId, limits: LIMITS, now: T0 + 10 * LIMITS.holdTtlMs + 1 })).toMatchObject({
      heldBytes: 0,
    });
  });
});

describe('KeyLimiter.admit without counting', () => {
  it('reports the window without counting, and admits even past the limit', async () => {
    const { name, limiter } = fresh();
    await limiter.admit({ limit: 2, windowSeconds: 60, now: T0 });
    expect(await limiter.admit({ limit: 2, windowSeconds: 60, now: T0 + 1, count: false })).toMatchObject({
      allowed: true,
      remaining: 1,
    });
    await limiter.admit({ limit: 2, windowSeconds: 60, now: T0 + 2 });
    expect(await limiter.admit({ limit: 2, windowSeconds: 60, now: T0 + 3 })).toMatchObject({ allowed: false });
    expect(await limiter.admit({ limit: 2, windowSeconds: 60, now: T0 + 4, count: false })).toMatchObject({
      allowed: true,
      remaining: 0,
    });
    expect(await storedWindow(name)).toEqual({ start: T0, count: 2 });
  });
});
