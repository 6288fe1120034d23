// tus-js-client through a file request's tusUrl against a real `wrangler dev`, without a key (and
// with the request's password, as HTTP Basic): 48 MiB in 8 MiB chunks, aborted part-way, resumed
// by a new client from the offset the server reports; the file lands in the owner's account with
// the request's id and the same SHA-256.
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Upload, type UploadOptions } from 'tus-js-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SharedDevServer, sharedDevServer } from '../helpers/dev-server.ts';
import { settledOffset } from '../helpers/tus-offset.ts';

const MIB = 1024 * 1024;
const SIZE = 48 * MIB;
const CHUNK = 8 * MIB;
const ABORT_AT = 20 * MIB;
const PASSWORD = 'tus e2e password';

let server: SharedDevServer | undefined;
let owner: Record<string, string> = {};
let dir = '';
let path = '';
let bytes: Buffer;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'edgeshare-request-tus-'));
  path = join(dir, 'big.bin');
  bytes = randomBytes(SIZE);
  writeFileSync(path, bytes);
  server = await sharedDevServer('e2eServer');
  owner = { Authorization: `Bearer ${await server.createKey('request tus e2e')}` };
});

afterAll(async () => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const basic = { Authorization: `Basic ${Buffer.from(`:${PASSWORD}`).toString('base64')}` };

const baseOptions = (): UploadOptions => ({
  chunkSize: CHUNK,
  uploadSize: SIZE,
  headers: basic,
  metadata: { filename: 'big.bin', filetype: 'application/octet-stream' },
  storeFingerprintForResuming: false,
  retryDelays: [250, 1000, 2000],
});

describe('tus-js-client through a request’s tusUrl', () => {
  it('uploads without a key, survives an abort, resumes, and the file is the owner’s with requestId', async () => {
    const origin = server?.origin ?? '';
    const made = await fetch(`${origin}/api/v2/requests`, {
      method: 'POST',
      headers: { ...owner, 'Content-Type': 'application/json' },
      body: JSON.stringify({ maxFiles: 1, password: PASSWORD }),
    });
    expect(made.status).toBe(201);
    const request = ((await made.json()) as { data: { id: string; tusUrl: string } }).data;

    const uploadUrl = await new Promise<string>((resolve, reject) => {
      let aborting = false;
      const upload: Upload = new Upload(readFileSync(path), {
        ...baseOptions(),
        endpoint: request.tusUrl,
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
    expect(uploadUrl.startsWith(`${request.tusUrl}/`)).toBe(true);

    const head = await fetch(uploadUrl, { method: 'HEAD', headers: { ...basic, 'Tus-Resumable': '1.0.0' } });
    expect(head.status).toBe(204);
    const offset = await settledOffset(uploadUrl, basic);
    expect(offset).toBeGreaterThanOrEqual(2 * CHUNK);
    expect(offset).toBeLessThan(SIZE);
    // Without the password the upload is not reachable.
    const refused = await fetch(uploadUrl, { method: 'HEAD', headers: { 'Tus-Resumable': '1.0.0' } });
    expect(refused.status).toBe(401);

    const patchOffsets: number[] = [];
    await new Promise<void>((resolve, reject) => {
      const upload = new Upload(readFileSync(path), {
        ...baseOptions(),
        uploadUrl,
        onBeforeRequest(each) {
          if (each.getMethod() === 'PATCH') patchOffsets.push(Number(each.getHeader('Upload-Offset')));
        },
        onSuccess: () => resolve(),
        onError: reject,
      });
      upload.start();
    });
    expect(patchOffsets[0]).toBe(offset);

    const receipt = await fetch(uploadUrl, { headers: basic });
    expect(receipt.status).toBe(200);
    const body = (await receipt.json()) as { data: Record<string, unknown> };
    expect(body.data).toEqual({
      success: true,
      name: 'big.bin',
      size: SIZE,
      mimeType: 'application/octet-stream',
      sha256: createHash('sha256').update(bytes).digest('hex'),
    });

    const listed = await fetch(`${origin}/api/v2/requests/${request.id}/files`, { headers: owner });
    const files = ((await listed.json()) as { data: { files: { id: string; requestId: string; size: number }[] } }).data
      .files;
    expect(files).toHaveLength(1);
    const [file] = files;
    expect(file?.requestId).toBe(request.id);
    const download = await fetch(`${origin}/api/v2/files/${file?.id}/download`, { headers: owner });
    const downloaded = Buffer.from(await download.arrayBuffer());
    expect(createHash('sha256').update(downloaded).digest('hex')).toBe(
      createHash('sha256').update(bytes).digest('hex'),
    );
    const state = (
      (await (await fetch(`${origin}/api/v2/requests/${request.id}`, { headers: owner })).json()) as {
        data: { fileCount: number; status: string };
      }
    ).data;
    expect(state).toMatchObject({ fileCount: 1, status: 'full' });
  });
});
