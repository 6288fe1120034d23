// `npm run cli` end to end against the real service under `wrangler dev`: every command, --json,
// exit codes, and a large upload interrupted with Ctrl-C (SIGINT) and resumed by running the
// same command again.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../../scripts/wrangler.ts';
import { type SharedDevServer, sharedDevServer } from '../helpers/dev-server.ts';
import { offsetOf, savedUploadUrl } from '../helpers/tus-offset.ts';

const CLI = join(ROOT, 'scripts/cli.ts');
let server: SharedDevServer;
let work: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  server = await sharedDevServer('e2eServer');
  work = mkdtempSync(join(tmpdir(), 'edgeshare-cli-'));
  env = {
    ...process.env,
    EDGESHARE_URL: server.origin,
    EDGESHARE_KEY: await server.createKey('cli'),
    EDGESHARE_STATE: join(work, 'uploads.json'),
  };
}, 120_000);

afterAll(async () => {
  if (work) rmSync(work, { recursive: true, force: true });
});

type Run = { code: number; stdout: string; stderr: string };

function cli(args: string[], extraEnv: NodeJS.ProcessEnv = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { cwd: work, env: { ...env, ...extraEnv } }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

describe('npm run cli', () => {
  it('uploads, lists, shows, shares, downloads and deletes, with --json and exit codes', async () => {
    writeFileSync(join(work, 'notes.txt'), 'notes for the CLI');
    writeFileSync(join(work, 'other.txt'), 'another file');
    const upload = await cli(['upload', 'notes.txt', 'other.txt', '--json']);
    expect(upload.code, upload.stderr).toBe(0);
    const records = JSON.parse(upload.stdout) as { id: string; originalName: string; shareUrl: string }[];
    expect(records.map((record) => record.originalName)).toEqual(['notes.txt', 'other.txt']);
    const [notes, other] = records;
    if (!notes || !other) throw new Error('no records');

    const list = await cli(['list', '--q', 'notes']);
    expect(list.code).toBe(0);
    expect(list.stdout).toContain(notes.id);
    expect(list.stdout).not.toContain(other.id);
    const info = await cli(['info', notes.id, '--json']);
    expect(JSON.parse(info.stdout)).toMatchObject({ id: notes.id, size: 17 });
    const share = await cli(['share', notes.id]);
    expect(share.stdout.trim()).toBe(notes.shareUrl);

    const download = await cli(['download', notes.id, '-o', 'copy.txt']);
    expect(download.code).toBe(0);
    expect(readFileSync(join(work, 'copy.txt'), 'utf8')).toBe('notes for the CLI');
    // The SHA-256: printed after an upload, checked on download, compared by verify.
    const notesSha = sha256(new TextEncoder().encode('notes for the CLI'));
    expect((records[0] as unknown as { sha256: string }).sha256).toBe(notesSha);
    const plain = await cli(['upload', 'notes.txt']);
    expect(plain.stdout).toContain(`sha256:${notesSha}`);
    const verified = await cli(['download', '--verify', notes.id, '-o', 'copy2.txt']);
    expect(verified.code, verified.stderr).toBe(0);
    expect(verified.stdout).toContain(`sha256:${notesSha} verified`);
    expect((await cli(['verify', notes.id, 'copy.txt'])).code).toBe(0);
    const differs = await cli(['verify', notes.id, 'other.txt']);
    expect(differs.code).toBe(1);
    expect(differs.stdout).toContain('MISMATCH');
    const extra = (
      JSON.parse((await cli(['list', '--q', 'notes', '--json'])).stdout) as { files: { id: string }[] }
    ).files
      .map((file) => file.id)
      .filter((id) => id !== notes.id);
    // Ids may start with '-': '--' ends the options, as for any command line.
    if (extra.length > 0) expect((await cli(['delete', '--', ...extra])).code).toBe(0);
    const usage = await cli(['usage', '--json']);
    expect(JSON.parse(usage.stdout)).toMatchObject({ files: 2, usedBytes: 17 + 12 });

    const removed = await cli(['delete', notes.id, other.id]);
    expect(removed.code).toBe(0);
    expect(removed.stdout).toContain(`deleted ${notes.id}`);
    // The service refused: exit 1. A bad command line: 2. No key: 3.
    expect((await cli(['info', notes.id])).code).toBe(1);
    expect((await cli(['frobnicate'])).code).toBe(2);
    const unknownOption = await cli(['list', '--frobnicate']);
    expect(unknownOption.code).toBe(2);
    expect(unknownOption.stderr).not.toMatch(/\n\s+at /);
    // An id may start with '-' (ids are base64url): read as the id, not as an option, even before options.
    const dashed = await cli(['info', '-AAAAAAAAAAAAAAAAAAAAA', '--json']);
    expect(dashed.code).toBe(1);
    expect(JSON.parse(dashed.stdout)).toMatchObject({ code: 'FILE_NOT_FOUND', status: 404 });
    expect((await cli(['usage'], { EDGESHARE_KEY: '' })).code).toBe(3);
    expect((await cli(['upload', 'missing.txt'])).code).toBe(1);
  });

  it('rotates its key: keys create, list and revoke, and the files stay', async () => {
    writeFileSync(join(work, 'kept.txt'), 'kept across the rotation');
    expect((await cli(['upload', 'kept.txt'])).code).toBe(0);
    const created = await cli(['keys', 'create', 'rotated']);
    expect(created.code, created.stderr).toBe(0);
    const fresh = created.stdout.trim().split('\n').at(-1) ?? '';
    expect(fresh).toMatch(/^esk_/);
    const listed = await cli(['keys', 'list', '--json']);
    const keys = JSON.parse(listed.stdout) as { id: string; name: string; scopes: string[] }[];
    expect(keys.find((key) => key.name === 'rotated')?.scopes).toContain('keys:write');
    const old = keys.find((key) => key.name !== 'rotated');
    if (!old) throw new Error('no old key');
    expect((await cli(['keys', 'revoke', old.id], { EDGESHARE_KEY: fresh })).code).toBe(0);
    expect((await cli(['list'])).code).toBe(3);
    const list = await cli(['list'], { EDGESHARE_KEY: fresh });
    expect(list.code).toBe(0);
    expect(list.stdout).toContain('kept.txt');
    // A read-only key may not upload: the service refuses it (exit 1), naming the scope.
    const reader = await cli(['keys', 'create', 'reader', '--scope', 'files:read'], { EDGESHARE_KEY: fresh });
    const readerKey = reader.stdout.trim().split('\n').at(-1) ?? '';
    const refused = await cli(['upload', 'kept.txt'], { EDGESHARE_KEY: readerKey });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('files:write');
    env.EDGESHARE_KEY = fresh;
  });

  it('resumes a large upload interrupted with Ctrl-C when the same command runs again', async () => {
    const bytes = new Uint8Array(20 * 1024 * 1024);
    for (let i = 0; i < bytes.length; i += 1000) bytes[i] = (i / 1000) % 256;
    writeFileSync(join(work, 'large.bin'), bytes);
    const large = { EDGESHARE_RESUMABLE_THRESHOLD: String(1024 * 1024) };
    const args = ['upload', 'large.bin', '--chunk-size', '5', '--json'];

    // First run: stopped once it reports progress past the first chunk.
    const first: ChildProcess = spawn(process.execPath, [CLI, ...args], { cwd: work, env: { ...env, ...large } });
    let stderr = '';
    const interrupted = new Promise<number | null>((resolve) => first.once('exit', (code) => resolve(code)));
    first.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (/ (2[5-9]|[3-9]\d)%/.test(stderr) && first.exitCode === null) first.kill('SIGINT');
    });
    expect(await interrupted).toBe(130);
    expect(stderr).toContain('run the same command again to resume');
    const uploadUrl = savedUploadUrl(work);
    const offset = await offsetOf(uploadUrl, { Authorization: `Bearer ${env.EDGESHARE_KEY}` });
    expect(offset).toBeGreaterThan(0);
    expect(offset).toBeLessThan(bytes.length);

    // Second run: the same upload continues from the server's offset.
    const second = await cli(args, large);
    expect(second.code, second.stderr).toBe(0);
    const [record] = JSON.parse(second.stdout) as { id: string; size: number }[];
    expect(record?.size).toBe(bytes.length);
    expect(uploadUrl.endsWith(`/uploads/${record?.id}`)).toBe(true);
    const download = await fetch(`${server.origin}/api/v2/files/${record?.id}/download`, {
      headers: { Authorization: `Bearer ${env.EDGESHARE_KEY}` },
    });
    expect(sha256(new Uint8Array(await download.arrayBuffer()))).toBe(sha256(bytes));
  }, 90_000);
  it('saves a download whole or not at all: two runs to one path, one broken mid-way, one interrupted', async () => {
    const bytes = new Uint8Array(6 * 1024 * 1024).map((_, i) => (i * 7919) % 251);
    writeFileSync(join(work, 'big.bin'), bytes);
    const [record] = JSON.parse((await cli(['upload', 'big.bin', '--json'])).stdout) as { id: string }[];
    const id = record?.id ?? '';
    const saved = () => sha256(readFileSync(join(work, 'same.bin')));
    const leftovers = () => readdirSync(work).filter((name) => name.includes('.part'));

    // Two runs at once to the same path: each renames a whole, checked file onto it.
    const both = await Promise.all([cli(['download', id, '-o', 'same.bin']), cli(['download', id, '-o', 'same.bin'])]);
    for (const run of both) expect(run.code, run.stderr).toBe(0);
    expect(saved()).toBe(sha256(bytes));
    expect(leftovers()).toEqual([]);

    // A run whose body breaks after 1 MiB, ending after another run to the same path succeeded:
    // the good run's file stays, whole; the broken run fails loudly and leaves nothing behind.
    let goodEnded = () => {};
    const cut = new Promise<void>((resolve) => {
      goodEnded = resolve;
    });
    const proxy = await breakingProxy(server.origin, () => cut);
    try {
      const broken = cli(['download', id, '-o', 'same.bin'], { EDGESHARE_URL: proxy.origin });
      await Promise.race([
        proxy.halfSent,
        broken.then((run) => Promise.reject(new Error(`ended early: ${run.stderr}`))),
      ]);
      const good = await cli(['download', id, '-o', 'same.bin']);
      expect(good.code, good.stderr).toBe(0);
      goodEnded();
      const failed = await broken;
      expect(failed.code).not.toBe(0);
      expect(failed.stdout).not.toContain('saved');
      expect(saved()).toBe(sha256(bytes));
      expect(leftovers()).toEqual([]);

      // Broken on its own, to a new path: no file there.
      const alone = await cli(['download', id, '-o', 'fresh.bin'], { EDGESHARE_URL: proxy.origin });
      expect(alone.code).not.toBe(0);
      expect(existsSync(join(work, 'fresh.bin'))).toBe(false);
      expect(leftovers()).toEqual([]);
    } finally {
      await proxy.close();
    }

    // Ctrl-C while the body stalls mid-way: exit 130, the previous file intact, no temporary file.
    const stalled = await breakingProxy(server.origin, () => new Promise<void>(() => {}));
    try {
      const child = spawn(process.execPath, [CLI, 'download', id, '-o', 'same.bin'], {
        cwd: work,
        env: { ...env, EDGESHARE_URL: stalled.origin },
      });
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      await stalled.halfSent;
      while (leftovers().length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
      child.kill('SIGINT');
      expect(await exited).toBe(130);
      expect(saved()).toBe(sha256(bytes));
      expect(leftovers()).toEqual([]);
    } finally {
      await stalled.close();
    }
  }, 90_000);

  it('makes, lists and closes file requests (requests create|list|close)', async () => {
    const made = await cli([
      'requests',
      'create',
      '--label',
      'Photos',
      '--max-files',
      '3',
      '--types',
      'image/*',
      '--json',
    ]);
    expect(made.code, made.stderr).toBe(0);
    const request = JSON.parse(made.stdout) as { id: string; url: string; uploadUrl: string; maxFiles: number };
    expect(request).toMatchObject({ maxFiles: 3, allowedTypes: ['image/*'], label: 'Photos', status: 'open' });
    const text = await cli(['requests', 'create', '--message', 'hi']);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/\/r\/[A-Za-z0-9_-]{32}\n/);
    expect(text.stdout).toContain('curl -F file=@FILE');

    const list = await cli(['requests', 'list']);
    expect(list.code).toBe(0);
    expect(list.stdout).toContain(request.id);
    expect(list.stdout).toContain('0/3 files');

    const closed = await cli(['requests', 'close', request.id]);
    expect(closed.code, closed.stderr).toBe(0);
    expect(closed.stdout).toContain(`closed ${request.id}`);
    const again = await cli(['requests', 'list', '--json']);
    const { requests } = JSON.parse(again.stdout) as { requests: { id: string; status: string }[] };
    expect(requests.find((each) => each.id === request.id)?.status).toBe('closed');

    const unknown = await cli(['requests', 'close', 'AAAAAAAAAAAAAAAAAAAAAA']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('REQUEST_NOT_FOUND');
    expect((await cli(['requests', 'open'])).code).toBe(2);
  });
});

