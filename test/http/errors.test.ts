import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ErrorBody } from '../helpers/records';
import { upload } from '../helpers/upload';
import { call, createKey } from '../helpers/worker';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const RATE_LIMIT_HEADERS = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'];
// An hour-long window: a test never straddles a window boundary, so counts cannot reset mid-test.
const STEADY_WINDOW = { rateLimitWindowSeconds: 3600 };

/** Checks the error envelope and returns it. */
async function expectError(response: Response, status: number, code: string): Promise<ErrorBody> {
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  const text = await response.text();
  expect(text).not.toMatch(/\n\s+at /);
  expect(text).not.toMatch(/\.ts:\d+/);
  const body = JSON.parse(text) as ErrorBody;
  expect(typeof body.error).toBe('string');
  expect(body.error.length).toBeGreaterThan(0);
  expect(body.code).toBe(code);
  return body;
}

const remaining = (response: Response) => Number(response.headers.get('x-ratelimit-remaining'));

afterEach(() => {
  vi.restoreAllMocks();
});

describe('unknown routes and wrong methods', () => {
  it('answers 404 NOT_FOUND for an unknown API path with a valid key', async () => {
    const { auth } = await createKey();
    await expectError(await call('/api/v1/nope', { headers: auth }), 404, 'NOT_FOUND');
    await expectError(await call('/api/v1/files/abc/download/more', { headers: auth }), 404, 'NOT_FOUND');
  });

  it('answers 404 NOT_FOUND for an unknown path outside the API, with no key', async () => {
    await expectError(await call('/nope'), 404, 'NOT_FOUND');
  });

  it.each([
    ['PUT', '/api/v1/files/AAAAAAAAAAAAAAAAAAAAAA', ['GET', 'DELETE']],
    ['PATCH', '/api/v1/upload', ['POST']],
    ['POST', '/api/v1/files', ['GET']],
    ['DELETE', '/api/v1/files', ['GET']],
    ['POST', '/api/v1/files/AAAAAAAAAAAAAAAAAAAAAA/download', ['GET']],
  ])('answers %s %s with 405 METHOD_NOT_ALLOWED and an Allow header', async (method, path, allowed) => {
    const { auth } = await createKey();
    const response = await call(path, { method, headers: auth });
    await expectError(response, 405, 'METHOD_NOT_ALLOWED');
    const allow = (response.headers.get('allow') ?? '').split(/,\s*/);
    for (const name of allowed) expect(allow).toContain(name);
    expect(allow).not.toContain(method);
  });

  it('asks for a key before saying anything about the route', async () => {
    await expectError(await call('/api/v1/nope'), 401, 'UNAUTHORIZED');
    await expectError(await call('/api/v1/upload', { method: 'PATCH' }), 401, 'UNAUTHORIZED');
  });
});

describe('error bodies', () => {
  it('uses the JSON envelope for 400, 401, 404 and 405 alike', async () => {
    const { auth } = await createKey();
    await expectError(await call('/api/v1/files?page=0', { headers: auth }), 400, 'VALIDATION_ERROR');
    await expectError(await call('/api/v1/files', { headers: { Authorization: 'Bearer nope' } }), 401, 'UNAUTHORIZED');
    await expectError(await call('/api/v1/files/AAAAAAAAAAAAAAAAAAAAAA', { headers: auth }), 404, 'FILE_NOT_FOUND');
    await expectError(await call('/api/v1/files', { method: 'PUT', headers: auth }), 405, 'METHOD_NOT_ALLOWED');
  });

  it('answers a bad configuration value with a bare 500 INTERNAL_ERROR that leaks nothing', async () => {
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const { auth } = await createKey();
    const response = await call(
      '/api/v1/files',
      { headers: { ...auth, 'X-Request-Id': 'bad-config-1' } },
      { MAX_FILE_SIZE: 'abc' },
    );
    const body = await expectError(response, 500, 'INTERNAL_ERROR');
    const text = JSON.stringify(body);
    expect(text).not.toContain('MAX_FILE_SIZE');
    expect(text).not.toContain('abc');
    expect(text).not.toContain('configuration');
    expect(body.error).toBe('Internal server error');
    expect(response.headers.get('x-request-id')).toBe('bad-config-1');
    // The operator still learns what went wrong, under the same request id.
    const lines = logged.mock.calls.map((args) => String(args[0]));
    expect(lines.some((line) => line.includes('MAX_FILE_SIZE') && line.includes('bad-config-1'))).toBe(true);
  });
});

