// The raw-body upload as transfer.sh users send it (`curl -T file URL/`), and the typed client's
// raw upload and verified download, against the real service under `wrangler dev`.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EdgeshareClient, EdgeshareError } from '../../src/client/edgeshare.ts';
import { type SharedDevServer, sharedDevServer } from '../helpers/dev-server.ts';

const run = promisify(execFile);
let server: SharedDevServer;
let key: string;
let dir: string;

beforeAll(async () => {
  server = await sharedDevServer('e2eServer');
  key = await server.createKey('raw');
  dir = mkdtempSync(join(tmpdir(), 'edgeshare-raw-'));
}, 120_000);

afterAll(async () => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const reprDigest = (bytes: Uint8Array) => `sha-256=:${createHash('sha256').update(bytes).digest('base64')}:`;

/** curl, printing the body then the status on its own last line. */
async function curl(args: string[]): Promise<{ status: number; body: Record<string, unknown> }> {
  const { stdout } = await run('curl', ['-sS', '-w', '\n%{http_code}', '-H', `Authorization: Bearer ${key}`, ...args]);
  const lines = stdout.trimEnd().split('\n');
  const status = Number(lines.pop());
  return { status, body: JSON.parse(lines.join('\n')) as Record<string, unknown> };
}

describe('curl -T', () => {
  it('uploads a file to URL/ (curl appends its name) in one put, with its SHA-256', async () => {
    const bytes = new TextEncoder().encode('plain text sent the transfer.sh way\n'.repeat(5000));
    const path = join(dir, 'Notes 2026.txt');
    writeFileSync(path, bytes);
    const { status, body } = await curl(['-T', path, `${server.origin}/api/v2/upload/`]);
    expect(status, JSON.stringify(body)).toBe(201);
    const data = body.data as { id: string; size: number; sha256: string; mimeType: string };
    expect(data).toMatchObject({ size: bytes.length, sha256: sha256(bytes), mimeType: 'text/plain' });

    const record = await curl([`${server.origin}/api/v2/files/${data.id}`]);
    expect((record.body.data as { originalName: string }).originalName).toBe('Notes 2026.txt');
    const head = await run('curl', [
      '-sS',
      '-I',
      '-H',
      `Authorization: Bearer ${key}`,
      `${server.origin}/api/v2/files/${data.id}/download`,
    ]);
    expect(head.stdout.toLowerCase()).toContain(`repr-digest: ${reprDigest(bytes).toLowerCase()}`);
  });

  it('uploads a chunked body (curl -T - from stdin) and refuses a wrong Repr-Digest', async () => {
    const bytes = new TextEncoder().encode('streamed from a pipe\n'.repeat(20_000));
    const path = join(dir, 'piped.txt');
    writeFileSync(path, bytes);
    const chunked = await run('sh', [
      '-c',
      `cat "${path}" | curl -sS -w '\\n%{http_code}' -H "Authorization: Bearer ${key}" -T - "${server.origin}/api/v2/upload/piped.txt?isPublic=false"`,
    ]);
    const lines = chunked.stdout.trimEnd().split('\n');
    expect(lines.pop()).toBe('201');
    const data = (JSON.parse(lines.join('\n')) as { data: { sha256: string; isPublic: boolean; size: number } }).data;
    expect(data).toMatchObject({ sha256: sha256(bytes), isPublic: false, size: bytes.length });

    const wrong = await curl([
      '-T',
      path,
      '-H',
      `Repr-Digest: ${reprDigest(new Uint8Array([1]))}`,
      `${server.origin}/api/v2/upload/`,
    ]);
    expect(wrong.status).toBe(400);
    expect(wrong.body.code).toBe('DIGEST_MISMATCH');
  });
});

describe('the typed client', () => {
  it('uploads raw, and verifies Repr-Digest on download', async () => {
    const client = new EdgeshareClient({ baseUrl: server.origin, apiKey: key });
    const bytes = new TextEncoder().encode('verified bytes\n'.repeat(1000));
    const uploaded = await client.uploadRaw(bytes, { filename: 'v.txt', sha256: sha256(bytes) });
    expect(uploaded.sha256).toBe(sha256(bytes));
    const response = await client.download(uploaded.id);
    expect(sha256(new Uint8Array(await response.arrayBuffer()))).toBe(sha256(bytes));

    // A proxy that changed the bytes (or the header): the body errors at its end.
    const tampering = new EdgeshareClient({
      baseUrl: server.origin,
      apiKey: key,
      fetch: async (input, init) => {
        const real = await fetch(input, init);
        if (!String(input).endsWith('/download')) return real;
        const headers = new Headers(real.headers);
        headers.set('repr-digest', reprDigest(new Uint8Array([9])));
        return new Response(real.body, { status: real.status, headers });
      },
    });
    const tampered = await tampering.download(uploaded.id);
    const error = await tampered.arrayBuffer().then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(EdgeshareError);
    expect((error as EdgeshareError).code).toBe('DIGEST_MISMATCH');

    await expect(
      client.uploadRaw(bytes, { filename: 'w.txt', sha256: sha256(new Uint8Array([2])) }),
    ).rejects.toMatchObject({ code: 'DIGEST_MISMATCH', status: 400 });
  });
});
