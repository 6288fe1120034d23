// GET /api/v2/usage: the key's account (used, reserved) and its limits, from its own object.
import { env } from 'cloudflare:test';
import { describe, expect, it, vi } from 'vitest';
import { getConfig } from '../../src/config';
import { expectPerfValue } from '../helpers/files';
import { expectError, json } from '../helpers/responses';
import { eventually, gatedBody, textBytes } from '../helpers/storage';
import {
  type Auth,
  filePartHeaders,
  MULTIPART,
  rawMultipart,
  TEST_BOUNDARY,
  textFile,
  uploadOk,
} from '../helpers/upload';
import { call, createKey, type TestEnv } from '../helpers/worker';

type Usage = {
  usedBytes: number;
  reservedBytes: number;
  quotaBytes: number;
  files: number;
  reservedFiles: number;
  maxFiles: number;
  rateLimit: { requests: number; windowSeconds: number };
};

async function usageOf(auth: Auth, overrides: Partial<TestEnv> = {}): Promise<Usage> {
  const response = await call('/api/v2/usage', { headers: auth }, overrides);
  const body = await json<{ success: boolean; data: Usage }>(response);
  expect(response.status, JSON.stringify(body)).toBe(200);
  expectPerfValue(body);
  expect(Object.keys(body).sort()).toEqual(['_perf', 'data', 'success']);
  return body.data;
}

const config = getConfig(env);

describe('GET /api/v2/usage', () => {
  it('shows a new key: nothing used, the configured limits', async () => {
    const { auth } = await createKey();
    expect(await usageOf(auth)).toEqual({
      usedBytes: 0,
      reservedBytes: 0,
      quotaBytes: config.STORAGE_QUOTA_BYTES,
      files: 0,
      reservedFiles: 0,
      maxFiles: config.MAX_FILES_PER_KEY,
      rateLimit: { requests: config.RATE_LIMIT_REQUESTS, windowSeconds: config.RATE_LIMIT_WINDOW_SECONDS },
    });
  });

  it("shows the key's own limits when it has overrides", async () => {
    const { auth } = await createKey('limited', {
      storageQuotaBytes: 5_000,
      maxFiles: 7,
      rateLimitRequests: 42,
      rateLimitWindowSeconds: 30,
    });
    expect(await usageOf(auth)).toMatchObject({
      quotaBytes: 5_000,
      maxFiles: 7,
      rateLimit: { requests: 42, windowSeconds: 30 },
    });
  });

  it('follows uploads, bulk uploads and deletes', async () => {
    const { auth } = await createKey('busy', { rateLimitRequests: 10_000 });
    const one = await uploadOk('v2', auth, textFile('one.txt', 'a'.repeat(1_000)));
    await uploadOk('v2', auth, textFile('two.txt', 'b'.repeat(234)));
    expect(await usageOf(auth)).toMatchObject({ usedBytes: 1_234, files: 2, reservedBytes: 0, reservedFiles: 0 });
    await call(`/api/v2/files/${one.id}`, { method: 'DELETE', headers: auth });
    expect(await usageOf(auth)).toMatchObject({ usedBytes: 234, files: 1 });
  });

  it('shows what an upload in progress holds, and nothing once it is stored', async () => {
    const { auth } = await createKey('holding', { rateLimitRequests: 10_000 });
    const body = rawMultipart([{ headers: filePartHeaders('big.txt', 'text/plain'), content: textBytes(80_000) }]);
    const { stream, open } = gatedBody(body, `--${TEST_BOUNDARY}--`);
    const pending = call('/api/v2/upload', { method: 'POST', headers: { ...MULTIPART, ...auth }, body: stream });
    await eventually(async () => (await usageOf(auth)).reservedBytes > 0);
    expect(await usageOf(auth)).toMatchObject({ usedBytes: 0, files: 0, reservedFiles: 1 });
    open();
    expect((await pending).status).toBe(201);
    expect(await usageOf(auth)).toMatchObject({ usedBytes: 80_000, files: 1, reservedBytes: 0, reservedFiles: 0 });
  });

  it('shows a new quota at once when the admin API changes it', async () => {
    const { id, auth } = await createKey('changed');
    const response = await call(`/admin/keys/${id}`, {
      method: 'PATCH',
      headers: { Authorization: `Bearer ${env.ADMIN_TOKEN}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ storageQuotaBytes: 1234, maxFiles: 3 }),
    });
    expect(response.status).toBe(200);
    expect(await usageOf(auth)).toMatchObject({ quotaBytes: 1234, maxFiles: 3 });
  });

  it('counts as a request and carries the rate-limit headers', async () => {
    // An hour's window: the three requests never straddle the start of a new one (windows are
    // aligned to multiples of their length).
    const { auth } = await createKey('counted', { rateLimitRequests: 2, rateLimitWindowSeconds: 3600 });
    const first = await call('/api/v2/usage', { headers: auth });
    expect(first.headers.get('x-ratelimit-limit')).toBe('2');
    expect(first.headers.get('x-ratelimit-remaining')).toBe('1');
    await first.arrayBuffer();
    await call('/api/v2/usage', { headers: auth });
    const third = await call('/api/v2/usage', { headers: auth });
    await expectError(third, 429, 'RATE_LIMITED');
  });

  it('answers 503 when the key’s object cannot be reached (the key is still checked)', async () => {
    // The outage is logged, as it should be; keep that expected line out of the test output.
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const { auth } = await createKey();
    const unreachable = {
      getByName: () => {
        throw new Error('injected: object unreachable');
      },
    };
    const response = await call('/api/v2/usage', { headers: auth }, { KEY_LIMITER: unreachable });
    await expectError(response, 503, 'SERVICE_UNAVAILABLE');
    const bad = await call('/api/v2/usage', { headers: { Authorization: 'Bearer esk_nope' } });
    await expectError(bad, 401, 'UNAUTHORIZED');
    expect(logged.mock.calls.some(([line]) => String(line).includes('rate limiter unreachable'))).toBe(true);
    logged.mockRestore();
  });

  it('is v2 only, and GET only', async () => {
    const { auth } = await createKey();
    await expectError(await call('/api/v1/usage', { headers: auth }), 404, 'NOT_FOUND');
    const post = await call('/api/v2/usage', { method: 'POST', headers: auth });
    await expectError(post, 405, 'METHOD_NOT_ALLOWED');
    expect(post.headers.get('allow')).toBe('GET');
  });
});
