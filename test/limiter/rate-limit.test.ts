import { env } from 'cloudflare:test';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  burst,
  expectAlignedReset,
  expectRefused,
  HOUR,
  listRequest,
  MISSING_ID,
  preflight,
  rateHeaders,
  storedWindow,
  unreachableLimiter,
  unreachableObjects,
  uploadRequest,
} from '../helpers/rate-limits';
import { type ApiVersion, api, expectError, readJson, VERSIONS } from '../helpers/responses';
import { blobsOf, expectNothingStored, rowCount } from '../helpers/storage';
import { form } from '../helpers/upload';
import { call, createKey, revokeKeyInDb } from '../helpers/worker';

const range = (n: number) => Array.from({ length: n }, (_, i) => i);

afterEach(() => {
  vi.restoreAllMocks();
});

describe.each(VERSIONS)('rate limiting is exact under concurrency (%s)', (version: ApiVersion) => {
  it('admits exactly N of a burst of N+15 concurrent list requests and refuses the rest with 429', async () => {
    const limit = 10;
    const { id, auth } = await createKey('burst', { rateLimitRequests: limit, rateLimitWindowSeconds: HOUR });
    const responses = await burst(limit + 15, () => listRequest(version, auth));

    const admitted = responses.filter((response) => response.status === 200);
    const refused = responses.filter((response) => response.status !== 200);
    expect(admitted).toHaveLength(limit);
    expect(refused).toHaveLength(15);
    // Each admitted request saw its own count: the Remaining values are exactly 0 … N-1.
    const remaining = admitted.map((response) => rateHeaders(response).remaining).sort((a, b) => a - b);
    expect(remaining).toEqual(range(limit));
    for (const response of refused) await expectRefused(response, limit, HOUR, version);
    // Refused requests are not counted: the object holds exactly N for this window.
    expect((await storedWindow(id))?.count).toBe(limit);
    await expectRefused(await call(...listRequest(version, auth)), limit, HOUR, version);
  });

  it('admits exactly N of a mixed burst of uploads, lists and 404s', async () => {
    const limit = 10;
    const { id, auth } = await createKey('mixed', { rateLimitRequests: limit, rateLimitWindowSeconds: HOUR });
    const kinds = ['upload', 'list', 'missing'] as const;
    const kindOf = (i: number) => kinds[i % kinds.length];
    const responses = await burst(25, (i) => {
      const kind = kindOf(i);
      if (kind === 'upload') return uploadRequest(version, auth, `burst-${i}.txt`);
      if (kind === 'list') return listRequest(version, auth);
      return [api(version, `/files/${MISSING_ID}`), { headers: auth }];
    });

    const expected = { upload: 201, list: 200, missing: 404 };
    const admitted = responses.filter((response) => response.status !== 429);
    expect(admitted).toHaveLength(limit);
    expect(responses.filter((response) => response.status === 429)).toHaveLength(25 - limit);
    responses.forEach((response, i) => {
      const kind = kindOf(i);
      expect([expected[kind as keyof typeof expected], 429], `request ${i} (${kind})`).toContain(response.status);
    });
    const remaining = admitted.map((response) => rateHeaders(response).remaining).sort((a, b) => a - b);
    expect(remaining).toEqual(range(limit));
    for (const response of responses) {
      if (response.status === 429) await expectRefused(response, limit, HOUR, version);
      else await response.body?.cancel();
    }
    // A refused upload stores nothing; each admitted one stored exactly its file.
    const uploaded = responses.filter((response) => response.status === 201).length;
    expect(await rowCount(id)).toBe(uploaded);
    expect(await blobsOf(id)).toHaveLength(uploaded);
    expect((await storedWindow(id))?.count).toBe(limit);
  });
});

describe('keys never affect each other', () => {
  it('gives two keys bursting at the same time exactly their own limits', async () => {
    const first = await createKey('first', { rateLimitRequests: 10, rateLimitWindowSeconds: HOUR });
    const second = await createKey('second', { rateLimitRequests: 7, rateLimitWindowSeconds: HOUR });
    // Interleaved: 20 requests of each key in one burst.
    const responses = await burst(40, (i) => listRequest('v1', i % 2 === 0 ? first.auth : second.auth));
    const ofKey = (parity: number) => responses.filter((_, i) => i % 2 === parity);

    for (const [parity, limit] of [
      [0, 10],
      [1, 7],
    ] as const) {
      const mine = ofKey(parity);
      const admitted = mine.filter((response) => response.status === 200);
      expect(admitted).toHaveLength(limit);
      expect(admitted.map((response) => rateHeaders(response).remaining).sort((a, b) => a - b)).toEqual(range(limit));
      for (const response of mine) expect(rateHeaders(response).limit).toBe(limit);
      for (const response of mine.filter((r) => r.status !== 200)) await expectRefused(response, limit, HOUR);
    }
    expect((await storedWindow(first.id))?.count).toBe(10);
    expect((await storedWindow(second.id))?.count).toBe(7);
  });
});