describe('X-Request-Id', () => {
  it('is a fresh UUID on every response when the client sends none', async () => {
    const { auth } = await createKey();
    const responses = [
      await call('/health'),
      await call('/nope'),
      await call('/api/v1/files'),
      await call('/api/v1/files', { headers: auth }),
      await call('/api/v1/files', { method: 'PUT', headers: auth }),
      await call('/share/unknown'),
    ];
    const ids = responses.map((response) => response.headers.get('x-request-id') ?? '');
    for (const id of ids) expect(id).toMatch(UUID);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('echoes a valid client id, in the header and in error bodies', async () => {
    const ok = await call('/health', { headers: { 'X-Request-Id': 'req-12345678' } });
    expect(ok.headers.get('x-request-id')).toBe('req-12345678');
    const failed = await call('/api/v1/files', { headers: { 'X-Request-Id': 'req-12345678' } });
    expect(failed.headers.get('x-request-id')).toBe('req-12345678');
    expect(((await failed.json()) as ErrorBody).requestId).toBe('req-12345678');
  });

  it.each([
    ['spaces', 'req 1234 5678'],
    ['500 characters', 'a'.repeat(500)],
    ['too short', 'abc'],
    ['markup', '<script>x</script>'],
  ])('replaces a client id with %s', async (_label, sent) => {
    const response = await call('/health', { headers: { 'X-Request-Id': sent } });
    expect(response.headers.get('x-request-id')).toMatch(UUID);
  });
});

describe('GET /health', () => {
  it('answers 200 without a key', async () => {
    const response = await call('/health');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  });
});

describe('CORS', () => {
  it('answers a preflight without a key and does not count it', async () => {
    const { auth } = await createKey('cors', { rateLimitRequests: 2, ...STEADY_WINDOW });
    for (let i = 0; i < 3; i++) {
      const preflight = await call('/api/v1/files', {
        method: 'OPTIONS',
        headers: {
          ...auth,
          Origin: 'https://app.example',
          'Access-Control-Request-Method': 'GET',
          'Access-Control-Request-Headers': 'authorization',
        },
      });
      expect([200, 204]).toContain(preflight.status);
      expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
      expect(preflight.headers.get('access-control-allow-methods')).toMatch(/\bGET\b/);
      expect(preflight.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('authorization');
      for (const name of RATE_LIMIT_HEADERS) expect(preflight.headers.has(name)).toBe(false);
      expect(preflight.headers.get('x-request-id')).toMatch(UUID);
    }
    const keyless = await call('/api/v1/upload', {
      method: 'OPTIONS',
      headers: { Origin: 'https://app.example', 'Access-Control-Request-Method': 'POST' },
    });
    expect([200, 204]).toContain(keyless.status);

    const first = await call('/api/v1/files', { headers: auth });
    expect(first.status).toBe(200);
    expect(remaining(first)).toBe(1);
    expect((await call('/api/v1/files', { headers: auth })).status).toBe(200);
  });

  it('lets through every request header the API honours, and exposes what clients read', async () => {
    const preflight = await call('/api/v2/files/x/download', {
      method: 'OPTIONS',
      headers: {
        Origin: 'https://app.example',
        'Access-Control-Request-Method': 'GET',
        'Access-Control-Request-Headers': 'authorization,range,if-none-match,if-modified-since,if-range,x-request-id',
      },
    });
    const allowed = (preflight.headers.get('access-control-allow-headers') ?? '').toLowerCase().split(/,\s*/);
    for (const name of ['authorization', 'range', 'if-none-match', 'if-modified-since', 'if-range', 'x-request-id']) {
      expect(allowed).toContain(name);
    }
    const { auth } = await createKey();
    const response = await call('/api/v1/files', { headers: { ...auth, Origin: 'https://app.example' } });
    const exposed = (response.headers.get('access-control-expose-headers') ?? '').toLowerCase().split(/,\s*/);
    for (const name of ['etag', 'content-range', 'accept-ranges', 'content-length', 'retry-after', 'x-request-id']) {
      expect(exposed).toContain(name);
    }
  });

  it('exposes the rate-limit headers, Content-Disposition and Server-Timing on normal responses', async () => {
    const { auth } = await createKey();
    const response = await call('/api/v1/files', { headers: { ...auth, Origin: 'https://app.example' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    const exposed = (response.headers.get('access-control-expose-headers') ?? '').toLowerCase().split(/,\s*/);
    for (const name of [...RATE_LIMIT_HEADERS, 'content-disposition', 'server-timing']) {
      expect(exposed).toContain(name);
    }
  });

  it('puts CORS headers on error responses too', async () => {
    const response = await call('/api/v1/files', { headers: { Origin: 'https://app.example' } });
    expect(response.status).toBe(401);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('allows only the configured origins when CORS_ORIGINS is set', async () => {
    const { auth } = await createKey();
    const origins = { CORS_ORIGINS: 'https://app.example, https://other.example' };
    const allowed = await call('/api/v1/files', { headers: { ...auth, Origin: 'https://other.example' } }, origins);
    expect(allowed.headers.get('access-control-allow-origin')).toBe('https://other.example');
    const refused = await call('/api/v1/files', { headers: { ...auth, Origin: 'https://evil.example' } }, origins);
    expect(refused.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('rate-limit headers', () => {
  it('are on every authenticated response: 200, 201, 400, 404 and 405', async () => {
    const { auth } = await createKey();
    const { response: uploaded } = await upload('v1', auth);
    const responses = [
      uploaded,
      await call('/api/v1/files', { headers: auth }),
      await call('/api/v1/files?limit=1000', { headers: auth }),
      await call('/api/v1/files/AAAAAAAAAAAAAAAAAAAAAA', { headers: auth }),
      await call('/api/v1/files', { method: 'PUT', headers: auth }),
      await call('/api/v1/nope', { headers: auth }),
    ];
    expect(responses.map((response) => response.status)).toEqual([201, 200, 400, 404, 405, 404]);
    for (const response of responses) {
      for (const name of RATE_LIMIT_HEADERS) expect(response.headers.get(name), name).toMatch(/^\d+$/);
      expect(response.headers.get('x-ratelimit-limit')).toBe('100');
    }
  });

  it('give Reset as an integer Unix time in seconds within the coming window', async () => {
    const { auth } = await createKey();
    const before = Math.floor(Date.now() / 1000);
    const response = await call('/api/v1/files', { headers: auth });
    const after = Math.ceil(Date.now() / 1000);
    const reset = response.headers.get('x-ratelimit-reset') ?? '';
    expect(reset).toMatch(/^\d{10}$/);
    expect(Number(reset)).toBeGreaterThan(before);
    expect(Number(reset)).toBeLessThanOrEqual(after + 60);
  });

  it('count Remaining down by one per request', async () => {
    const { auth } = await createKey('counting', STEADY_WINDOW);
    const seen: number[] = [];
    for (let i = 0; i < 4; i++) seen.push(remaining(await call('/api/v1/files', { headers: auth })));
    expect(seen).toEqual([99, 98, 97, 96]);
  });

  it("refuse the request over a key's own limit with 429 RATE_LIMITED and Retry-After", async () => {
    const { auth } = await createKey('tight', { rateLimitRequests: 3, ...STEADY_WINDOW });
    for (let i = 0; i < 3; i++) expect((await call('/api/v1/files', { headers: auth })).status).toBe(200);
    const refused = await call('/api/v1/files', { headers: auth });
    await expectError(refused, 429, 'RATE_LIMITED');
    const retryAfter = refused.headers.get('retry-after') ?? '';
    expect(retryAfter).toMatch(/^\d+$/);
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
    expect(Number(retryAfter)).toBeLessThanOrEqual(3600);
    expect(refused.headers.get('x-ratelimit-limit')).toBe('3');
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(refused.headers.get('x-ratelimit-reset')).toMatch(/^\d+$/);
    expect(refused.headers.get('x-request-id')).toMatch(UUID);
    // Refused requests do not reach the route: an upload is refused just the same.
    const { response: upload429 } = await upload('v1', auth);
    expect(upload429.status).toBe(429);
  });

  it("are kept per key: one key's traffic does not use up another's", async () => {
    const busy = await createKey('busy', { rateLimitRequests: 2, ...STEADY_WINDOW });
    const quiet = await createKey('quiet', { rateLimitRequests: 2, ...STEADY_WINDOW });
    for (let i = 0; i < 3; i++) await call('/api/v1/files', { headers: busy.auth });
    expect((await call('/api/v1/files', { headers: busy.auth })).status).toBe(429);
    const response = await call('/api/v1/files', { headers: quiet.auth });
    expect(response.status).toBe(200);
    expect(remaining(response)).toBe(1);
  });

  it('are absent from 401 responses', async () => {
    const attempts: Record<string, string>[] = [
      {},
      { Authorization: 'Bearer esk_unknown' },
      { Authorization: `Bearer esk_${'x'.repeat(43)}` },
    ];
    for (const headers of attempts) {
      const response = await call('/api/v1/files', { headers });
      await expectError(response, 401, 'UNAUTHORIZED');
      expect(response.headers.get('www-authenticate')).toMatch(/^Bearer/);
      for (const name of RATE_LIMIT_HEADERS) expect(response.headers.has(name)).toBe(false);
    }
  });
});
