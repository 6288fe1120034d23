// The typed client (src/client/edgeshare.ts) against the real service under `wrangler dev`:
// every operation, a resumable upload through tus, and errors as EdgeshareError.
import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { EdgeshareClient, EdgeshareError } from '../../src/client/edgeshare.ts';
import { type SharedDevServer, sharedDevServer } from '../helpers/dev-server.ts';

let server: SharedDevServer;
let client: EdgeshareClient;

beforeAll(async () => {
  server = await sharedDevServer('e2eServer');
  client = new EdgeshareClient({ baseUrl: server.origin, apiKey: await server.createKey('client') });
}, 120_000);

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const text = (value: string, type = 'text/plain') => new Blob([value], { type });

describe('EdgeshareClient', () => {
  it('uploads, reads, lists, changes, downloads and deletes files', async () => {
    const uploaded = await client.upload(text('hello from the client'), { filename: 'hello.txt', expiresIn: 3600 });
    expect(uploaded).toMatchObject({ filename: expect.stringMatching(/^hello_/), size: 21, isPublic: true });

    // Without XMLHttpRequest (Node) onProgress reports the start and the end.
    const progress: [number, number][] = [];
    const reported = await client.upload(text('progress'), {
      filename: 'p.txt',
      onProgress: (...at) => progress.push(at),
    });
    expect(progress).toEqual([
      [0, 8],
      [8, 8],
    ]);
    await client.delete(reported.id);

    const record = await client.get(uploaded.id);
    expect(record).toMatchObject({ id: uploaded.id, originalName: 'hello.txt', downloadCount: 0 });
    expect(record.expiresAt).not.toBeNull();

    const bulk = await client.uploadMany([
      { file: text('alpha'), filename: 'alpha.txt' },
      { file: text('beta'), filename: 'beta.txt' },
    ]);
    expect(bulk).toMatchObject({ total: 2, successful: 2, failed: 0 });

    const page = await client.list({ q: 'ALPHA', sort: 'name' });
    expect(page.files.map((file) => file.originalName)).toEqual(['alpha.txt']);
    expect(page.pagination.total).toBe(1);
    const all = [];
    for await (const file of client.listAll({ limit: 1 })) all.push(file.originalName);
    expect(all.sort()).toEqual(['alpha.txt', 'beta.txt', 'hello.txt']);

    const changed = await client.update(uploaded.id, {
      isPublic: false,
      expiresIn: null,
      originalName: 'greeting.txt',
    });
    expect(changed).toMatchObject({ isPublic: false, expiresAt: null, originalName: 'greeting.txt' });
    expect((await fetch(changed.shareUrl)).status).toBe(404);

    const download = await client.download(uploaded.id);
    expect(await download.text()).toBe('hello from the client');
    const part = await client.download(uploaded.id, { range: 'bytes=6-9' });
    expect({ status: part.status, body: await part.text() }).toEqual({ status: 206, body: 'from' });

    const usage = await client.usage();
    expect(usage).toMatchObject({ files: 3, usedBytes: 21 + 5 + 4, reservedBytes: 0 });
    expect(usage.rateLimit.requests).toBeGreaterThan(0);

    const ids = bulk.results.flatMap((result) => (result.success ? [result.data.id] : []));
    expect(await client.deleteMany([...ids, 'not-an-id'])).toMatchObject({ deleted: 2, failed: 1 });
    expect(await client.delete(uploaded.id)).toEqual({ message: `File ${uploaded.id} deleted` });
    expect((await client.usage()).files).toBe(0);
  });

  it('uploads a large file resumably through tus, in chunks, and it downloads byte for byte', async () => {
    const bytes = new Uint8Array(12 * 1024 * 1024 + 3);
    for (let i = 0; i < bytes.length; i += 4096) bytes[i] = (i / 4096) % 251;
    const progress: number[] = [];
    const record = await client.uploadResumable(Buffer.from(bytes), {
      filename: 'big.bin',
      type: 'application/octet-stream',
      chunkSize: 5 * 1024 * 1024,
      isPublic: false,
      onProgress: (sent) => progress.push(sent),
    });
    expect(record).toMatchObject({ originalName: 'big.bin', size: bytes.length, isPublic: false });
    expect(progress.at(-1)).toBe(bytes.length);
    const download = await client.download(record.id);
    expect(sha256(new Uint8Array(await download.arrayBuffer()))).toBe(sha256(bytes));
    await client.delete(record.id);
  }, 60_000);

  it('throws EdgeshareError with the API’s status, code and message', async () => {
    const missing = await client.get('AAAAAAAAAAAAAAAAAAAAAA').catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(EdgeshareError);
    expect(missing).toMatchObject({ status: 404, code: 'FILE_NOT_FOUND', message: 'File not found' });
    const invalid = await client.list({ limit: 1000 }).catch((error: unknown) => error);
    expect(invalid).toMatchObject({ status: 400, code: 'VALIDATION_ERROR' });
    const stranger = new EdgeshareClient({ baseUrl: server.origin, apiKey: `esk_${'x'.repeat(43)}` });
    expect(await stranger.usage().catch((error: unknown) => error)).toMatchObject({
      status: 401,
      code: 'UNAUTHORIZED',
    });
    // A tus request the server refuses is an EdgeshareError too, with tus-js-client's error as its cause.
    const refused = await stranger
      .uploadResumable(Buffer.from('resumable'), { filename: 'r.txt', tus: { retryDelays: null } })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(EdgeshareError);
    expect(refused).toMatchObject({ status: 401, code: 'UNAUTHORIZED', cause: expect.any(Error) });
  });
});
