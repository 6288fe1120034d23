// A large upload through the real tus-js-client against a real `wrangler dev`: 160 MiB in 20 MiB
// chunks, aborted part-way, resumed by a new client instance from the offset the server reports,
// and downloaded back with the same SHA-256.
import { createHash } from 'node:crypto';
import { closeSync, createReadStream, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type HttpRequest, Upload, type UploadOptions } from 'tus-js-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SharedDevServer, sharedDevServer } from '../helpers/dev-server.ts';
import { settledOffset } from '../helpers/tus-offset.ts';

const MIB = 1024 * 1024;
const SIZE = 160 * MIB;
const CHUNK = 20 * MIB;
// In the middle of the third chunk: the server keeps the bytes that arrived (unaligned).
const ABORT_AT = 50 * MIB;

let server: SharedDevServer | undefined;
let auth: Record<string, string> = {};
let dir = '';
let path = '';
let expectedSha = '';

/** `size` deterministic bytes (xorshift, one 1 MiB block at a time) written to `file`; returns their SHA-256. */
function writeDeterministicFile(file: string, size: number): string {
  const hash = createHash('sha256');
  const block = new Uint32Array(MIB / 4);
  let state = 0x9e3779b9;
  const fd = openSync(file, 'w');
  try {
    for (let written = 0; written < size; written += MIB) {
      for (let i = 0; i < block.length; i++) {
        state ^= state << 13;
        state ^= state >>> 17;
        state ^= state << 5;
        block[i] = state >>> 0;
      }
      const bytes = new Uint8Array(block.buffer, 0, Math.min(MIB, size - written));
      writeSync(fd, bytes);
      hash.update(bytes);
    }
  } finally {
    closeSync(fd);
  }
  return hash.digest('hex');
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'edgeshare-tus-'));
  path = join(dir, 'big.bin');
  expectedSha = writeDeterministicFile(path, SIZE);
  server = await sharedDevServer('e2eServer');
  // The shared server's keys have room for polling the offset (every 100 ms, to a 45 s deadline).
  auth = { Authorization: `Bearer ${await server.createKey('tus e2e')}` };
});