describe('requests that are not counted', () => {
  it('does not count CORS preflights or requests with a bad key', async () => {
    const { id, key, auth } = await createKey('uncounted', { rateLimitRequests: 2, rateLimitWindowSeconds: HOUR });
    const preflights = await Promise.all([
      preflight('/api/v1/files'),
      preflight('/api/v1/files', auth),
      preflight('/api/v2/files', auth),
      preflight('/api/v1/upload', { ...auth, 'Access-Control-Request-Method': 'POST' }),
      preflight(`/api/v2/files/${MISSING_ID}`, { ...auth, 'Access-Control-Request-Method': 'DELETE' }),
    ]);
    for (const response of preflights) {
      expect([200, 204]).toContain(response.status);
      expect(response.headers.has('x-ratelimit-remaining')).toBe(false);
    }
    // A wrong last character, a malformed token, another scheme, no header, an unknown well-formed key.
    const badTokens: Record<string, string>[] = [
      { Authorization: `Bearer ${key.slice(0, -1)}${key.endsWith('A') ? 'B' : 'A'}` },
      { Authorization: `Bearer ${key}x` },
      { Authorization: `Basic ${key}` },
      {},
      { Authorization: `Bearer esk_${'x'.repeat(43)}` },
    ];
    for (const headers of badTokens) {
      await expectError(await call('/api/v1/files', { headers }), 401, 'UNAUTHORIZED');
    }
    // Neither reached the key's object.
    expect(await storedWindow(id)).toBeUndefined();

    for (const expected of [1, 0]) {
      const response = await call('/api/v1/files', { headers: auth });
      expect(response.status).toBe(200);
      expect(rateHeaders(response).remaining).toBe(expected);
    }
    await expectRefused(await call('/api/v1/files', { headers: auth }), 2, HOUR);
  });

  it("does not count a revoked key's requests", async () => {
    const { id, auth } = await createKey('revoked', { rateLimitRequests: 2, rateLimitWindowSeconds: HOUR });
    await revokeKeyInDb(id);
    for (let i = 0; i < 5; i++) {
      const response = await call('/api/v1/files', { headers: auth });
      await expectError(response, 401, 'UNAUTHORIZED');
      expect(response.headers.has('x-ratelimit-limit')).toBe(false);
    }
    expect(await storedWindow(id)).toBeUndefined();
    // Active again: the refused requests left its whole allowance.
    await env.DB.prepare("UPDATE api_keys SET status = 'active', revoked_at = NULL WHERE id = ?1").bind(id).run();
    expect((await call('/api/v1/files', { headers: auth })).status).toBe(200);
    expect((await call('/api/v1/files', { headers: auth })).status).toBe(200);
    await expectRefused(await call('/api/v1/files', { headers: auth }), 2, HOUR);
  });

  it('does not count /health or the OpenAPI documents, even with a key', async () => {
    const { id, auth } = await createKey('public', { rateLimitRequests: 1, rateLimitWindowSeconds: HOUR });
    for (const path of ['/health', '/api/v1/openapi.json', '/api/v2/openapi.json']) {
      const response = await call(path, { headers: auth });
      expect(response.status).toBe(200);
      await response.body?.cancel();
    }
    expect(await storedWindow(id)).toBeUndefined();
    expect((await call('/api/v1/files', { headers: auth })).status).toBe(200);
  });
});

