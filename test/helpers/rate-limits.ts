// Helpers for the rate-limit tests: header readers, aligned windows, and a limiter that cannot be reached.
import { env, runInDurableObject } from 'cloudflare:test';
import { expect } from 'vitest';
import type { KeyLimiter } from '../../src/limiter/key-limiter-object';
import { type ApiVersion, api, expectError } from './responses';
import { form } from './upload';
import { call } from './worker';

/** An hour-long window: a test never straddles a window boundary, so counts cannot reset mid-test. */
export const HOUR = 3600;

export type RateHeaders = { limit: number; remaining: number; reset: number };

/** The X-RateLimit-* headers of a response, each checked to be a whole number. */
export function rateHeaders(response: Response): RateHeaders {
  const read = (name: string) => {
    const value = response.headers.get(name);
    expect(value, `${name} on a ${response.status}`).toMatch(/^\d+$/);
    return Number(value);
  };
  return {
    limit: read('x-ratelimit-limit'),
    remaining: read('x-ratelimit-remaining'),
    reset: read('x-ratelimit-reset'),
  };
}

/** Unix seconds at which the window holding `nowMs` ends, windows aligned to multiples of their length. */
export const alignedReset = (nowMs: number, windowSeconds: number) =>
  (Math.floor(nowMs / 1000 / windowSeconds) + 1) * windowSeconds;

/**
 * Checks that `reset` is the end of the aligned window around a request sent between `beforeMs`
 * and `afterMs` (either end, should the request straddle a boundary).
 */
export function expectAlignedReset(reset: number, windowSeconds: number, beforeMs: number, afterMs: number) {
  expect(String(reset)).toMatch(/^\d{10}$/);
  expect(reset % windowSeconds).toBe(0);
  expect([alignedReset(beforeMs, windowSeconds), alignedReset(afterMs, windowSeconds)]).toContain(reset);
}

/** A 429 RATE_LIMITED with Retry-After (whole seconds, 1 … window) and Remaining 0. */
export async function expectRefused(response: Response, limit: number, windowSeconds: number, version?: ApiVersion) {
  await expectError(response, 429, 'RATE_LIMITED', version);
  const retryAfter = response.headers.get('retry-after') ?? '';
  expect(retryAfter).toMatch(/^\d+$/);
  expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
  expect(Number(retryAfter)).toBeLessThanOrEqual(windowSeconds);
  const headers = rateHeaders(response);
  expect(headers.limit).toBe(limit);
  expect(headers.remaining).toBe(0);
  // Retry-After points at the end of the window the Reset header names: counted back from Reset, it
  // gives when the answer was made, which is not after now (plus a second of rounding) and not long
  // before (a loaded machine reads the answer late, so only an upper bound on the delay).
  const answeredAt = headers.reset - Number(retryAfter);
  const now = Math.floor(Date.now() / 1000);
  expect(answeredAt).toBeLessThanOrEqual(now + 1);
  expect(answeredAt).toBeGreaterThanOrEqual(now - 30);
}

/** Sends `count` requests at once; `make(i)` gives the i-th request's path and init. */
export function burst(count: number, make: (i: number) => [string, RequestInit?]): Promise<Response[]> {
  return Promise.all(Array.from({ length: count }, (_, i) => call(...make(i))));
}

export const listRequest = (version: ApiVersion, auth: Record<string, string>): [string, RequestInit] => [
  api(version, '/files'),
  { headers: auth },
];

export const uploadRequest = (
  version: ApiVersion,
  auth: Record<string, string>,
  filename = 'note.txt',
): [string, RequestInit] => [
  api(version, '/upload'),
  { method: 'POST', headers: auth, body: form([{ filename, type: 'text/plain', content: `content of ${filename}` }]) },
];

/** An id that is well formed but names no file. */
export const MISSING_ID = 'AAAAAAAAAAAAAAAAAAAAAA';

/** A CORS preflight, as a browser sends it (optionally with extra headers). */
export const preflight = (path: string, headers: Record<string, string> = {}) =>
  call(path, {
    method: 'OPTIONS',
    headers: {
      Origin: 'https://app.example',
      'Access-Control-Request-Method': 'GET',
      'Access-Control-Request-Headers': 'authorization',
      ...headers,
    },
  });

export const limiterOf = (name: string) => env.KEY_LIMITER.getByName(name);

/**
 * Everything kept for the key, as [key, value] pairs: its object's storage, and its account's
 * (the account's object holds the storage account; a key made before accounts is its account).
 */
export async function storedEntries(name: string): Promise<[string, unknown][]> {
  const key = await runInDurableObject(limiterOf(name), (_instance: KeyLimiter, state) => [...state.storage.kv.list()]);
  const account = await runInDurableObject(env.ACCOUNT_STORAGE.getByName(name), (_instance, state) => [
    ...state.storage.kv.list(),
  ]);
  return [...key, ...account] as [string, unknown][];
}

/** The window the key's object holds, if any. */
export async function storedWindow(name: string): Promise<{ start: number; count: number } | undefined> {
  const entries = await storedEntries(name);
  return entries.find(([key]) => key === 'window')?.[1] as { start: number; count: number } | undefined;
}

/**
 * A KEY_LIMITER binding whose objects cannot be reached: every stub method rejects, as an RPC
 * call to an object that is down or overloaded would. `calls` counts the attempts.
 */
export function unreachableLimiter() {
  return unreachableObjects(env.KEY_LIMITER);
}

/** A Durable Object namespace whose every call fails, recording the method names called. */
export function unreachableObjects<T extends { idFromName(name: string): DurableObjectId }>(real: T) {
  const calls: string[] = [];
  const stub = new Proxy(
    {},
    {
      get(_target, property) {
        // Not a thenable: a stub is never awaited itself.
        if (typeof property !== 'string' || property === 'then') return undefined;
        return (..._args: unknown[]) => {
          calls.push(property);
          return Promise.reject(new Error('Durable Object is overloaded (injected fault)'));
        };
      },
    },
  );
  const namespace = {
    getByName: () => stub,
    idFromName: (name: string) => real.idFromName(name),
    get: () => stub,
  };
  return { binding: namespace as unknown as T, calls };
}
