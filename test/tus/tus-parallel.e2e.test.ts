// tus concatenation through the real tus-js-client against a real `wrangler dev`: parallelUploads
// (four partial uploads sent at once, then the final upload) stores one file whose bytes
// download back the same, whose id comes on the final's answer, and whose partials are no files.
import { createHash } from 'node:crypto';
import { Upload } from 'tus-js-client';
import { beforeAll, describe, expect, it } from 'vitest';
import { type SharedDevServer, sharedDevServer } from '../helpers/dev-server.ts';

const MIB = 1024 * 1024;
const SIZE = 6 * MIB + 12_345;

let server: SharedDevServer | undefined;
let auth: Record<string, string> = {};

/** `size` deterministic bytes (xorshift) that no type detection recognises. */
function deterministicBytes(size: number): Buffer {
  const out = Buffer.alloc(size);
  let state = 0x2545f491;
  for (let i = 0; i < size; i++) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    out[i] = state & 0xff;
  }
  out[0] = 0;
  return out;
}

beforeAll(async () => {
  server = await sharedDevServer('e2eServer');
  // The shared server's keys have room for polling the file's digest (every 100 ms) beside the upload.
  auth = { Authorization: `Bearer ${await server.createKey('tus parallel e2e')}` };
});

describe('tus-js-client parallelUploads against wrangler dev', () => {
  it('uploads a file in 4 parallel partial uploads and downloads the same bytes', async () => {
    const origin = server?.origin ?? '';
    const bytes = deterministicBytes(SIZE);
    const creations: string[] = [];
    const { fileId, finalConcat } = await new Promise<{ fileId: string; finalConcat: string }>((resolve, reject) => {
      const upload = new Upload(bytes, {
        endpoint: `${origin}/api/v2/uploads`,
        parallelUploads: 4,
        chunkSize: MIB,
        headers: auth,
        metadata: { filename: 'parallel.bin', filetype: 'application/octet-stream' },
        storeFingerprintForResuming: false,
        retryDelays: [250, 1000],
        onBeforeRequest(request) {
          if (request.getMethod() === 'POST') creations.push(request.getHeader('Upload-Concat') ?? '');
        },
        onSuccess: ({ lastResponse }) =>
          resolve({ fileId: lastResponse.getHeader('X-File-Id') ?? '', finalConcat: creations.at(-1) ?? '' }),
        onError: reject,
      });
      upload.start();
    });
    expect(creations.filter((header) => header === 'partial')).toHaveLength(4);
    expect(finalConcat).toMatch(/^final;/);
    expect(fileId).toMatch(/^[A-Za-z0-9_-]{22}$/);

    const download = await fetch(`${origin}/api/v2/files/${fileId}/download`, { headers: auth });
    expect(download.status).toBe(200);
    const downloaded = Buffer.from(await download.arrayBuffer());
    expect(downloaded.length).toBe(SIZE);
    expect(createHash('sha256').update(downloaded).digest('hex')).toBe(
      createHash('sha256').update(bytes).digest('hex'),
    );

    // One file (the partials are none), with its digest once it is computed.
    const listed = (await (await fetch(`${origin}/api/v2/files`, { headers: auth })).json()) as {
      data: { files: { id: string; size: number }[] };
    };
    expect(listed.data.files.map((file) => [file.id, file.size])).toEqual([[fileId, SIZE]]);
    let sha256: string | null = null;
    for (let tries = 0; tries < 50 && sha256 === null; tries++) {
      const record = (await (await fetch(`${origin}/api/v2/files/${fileId}`, { headers: auth })).json()) as {
        data: { sha256: string | null };
      };
      sha256 = record.data.sha256;
      if (sha256 === null) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
  });
});