describe.each(VERSIONS)('X-RateLimit-* headers on every authenticated response (%s)', (version: ApiVersion) => {
  it('are on 200, 201, 400, 404, 405, 413, 415 and 429 alike, with one Reset for the window', async () => {
    const limit = 9;
    const { auth } = await createKey('headers', { rateLimitRequests: limit, rateLimitWindowSeconds: HOUR });
    const textFile = (filename: string, content: string) => ({
      method: 'POST',
      headers: auth,
      body: form([{ filename, type: 'text/plain', content }]),
    });
    const before = Date.now();
    // In order, each one counted: Remaining goes 8, 7, … 0, then the 10th is refused.
    const sent: [number, string, RequestInit, Record<string, string>?][] = [
      [200, '/files', { headers: auth }],
      [201, '/upload', textFile('ok.txt', 'fine')],
      [400, '/files?page=0', { headers: auth }],
      [404, `/files/${MISSING_ID}`, { headers: auth }],
      [404, '/no-such-route', { headers: auth }],
      [405, '/files', { method: 'PUT', headers: auth }],
      [413, '/upload', textFile('big.txt', 'x'.repeat(64)), { MAX_FILE_SIZE: '16' }],
      [415, '/upload', textFile('note.txt', 'plain text'), { ALLOWED_FILE_TYPES: 'image/png' }],
      [400, '/upload', { method: 'POST', headers: { ...auth, 'Content-Type': 'text/plain' }, body: 'not a form' }],
      [429, '/files', { headers: auth }],
      [429, '/upload', textFile('late.txt', 'too late')],
    ];
    const responses: Response[] = [];
    for (const [, path, init, overrides] of sent) responses.push(await call(api(version, path), init, overrides));
    const after = Date.now();

    expect(responses.map((response) => response.status)).toEqual(sent.map(([status]) => status));
    const headers = responses.map(rateHeaders);
    for (const seen of headers) expect(seen.limit).toBe(limit);
    expect(headers.map((seen) => seen.remaining)).toEqual([8, 7, 6, 5, 4, 3, 2, 1, 0, 0, 0]);
    const resets = new Set(headers.map((seen) => seen.reset));
    expect(resets.size).toBe(1);
    expectAlignedReset(headers[0]?.reset ?? 0, HOUR, before, after);
    for (const response of responses.slice(-2)) await expectRefused(response, limit, HOUR, version);
  });
});

describe('X-RateLimit-Reset', () => {
  it.each([7, 60, HOUR, 86_400])('is the end of the aligned %i-second window, in Unix seconds', async (window) => {
    const { auth } = await createKey('aligned', { rateLimitRequests: 50, rateLimitWindowSeconds: window });
    const before = Date.now();
    const responses = [await call('/api/v1/files', { headers: auth }), await call('/api/v2/files', { headers: auth })];
    const after = Date.now();
    for (const response of responses) {
      expect(response.status).toBe(200);
      expectAlignedReset(rateHeaders(response).reset, window, before, after);
    }
  });
});

describe('which limit applies', () => {
  it('takes a per-key override over the configured default (100)', async () => {
    const tight = await createKey('tight', { rateLimitRequests: 3, rateLimitWindowSeconds: HOUR });
    const plain = await createKey('plain', { rateLimitWindowSeconds: HOUR });
    for (let i = 0; i < 3; i++) expect((await call('/api/v1/files', { headers: tight.auth })).status).toBe(200);
    await expectRefused(await call('/api/v1/files', { headers: tight.auth }), 3, HOUR);
    await expectRefused(await call('/api/v2/files', { headers: tight.auth }), 3, HOUR, 'v2');

    const response = await call('/api/v1/files', { headers: plain.auth });
    expect(response.status).toBe(200);
    expect(rateHeaders(response)).toMatchObject({ limit: 100, remaining: 99 });
  });

  it('applies RATE_LIMIT_REQUESTS and RATE_LIMIT_WINDOW_SECONDS to keys without an override', async () => {
    const vars = { RATE_LIMIT_REQUESTS: '5', RATE_LIMIT_WINDOW_SECONDS: String(HOUR) };
    const plain = await createKey('env-default');
    const tight = await createKey('override', { rateLimitRequests: 3 });
    const before = Date.now();
    for (let i = 0; i < 5; i++) {
      const response = await call('/api/v1/files', { headers: plain.auth }, vars);
      expect(response.status).toBe(200);
      expect(rateHeaders(response)).toMatchObject({ limit: 5, remaining: 4 - i });
      expectAlignedReset(rateHeaders(response).reset, HOUR, before, Date.now());
    }
    await expectRefused(await call('/api/v1/files', { headers: plain.auth }, vars), 5, HOUR);

    // The key's own limit wins over the variable; its window still comes from the variable.
    for (let i = 0; i < 3; i++) expect((await call('/api/v1/files', { headers: tight.auth }, vars)).status).toBe(200);
    await expectRefused(await call('/api/v1/files', { headers: tight.auth }, vars), 3, HOUR);
  });
});