/**
 * A proxy to the service that passes every request through, except a download's body: it sends
 * its headers and first MiB, then waits for `until()` and cuts the connection. `halfSent`
 * settles once a first MiB went out.
 */
async function breakingProxy(
  origin: string,
  until: () => Promise<void>,
): Promise<{ origin: string; halfSent: Promise<void>; close(): Promise<void> }> {
  let halfSent = () => {};
  const sent = new Promise<void>((resolve) => {
    halfSent = resolve;
  });
  const proxy: Server = createServer(async (request, response) => {
    // The headers a download needs (fetch refuses hop-by-hop ones such as Connection).
    const forwarded = ['authorization', 'range', 'if-range', 'accept'].flatMap((name) => {
      const value = request.headers[name];
      return typeof value === 'string' ? [[name, value] as const] : [];
    });
    const upstream = await fetch(`${origin}${request.url}`, {
      method: request.method,
      headers: Object.fromEntries(forwarded),
    });
    // fetch decoded the body: it goes out plain, with its own length.
    const body = new Uint8Array(await upstream.arrayBuffer());
    const headers: Record<string, string> = {};
    const dropped = ['content-encoding', 'content-length', 'transfer-encoding', 'connection'];
    upstream.headers.forEach((value, name) => {
      if (!dropped.includes(name)) headers[name] = value;
    });
    response.writeHead(upstream.status, { ...headers, 'content-length': String(body.length) });
    if (!request.url?.endsWith('/download')) {
      response.end(body);
      return;
    }
    response.write(body.subarray(0, 1024 * 1024));
    halfSent();
    await until();
    response.destroy();
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
    halfSent: sent,
    close: () =>
      new Promise<void>((resolve) => {
        proxy.closeAllConnections();
        proxy.close(() => resolve());
      }),
  };
}