afterAll(async () => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const baseOptions = (): UploadOptions => ({
  chunkSize: CHUNK,
  uploadSize: SIZE,
  headers: auth,
  metadata: { filename: 'big.bin', filetype: 'application/octet-stream' },
  // No fingerprint storage in Node tests: the second client is given the upload's URL.
  storeFingerprintForResuming: false,
  retryDelays: [250, 1000, 2000],
});

async function serverOffset(url: string): Promise<number> {
  const response = await fetch(url, { method: 'HEAD', headers: { ...auth, 'Tus-Resumable': '1.0.0' } });
  expect(response.status).toBe(204);
  return Number(response.headers.get('upload-offset'));
}

describe('tus-js-client against wrangler dev', () => {
  it('uploads 160 MiB in 20 MiB chunks, survives an abort, resumes from the server’s offset, and downloads the same bytes', async () => {
    const origin = server?.origin ?? '';

    // The first client: aborted in the middle of its third chunk.
    const uploadUrl = await new Promise<string>((resolve, reject) => {
      let aborting = false;
      const upload: Upload = new Upload(createReadStream(path), {
        ...baseOptions(),
        endpoint: `${origin}/api/v2/uploads`,
        onProgress(sent) {
          if (aborting || sent < ABORT_AT) return;
          aborting = true;
          upload.abort().then(() => resolve(upload.url ?? ''), reject);
        },
        onSuccess: () => reject(new Error('the upload finished before it was aborted')),
        onError: reject,
      });
      upload.start();
    });
    expect(uploadUrl).toMatch(new RegExp(`^${origin}/api/v2/uploads/[A-Za-z0-9_-]{22}$`));

    // The server kept what it received: at least the two acknowledged chunks, perhaps more of
    // the third (its connection ended mid-body, and the bytes that arrived are kept).
    let offset = await serverOffset(uploadUrl);
    for (let tries = 0; tries < 40 && offset % CHUNK === 0 && offset < 3 * CHUNK; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      offset = await serverOffset(uploadUrl);
    }
    offset = await settledOffset(uploadUrl, auth);
    expect(offset).toBeGreaterThanOrEqual(2 * CHUNK);
    expect(offset).toBeLessThan(SIZE);

    // A new client instance, given only the upload's URL: it asks the offset and goes on from there.
    const patchOffsets: number[] = [];
    const headOffsets: number[] = [];
    const fileId = await new Promise<string>((resolve, reject) => {
      let id = '';
      const upload = new Upload(createReadStream(path), {
        ...baseOptions(),
        uploadUrl,
        onBeforeRequest(request: HttpRequest) {
          if (request.getMethod() === 'PATCH') patchOffsets.push(Number(request.getHeader('Upload-Offset')));
        },
        onAfterResponse(request, response) {
          id = response.getHeader('X-File-Id') ?? id;
          if (request.getMethod() === 'HEAD') headOffsets.push(Number(response.getHeader('Upload-Offset')));
        },
        onSuccess: () => resolve(id),
        onError: reject,
      });
      upload.start();
    });
    // It went on from the offset the server reported to it: the settled one, or more if bytes of
    // the aborted PATCH were still on their way then (a loaded machine), never less.
    expect(patchOffsets[0]).toBe(headOffsets[0]);
    expect(headOffsets[0]).toBeGreaterThanOrEqual(offset);
    expect(patchOffsets.every((at, i) => i === 0 || at > (patchOffsets[i - 1] ?? 0))).toBe(true);
    expect(fileId).toBe(uploadUrl.split('/').pop());

    // The file is an ordinary file: its record, and the same bytes back.
    const record = await fetch(`${origin}/api/v2/uploads/${fileId}`, { headers: auth });
    expect(record.status).toBe(200);
    expect(((await record.json()) as { data: { size: number } }).data.size).toBe(SIZE);
    const download = await fetch(`${origin}/api/v2/files/${fileId}/download`, { headers: auth });
    expect(download.status).toBe(200);
    const hash = createHash('sha256');
    for await (const chunk of download.body as unknown as AsyncIterable<Uint8Array>) hash.update(chunk);
    expect(hash.digest('hex')).toBe(expectedSha);
  }, 150_000);

  it('keeps the bytes of a PATCH whose connection drops mid-body, and frees the upload for the next one', async () => {
    const origin = server?.origin ?? '';
    const length = 24 * MIB;
    const create = await fetch(`${origin}/api/v2/uploads`, {
      method: 'POST',
      headers: {
        ...auth,
        'Tus-Resumable': '1.0.0',
        'Upload-Length': String(length),
        'Upload-Metadata': `filename ${Buffer.from('cut.bin').toString('base64')}`,
      },
    });
    expect(create.status).toBe(201);
    const url = create.headers.get('location') ?? '';
    const sent = 11 * MIB + 12_345;
    const body = Buffer.alloc(sent, 7);
    // A PATCH that announces the whole file, sends part of it, and then loses its connection:
    // once the server has recorded its first 8 MiB part (so the PATCH is under way, whatever the
    // load) and the rest has left this process.
    await new Promise<void>((resolve) => {
      const req = request(url, {
        method: 'PATCH',
        headers: {
          ...auth,
          'Tus-Resumable': '1.0.0',
          'Upload-Offset': '0',
          'Content-Type': 'application/offset+octet-stream',
          'Content-Length': String(length),
        },
      });
      req.on('error', () => resolve());
      const written = new Promise<void>((done) => req.write(body, () => done()));
      const partRecorded = (async () => {
        for (const deadline = Date.now() + 45_000; Date.now() < deadline; ) {
          if ((await serverOffset(url)) >= 8 * MIB) return;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      })();
      Promise.all([written, partRecorded]).then(() => setTimeout(() => req.destroy(), 1_000));
    });
    // Every byte that reached the Worker is kept: the recorded part and what followed it (all of
    // `sent` on an idle machine; bytes still in wrangler dev's proxy when the connection dropped
    // never arrived, so under load the kept offset may end a little short of it).
    const offset = await settledOffset(url, auth);
    expect(offset).toBeGreaterThanOrEqual(8 * MIB);
    expect(offset).toBeLessThanOrEqual(sent);
    // The upload is free again for the next PATCH, which a real client retries while the dropped
    // one still holds its lease (409): polled to a deadline.
    let rest: Response | undefined;
    for (const deadline = Date.now() + 45_000; Date.now() < deadline; ) {
      // From the offset HEAD reports now (as a client does), which is the settled one unless a
      // last byte of the dropped PATCH landed since.
      const at = await serverOffset(url);
      rest = await fetch(url, {
        method: 'PATCH',
        headers: {
          ...auth,
          'Tus-Resumable': '1.0.0',
          'Upload-Offset': String(at),
          'Content-Type': 'application/offset+octet-stream',
        },
        body: Buffer.alloc(length - at, 7),
      });
      if (rest.status !== 409) break;
      await rest.body?.cancel();
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(rest?.status).toBe(204);
    expect(rest?.headers.get('x-file-id')).toBe(url.split('/').pop());
  }, 120_000);
});
