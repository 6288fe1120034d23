// The KeyLimiter object driven directly over RPC, with explicit clock values for window edges.
import { describe, expect, it } from 'vitest';
import { limiterOf, storedEntries, storedWindow } from './limits-helpers-rate';

const STORAGE_KEYS = ['reservations', 'used', 'window'];

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

  it('keeps nothing but the window, the used bytes and the reservations', async () => {
    const { name, limiter } = fresh();
    const keyId = name;
    await limiter.admit({ limit: 5, windowSeconds: 60, now: T0, reserve: { keyId, want: 100, quota: 1000 } });
    const reservation = await limiter.reserve({ keyId, want: 50, quota: 1000 });
    await limiter.settle({ keyId, reservationId: reservation.id, bytes: 40 });
    await limiter.admit({ limit: 5, windowSeconds: 60, now: T0 + 120_000 });
    await limiter.admit({ limit: 5, windowSeconds: 60, now: T0 + 121_000 });

    const entries = new Map(await storedEntries(name));
    expect([...entries.keys()].sort()).toEqual(STORAGE_KEYS);
    expect(entries.get('window')).toEqual({ start: T0 + 120_000, count: 2 });
  });
});
