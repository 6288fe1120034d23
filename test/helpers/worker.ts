// The Worker under test: requests through its own fetch handler with real local bindings, keys,
// and the Durable Object and throttle details a test needs to control.
import { createExecutionContext, env, runDurableObjectAlarm, waitOnExecutionContext } from 'cloudflare:test';
import worker from '../../src/index';
import { newKeyMaterial } from '../../src/keys/key-material';
import { insertKey, type KeyOverrides } from '../../src/storage/keys-repo';

export const ORIGIN = 'http://edgeshare.test';

export type TestEnv = typeof env;

const octet = () => Math.floor(Math.random() * 256);
/** A random private IPv4 address: one of 16 million, so two requests practically never share one. */
export const someAddress = () => `10.${octet()}.${octet()}.${octet()}`;

/**
 * Sends a request through the Worker's own fetch handler, with real local bindings. Each
 * request comes from its own client address (CF-Connecting-IP) unless the test sets one, so
 * tests that send bad keys on purpose are not throttled by each other's failures.
 */
export async function call(path: string, init: RequestInit = {}, envOverrides: Partial<Record<string, unknown>> = {}) {
  const request = new Request(path.startsWith('http') ? path : `${ORIGIN}${path}`, init);
  if (!request.headers.has('cf-connecting-ip')) request.headers.set('cf-connecting-ip', someAddress());
  const ctx = createExecutionContext();
  const response = await worker.fetch(request, { ...env, ...envOverrides } as TestEnv, ctx);
  await waitOnExecutionContext(ctx);
  return response;
}

/** A Durable Object namespace whose stubs report each call (they still reach the real objects). */
export function countingNamespace<T extends object>(inner: T, onCall: () => void): T {
  return new Proxy(inner, {
    get(object, property) {
      const value = Reflect.get(object, property, object);
      if (typeof value !== 'function') return value;
      if (property !== 'getByName' && property !== 'get') return value.bind(object);
      return (...args: unknown[]) => {
        const stub = Reflect.apply(value, object, args) as object;
        return new Proxy(stub, {
          get(target, name) {
            const member = Reflect.get(target, name);
            if (typeof member !== 'function' || name === 'then') return member;
            return (...callArgs: unknown[]) => {
              onCall();
              return Reflect.apply(member, target, callArgs);
            };
          },
        });
      };
    },
  });
}

/**
 * A fresh active key in the test database. A key given a rate-limit window of an hour or more (as
 * the tests that count its requests do) is made at least 30 s before that window ends, so that
 * the test's requests all count in one window (windows are aligned to multiples of their length).
 */
export async function createKey(name = 'test', overrides: KeyOverrides = {}) {
  const windowSeconds = overrides.rateLimitWindowSeconds ?? 0;
  if (windowSeconds >= 3600) await awayFromWindowEdge(windowSeconds, 30_000);
  const material = await newKeyMaterial();
  const row = await insertKey(env.DB, { ...material, name }, overrides, new Date().toISOString());
  return { id: row.id, key: material.key, auth: { Authorization: `Bearer ${material.key}` } };
}

/**
 * Revokes a key the way the admin API does: in D1, then told to the key's object, so the very
 * next request is refused. (`pushToObject: false` is a change made only in D1, as the key CLI
 * does: in effect within KEY_STATE_MAX_AGE_MS.)
 */
export async function revokeKeyInDb(keyId: string, pushToObject = true): Promise<void> {
  const row = await env.DB.prepare(
    "UPDATE api_keys SET status = 'revoked', revoked_at = ?2 WHERE id = ?1 RETURNING rate_limit_requests, rate_limit_window_seconds, storage_quota_bytes, max_files",
  )
    .bind(keyId, new Date().toISOString())
    .first<{
      rate_limit_requests: number | null;
      rate_limit_window_seconds: number | null;
      storage_quota_bytes: number | null;
      max_files: number | null;
    }>();
  if (!row || !pushToObject) return;
  await env.KEY_LIMITER.getByName(keyId).updateKey({
    status: 'revoked',
    overrides: {
      rateLimitRequests: row.rate_limit_requests,
      rateLimitWindowSeconds: row.rate_limit_window_seconds,
      storageQuotaBytes: row.storage_quota_bytes,
      maxFiles: row.max_files,
    },
  });
}

/**
 * Throttles count in fixed windows aligned to multiples of their length (AuthGuard, LinkCounter,
 * FileRequestCounter): a test that needs N events in one window waits out the end of the current
 * one when it is closer than `margin` ms, so the count never restarts halfway.
 */
export async function awayFromWindowEdge(windowSeconds: number, margin = 8_000) {
  const left = windowSeconds * 1000 - (Date.now() % (windowSeconds * 1000));
  if (left < margin) await new Promise((resolve) => setTimeout(resolve, left + 50));
}

/**
 * `vars` with the throttle `windowVar` (LINK_DOWNLOAD_WINDOW_SECONDS, REQUEST_UPLOAD_WINDOW_SECONDS,
 * AUTH_FAILURE_WINDOW_SECONDS…) set to an hour, returned once that hour has room left: a test's
 * requests then all count in one window (in the default minute, aligned to the clock, a loaded
 * machine's requests could straddle a new one and the count restart).
 */
export async function inOneHourWindow(windowVar: string, vars: Record<string, string>) {
  await awayFromWindowEdge(3600);
  return { ...vars, [windowVar]: '3600' };
}

/**
 * The pause before a poll's next try through the API: 20 ms doubling up to 500 ms. A poll of the
 * API at a fixed 20-100 ms spends a key's default allowance (100 requests a minute) within seconds
 * on a loaded machine, and then reads 429s until its deadline; this one makes about 65 requests
 * in 30 s.
 */
export function pollPause(attempt: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.min(500, 20 * 2 ** attempt)));
}

/** Runs the alarm of a file's default-link counter: the downloads it holds go to the file's row. */
export async function flushDefaultLink(fileId: string): Promise<void> {
  await runDurableObjectAlarm(env.LINK_COUNTERS.getByName(`file:${fileId}`));
}
