// Idempotency-Key on every POST, PUT, PATCH and DELETE under /api/v2 (after authentication, which
// gives the key and its account). A request without the header is untouched: no call, no read.
import { createMiddleware } from 'hono/factory';
import { holdTtlMs } from '../config';
import type { AppEnv } from '../env';
import { ApiError, validationError } from '../errors';
import { digestOfBody, HashedBody } from '../idempotency/body-digest';
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
} from '../idempotency/idempotency-store-client';
import type { BeginResult } from '../idempotency/idempotency-store-contract';
import { log } from '../log';

// PUT: the raw-body upload (PUT /api/v2/upload/{filename}; tested in test/idempotency/idempotency.test.ts).
const GUARDED = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** The digest kept for an upload answered 2xx whose body could not be read to its end: no retry matches it. */
const NO_DIGEST = 'unread';

/**
 * The first request with a key runs; its response (unless 5xx or 429, which release the key) is
 * stored before it is answered, so a client that lost the answer gets it again. Entries belong
 * to the API key that sent them. A retry of the same request gets the stored response (marked
 * Idempotency-Replayed: true); an upload's retry is read and hashed first (never stored), and
 * only the same bytes get the answer. Another request with the key, or another API key, is 422;
 * a retry while the first runs is 409. If the account's store cannot be reached the request is
 * refused (503), never run without the dedup the client asked for. Storage held for an upload
 * that does not run is given back by authentication (auth.ts).
 */
export const idempotency = () =>
  createMiddleware<AppEnv>(async function idempotency(c, next) {
    if (!GUARDED.has(c.req.method)) return next();
    const header = c.req.header(IDEMPOTENCY_HEADER);
    if (header === undefined) return next();
    const value = parseIdempotencyKey(header);
    const key = await entryNameOf(value);
    const request = c.req.raw;
    const apiKey = c.get('apiKey');
    // An upload's body is never read before its handler (the route declares it holds uploads, or its type says so).
    const streamed = c.get('needs')?.holdsUpload !== undefined || isStreamedBody(request);
    const fingerprint = await fingerprintOf(request, streamed, apiKey.id);
    const store = idempotencyStore(c.env.IDEMPOTENCY, apiKey.accountId);

    let begun: BeginResult;
    try {
      begun = await store.begin({ key, fingerprint, leaseMs: holdTtlMs(c.get('config')) });
    } catch (error) {
      log('error', 'idempotency store unreachable', { error: String(error) });
      throw new ApiError('SERVICE_UNAVAILABLE', 'Idempotency keys are unavailable, try again', { cause: error });
    }
    if (begun.state === 'done') {
      // The same bytes, or it is another request: a retry's body is read and hashed, never kept.
      if (begun.bodyDigest !== null && (await retryDigest(request)) !== begun.bodyDigest) {
        throw new ApiError('IDEMPOTENCY_KEY_REUSED');
      }
      const { response } = begun;
      c.res = replayOf({ ...response, body: await unseal(value, response.body) });
      return;
    }
    if (begun.state !== 'started') {
      await request.body?.cancel().catch(() => undefined);
      throw new ApiError(begun.state === 'mismatch' ? 'IDEMPOTENCY_KEY_REUSED' : 'IDEMPOTENCY_IN_PROGRESS');
    }

    const { token } = begun;
    const hashed = streamed && request.body ? new HashedBody(request) : undefined;
    if (hashed) c.req.raw = hashed.request;
    try {
      await next();
    } catch (error) {
      // Errors are normally rendered into c.res by onError; one that escapes releases the key.
      hashed?.cancel();
      c.executionCtx.waitUntil(store.release({ key, token }).catch(() => undefined));
      throw error;
    }
    const response = c.res;
    // Recorded before the answer leaves, and kept alive by waitUntil if the client goes away meanwhile.
    const record = (async () => {
      const kept = response.status < 500 && response.status !== 429;
      // An upload's answer is kept with its body's digest. A refusal that left the body unread
      // stored nothing and is not kept (a retry runs again); a stored upload always is.
      let bodyDigest: string | null = null;
      if (hashed) {
        const stored = response.status < 300;
        bodyDigest = (await hashed.finish(kept && stored)) ?? (stored ? NO_DIGEST : null);
        if (bodyDigest === null) return store.release({ key, token });
      }
      const answer = kept ? await storableResponse(response) : undefined;
      if (answer) {
        await store.complete({ key, token, response: { ...answer, body: await seal(value, answer.body) }, bodyDigest });
      } else {
        if (kept) log('error', 'idempotency: response too large to keep, key released', { status: response.status });
        await store.release({ key, token });
      }
    })().catch((error) => log('error', 'idempotency: result not recorded', { error: String(error) }));
    c.executionCtx.waitUntil(record);
    await record;
  });

/** The digest of a retry's body, read to its end; a body that breaks off is the client's 400. */
async function retryDigest(request: Request): Promise<string> {
  try {
    return await digestOfBody(request);
  } catch {
    throw validationError('body', 'the request body could not be read to its end');
  }
}