describe('when the limiter cannot be reached', () => {
  it.each(VERSIONS)('serves reads anyway (fail open), with the headers and a logged error (%s)', async (version) => {
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const limiter = unreachableLimiter();
    const { id, auth } = await createKey('open', { rateLimitRequests: 7, rateLimitWindowSeconds: HOUR });
    const before = Date.now();
    const response = await call(api(version, '/files'), { headers: auth }, { KEY_LIMITER: limiter.binding });
    expect(response.status).toBe(200);
    await response.body?.cancel();
    const headers = rateHeaders(response);
    expect(headers.limit).toBe(7);
    expect(headers.remaining).toBeLessThanOrEqual(7);
    expectAlignedReset(headers.reset, HOUR, before, Date.now());
    expect(limiter.calls).toContain('authorize');
    const lines = logged.mock.calls.map((args) => String(args[0]));
    expect(lines.some((line) => line.includes('rate limiter unreachable') && line.includes(id))).toBe(true);
  });

  it('serves a key that is over its limit while its object is down', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const { auth } = await createKey('over', { rateLimitRequests: 1, rateLimitWindowSeconds: HOUR });
    expect((await call('/api/v1/files', { headers: auth })).status).toBe(200);
    await expectRefused(await call('/api/v1/files', { headers: auth }), 1, HOUR);
    const down = { KEY_LIMITER: unreachableLimiter().binding };
    expect((await call('/api/v1/files', { headers: auth }, down)).status).toBe(200);
  });

  it.each(VERSIONS)(
    'takes a %s upload while the key’s object is down: the account’s object keeps the quota',
    async (version) => {
      vi.spyOn(console, 'error').mockImplementation(() => undefined);
      const limiter = unreachableLimiter();
      const { auth } = await createKey('key-down', {
        rateLimitRequests: 7,
        rateLimitWindowSeconds: HOUR,
        storageQuotaBytes: 100,
      });
      const upload = (content: string) =>
        call(
          api(version, '/upload'),
          { method: 'POST', headers: auth, body: form([{ filename: 'a.txt', type: 'text/plain', content }]) },
          { KEY_LIMITER: limiter.binding },
        );
      const stored = await upload('a'.repeat(64));
      expect(stored.status).toBe(201);
      // Still exact: the next 64 bytes do not fit the 100-byte quota.
      await expectError(await upload('b'.repeat(64)), 413, 'STORAGE_EXCEEDED', version);
      expect(limiter.calls).toEqual(['authorize', 'authorize']);
    },
  );

  it.each(VERSIONS)(
    'refuses a %s upload with 503 SERVICE_UNAVAILABLE and stores nothing when the account’s object is down (fail closed)',
    async (version) => {
      const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
      const accounts = unreachableObjects(env.ACCOUNT_STORAGE);
      const { id, auth } = await createKey('closed', { rateLimitRequests: 7, rateLimitWindowSeconds: HOUR });
      const body = form([{ filename: 'a.txt', type: 'text/plain', content: 'a'.repeat(64) }]);
      const down = { ACCOUNT_STORAGE: accounts.binding };
      const response = await call(api(version, '/upload'), { method: 'POST', headers: auth, body }, down);
      await expectError(response, 503, 'SERVICE_UNAVAILABLE', version);
      expect(rateHeaders(response).limit).toBe(7);
      await expectNothingStored(id);
      // The key's object admitted it; holding the file's bytes needed the account, which failed.
      expect(accounts.calls).toEqual(['reserve']);
      expect(logged).toHaveBeenCalled();
    },
  );

  it('fails each file of a bulk upload with SERVICE_UNAVAILABLE and stores nothing when the account’s object is down (fail closed)', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const { id, auth } = await createKey('closed-bulk', { rateLimitRequests: 7, rateLimitWindowSeconds: HOUR });
    const body = form([
      { name: 'files', filename: 'a.txt', type: 'text/plain', content: 'a'.repeat(64) },
      { name: 'files', filename: 'b.txt', type: 'text/plain', content: 'b'.repeat(64) },
    ]);
    const down = { ACCOUNT_STORAGE: unreachableObjects(env.ACCOUNT_STORAGE).binding };
    const response = await call('/api/v2/upload/bulk', { method: 'POST', headers: auth, body }, down);
    // Bulk answers 201 for a well-formed request, with the failure per file (api.md, v2 bulk).
    expect(response.status).toBe(201);
    expect(rateHeaders(response).limit).toBe(7);
    type Results = { data: { successful: number; results: { success: boolean; code?: string }[] } };
    const { data } = await readJson<Results>('v2', response);
    expect(data.successful).toBe(0);
    expect(data.results.map((result) => [result.success, result.code])).toEqual([
      [false, 'SERVICE_UNAVAILABLE'],
      [false, 'SERVICE_UNAVAILABLE'],
    ]);
    await expectNothingStored(id);
  });
});
