// Clear answers to mistakes: each message says what was wrong and, for limits, what the limit is.
// And the request log never carries a share token.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { call, createKey, type ErrorEnvelope, form, json, upload } from '../helpers';

afterEach(() => {
  vi.restoreAllMocks();
});

async function error(response: Response, status: number, code: string): Promise<ErrorEnvelope> {
  expect(response.status).toBe(status);
  const body = await json<ErrorEnvelope>(response);
  expect(body.code).toBe(code);
  return body;
}

describe('list query mistakes', () => {
  it.each([
    ['page=-1', 'page', 'page must be at least 1'],
    ['page=0', 'page', 'page must be at least 1'],
    ['limit=0', 'limit', 'limit must be at least 1'],
    ['limit=101', 'limit', 'limit must be at most 100'],
    ['limit=2.5', 'limit', 'limit must be a whole number'],
    ['page=1&page=2', 'page', 'page was given more than once'],
    ['limit=5&limit=5', 'limit', 'limit was given more than once'],
  ])('%s → 400 naming %s: "%s"', async (query, field, message) => {
    const { auth } = await createKey();
    for (const version of ['v1', 'v2']) {
      const body = await error(
        await call(`/api/${version}/files?${query}`, { headers: auth }),
        400,
        'VALIDATION_ERROR',
      );
      expect(body.details).toEqual([{ field, message }]);
      expect(body.error).toContain(message);
    }
  });
});

describe('413 messages state the limit', () => {
  it('FILE_TOO_LARGE names MAX_FILE_SIZE, whether refused from Content-Length or while streaming', async () => {
    const { auth } = await createKey();
    const overrides = { MAX_FILE_SIZE: '1048576' };
    const big = new Uint8Array(1_048_577).fill(65);
    const early = await call(
      '/api/v1/upload',
      { method: 'POST', headers: auth, body: form([{ filename: 'big.txt', content: new Uint8Array(2_000_000) }]) },
      overrides,
    );
    expect((await error(early, 413, 'FILE_TOO_LARGE')).error).toContain('1048576 bytes (1 MiB)');
    const streamed = await call(
      '/api/v2/upload',
      { method: 'POST', headers: auth, body: form([{ filename: 'big.txt', content: big }]) },
      overrides,
    );
    expect((await error(streamed, 413, 'FILE_TOO_LARGE')).error).toContain('1048576 bytes (1 MiB)');
  });

  it('STORAGE_EXCEEDED names the quota', async () => {
    const { auth } = await createKey('small quota', { storageQuotaBytes: 1_536 });
    const body = await error(
      await call('/api/v1/upload', {
        method: 'POST',
        headers: auth,
        body: form([{ filename: 'a.txt', content: 'x'.repeat(2_000) }]),
      }),
      413,
      'STORAGE_EXCEEDED',
    );
    expect(body.error).toContain('1536 bytes (1.5 KiB)');
  });
});

describe('bulk delete body', () => {
  it.each([
    ['text/plain', 'text/plain'],
    ['a form', 'application/x-www-form-urlencoded'],
  ])('sent as %s gets the 400 VALIDATION_ERROR envelope asking for JSON', async (_label, type) => {
    const { auth } = await createKey();
    const response = await call('/api/v2/files/bulk', {
      method: 'DELETE',
      headers: { ...auth, 'Content-Type': type },
      body: JSON.stringify({ ids: ['x'] }),
    });
    const body = await error(response, 400, 'VALIDATION_ERROR');
    expect(body.details).toEqual([{ field: 'body', message: expect.stringContaining('application/json') }]);
  });
});

describe('the request log', () => {
  it('names the share route, never the share token', async () => {
    const { auth } = await createKey();
    const { body } = await upload(auth, { filename: 'a.txt', content: 'secret link' });
    const token = new URL(body.data.shareUrl).pathname.split('/')[2] ?? '';
    expect(token).toHaveLength(32);
    const lines: string[] = [];
    vi.spyOn(console, 'log').mockImplementation((line: unknown) => void lines.push(String(line)));
    vi.spyOn(console, 'error').mockImplementation((line: unknown) => void lines.push(String(line)));
    for (const path of [
      `/share/${token}`,
      `/share/${token}/download`,
      `/share/${token}/view`,
      '/share/unknown-token',
    ]) {
      await (await call(path)).arrayBuffer();
    }
    const requests = lines.filter((line) => line.includes('"msg":"request"'));
    expect(requests).toHaveLength(4);
    expect(requests.join('\n')).not.toContain(token);
    expect(requests.join('\n')).not.toContain('unknown-token');
    expect(requests.map((line) => JSON.parse(line).path)).toEqual([
      '/share/:token',
      '/share/:token/download',
      '/share/:token/view',
      '/share/:token',
    ]);
  });
});
