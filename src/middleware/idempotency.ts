// Idempotency-Key on every POST, PATCH and DELETE under /api/v2 (after authentication, which
// gives the account). A request without the header is untouched: no call, no read.
import { createMiddleware } from 'hono/factory';
import { holdTtlMs } from '../config';
import type { AppEnv } from '../env';
import { ApiError } from '../errors';
import {
  entryNameOf,
  fingerprintOf,
  IDEMPOTENCY_HEADER,
  idempotencyStore,
  isStreamedBody,
  parseIdempotencyKey,
  replayOf,
  seal,
  storableResponse,
  unseal,
} from '../idempotency/idempotency-client';
import type { BeginResult } from '../idempotency/idempotency-contract';
import { QuotaTicket } from '../limiter/key-limiter-client';
import { log } from '../log';

// PUT: the raw-body upload (PUT /api/v2/upload/{filename}; tested in test/v2/idempotency.test.ts).
const GUARDED = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * The first request with a key runs; its response (unless 5xx or 429, which release the key) is
 * stored before it is answered, so a client that lost the answer gets it again. A retry of the
 * same request gets the stored response (marked Idempotency-Replayed: true) without its body
 * being read; another request with the key is 422; a retry while the first runs is 409. If the
 * account's store cannot be reached the request is refused (503), never run without the dedup
 * the client asked for.
 */
export const idempotency = () =>
  createMiddleware<AppEnv>(async function idempotency(c, next) {
    if (!GUARDED.has(c.req.method)) return next();
    const header = c.req.header(IDEMPOTENCY_HEADER);
    if (header === undefined) return next();
    const value = parseIdempotencyKey(header);
    const key = await entryNameOf(value);
    const request = c.req.raw;
    // An upload's body is never read here (the route declares it holds uploads, or its type says so).
    const streamed = c.get('needs')?.holdsUpload !== undefined || isStreamedBody(request);
    const fingerprint = await fingerprintOf(request, streamed);
    const store = idempotencyStore(c.env.IDEMPOTENCY, c.get('apiKey').accountId);

    let begun: BeginResult;
    try {
      begun = await store.begin({ key, fingerprint, leaseMs: holdTtlMs(c.get('config')) });
    } catch (error) {
      log('error', 'idempotency store unreachable', { error: String(error) });
      throw new ApiError('SERVICE_UNAVAILABLE', 'Idempotency keys are unavailable, try again', { cause: error });
    }
    if (begun.state !== 'started') {
      // Answered without reading the body: an upload's bytes are not wanted, nor the storage
      // authentication held for them (given back at once, not when the hold times out).
      await request.body?.cancel().catch(() => undefined);
      const grant = c.get('grant');
      if (grant) {
        const held = new QuotaTicket(c.env.ACCOUNT_STORAGE, c.get('apiKey'), grant);
        c.executionCtx.waitUntil(held.release());
      }
      if (begun.state === 'mismatch') throw new ApiError('IDEMPOTENCY_KEY_REUSED');
      if (begun.state === 'running') throw new ApiError('IDEMPOTENCY_IN_PROGRESS');
      const { response } = begun;
      c.res = replayOf({ ...response, body: await unseal(value, response.body) });
      return;
    }

    const { token } = begun;
    try {
      await next();
    } catch (error) {
      // Errors are normally rendered into c.res by onError; one that escapes releases the key.
      c.executionCtx.waitUntil(store.release({ key, token }).catch(() => undefined));
      throw error;
    }
    const response = c.res;
    // Recorded before the answer leaves, and kept alive by waitUntil if the client goes away meanwhile.
    const record = (async () => {
      const stored = response.status >= 500 || response.status === 429 ? undefined : await storableResponse(response);
      if (stored) {
        await store.complete({ key, token, response: { ...stored, body: await seal(value, stored.body) } });
      } else {
        if (response.status < 500 && response.status !== 429)
          log('error', 'idempotency: response too large to keep, key released', { status: response.status });
        await store.release({ key, token });
      }
    })().catch((error) => log('error', 'idempotency: result not recorded', { error: String(error) }));
    c.executionCtx.waitUntil(record);
    await record;
  });
