// Collections end to end under a real `wrangler dev`: archives downloaded over HTTP open in
// Python's zipfile and pass `unzip -t` with byte-exact members (with every CRC-32 known, and in
// data-descriptor mode while one is not); `curl -C -` resumes a broken download to the same
// SHA-256; a resume at a versioned URL of an archive that changed meanwhile fails, leaving the
// part alone; and the CLI makes, fills, lists, links and saves a collection (resuming a .part file).
import { execFile, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { literal, ROOT, sql } from '../../scripts/wrangler.ts';
import { EdgeshareClient } from '../../src/client/edgeshare.ts';
import { crc32 } from '../../src/lib/crc32.ts';
import { type DevServer, startDevServer } from '../helpers/dev-server.ts';

let server: DevServer;
let key: string;
let client: EdgeshareClient;
const work = mkdtempSync(join(tmpdir(), 'edgeshare-collections-'));

beforeAll(async () => {
  server = await startDevServer();
  key = await server.createKey('collections');
  client = new EdgeshareClient({ baseUrl: server.origin, apiKey: key });
}, 180_000);

afterAll(async () => {
  await server?.stop();
  rmSync(work, { recursive: true, force: true });
});

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** Deterministic bytes that no type signature claims. */
function bytesOf(seed: number, size: number): Uint8Array {
  const out = new Uint8Array(size);
  let x = seed;
  for (let i = 0; i < size; i++) {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    out[i] = x >>> 24;
  }
  out.set([0x44, 0x41, 0x54, 0x41].slice(0, size));
  return out;
}

type Stored = { id: string; name: string; bytes: Uint8Array };

async function uploadAll(files: { name: string; bytes: Uint8Array }[]): Promise<Stored[]> {
  const stored: Stored[] = [];
  for (const file of files) {
    const record = await client.upload(
      new Blob([file.bytes as Uint8Array<ArrayBuffer>], { type: 'application/octet-stream' }),
      {
        filename: file.name,
      },
    );
    stored.push({ id: record.id, ...file });
  }
  return stored;
}

/** Gives files their CRC-32 (or NULL) in the server's local D1, as the upload paths will. */
function setCrcs(files: Stored[], known: (file: Stored) => boolean): void {
  const cases = files.map((file) => `WHEN ${literal(file.id)} THEN ${known(file) ? crc32(file.bytes) : 'NULL'}`);
  sql(
    { remote: false, persistTo: server.persistTo },
    `UPDATE files SET crc32 = CASE id ${cases.join(' ')} END WHERE id IN (${files.map((f) => literal(f.id)).join(', ')})`,
  );
}

// Python reads every member (zipfile checks each CRC-32) and prints names, sizes and digests.
const PYTHON = `
import hashlib, json, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as archive:
    print(json.dumps({"bad": archive.testzip(), "members": [
        {"name": info.filename, "size": info.file_size, "method": info.compress_type,
         "sha256": hashlib.sha256(archive.read(info)).hexdigest()} for info in archive.infolist()]}))
`;

function expectOpens(path: string, members: { name: string; bytes: Uint8Array }[]) {
  const python = spawnSync('python3', ['-c', PYTHON, path], { encoding: 'utf8' });
  expect(python.stderr).toBe('');
  expect(python.status).toBe(0);
  const read = JSON.parse(python.stdout) as {
    bad: string | null;
    members: { name: string; size: number; method: number; sha256: string }[];
  };
  expect(read.bad).toBeNull();
  expect(read.members).toEqual(
    members.map((member) => ({
      name: member.name,
      size: member.bytes.length,
      method: 0,
      sha256: sha256(member.bytes),
    })),
  );
  const unzip = spawnSync('unzip', ['-t', path], { encoding: 'utf8' });
  expect(unzip.status, unzip.stdout + unzip.stderr).toBe(0);
  expect(unzip.stdout).toContain('No errors detected');
}

/** True, saying so, where there is no curl binary (the test that asks is then skipped). */
function curlMissing(test: string): boolean {
  if (!spawnSync('curl', ['--version']).error) return false;
  console.warn(`!! curl not found: ${test} is skipped`);
  return true;
}

async function save(response: Response, name: string): Promise<{ path: string; bytes: Uint8Array }> {
  const bytes = new Uint8Array(await response.arrayBuffer());
  const path = join(work, name);
  writeFileSync(path, bytes);
  return { path, bytes };
}

describe('a collection’s ZIP over HTTP', () => {
  it('opens in Python’s zipfile and passes unzip -t, byte-exact, with or without every CRC-32', async () => {
    const files = await uploadAll([
      { name: 'photo.jpg', bytes: bytesOf(1, 300_000) },
      { name: 'Ünïcödé notes.txt', bytes: bytesOf(2, 12_345) },
      { name: 'photo.jpg', bytes: bytesOf(3, 7) },
      { name: 'empty.bin', bytes: new Uint8Array(0) },
    ]);
    setCrcs(files, () => true);
    const collection = await client.createCollection({ name: 'Trip', fileIds: files.map((file) => file.id) });
    const names = ['photo.jpg', 'Ünïcödé notes.txt', 'photo (2).jpg', 'empty.bin'];
    const expected = files.map((file, index) => ({ name: names[index] as string, bytes: file.bytes }));

    const whole = await client.downloadCollection(collection.id);
    expect(whole.headers.get('accept-ranges')).toBe('bytes');
    const length = Number(whole.headers.get('content-length'));
    const rangeable = await save(whole, 'trip.zip');
    expect(rangeable.bytes.length).toBe(length);
    expectOpens(rangeable.path, expected);

    // A range through the real HTTP stack: exactly those bytes, and a Content-Length.
    const part = await client.downloadCollection(collection.id, { range: 'bytes=1000-1999' });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-length')).toBe('1000');
    expect(new Uint8Array(await part.arrayBuffer())).toEqual(rangeable.bytes.subarray(1000, 2000));

    // One CRC-32 unknown: data descriptors, the same length, and still a valid archive.
    setCrcs(files, (file) => file !== files[1]);
    const descriptors = await client.downloadCollection(collection.id);
    expect(descriptors.headers.get('accept-ranges')).toBe('none');
    expect(Number(descriptors.headers.get('content-length'))).toBe(length + 16);
    const streamed = await save(descriptors, 'trip-descriptors.zip');
    expect(streamed.bytes.length).toBe(length + 16);
    expectOpens(streamed.path, expected);
  });

  it('resumes with curl -C - to the unbroken archive’s SHA-256', async () => {
    if (curlMissing('the resume test')) return;
    const files = await uploadAll([
      { name: 'a.bin', bytes: bytesOf(4, 200_000) },
      { name: 'b.bin', bytes: bytesOf(5, 150_000) },
    ]);
    setCrcs(files, () => true);
    const collection = await client.createCollection({ name: 'Resume me', fileIds: files.map((file) => file.id) });
    const url = `${server.origin}/api/v2/collections/${collection.id}/archive`;
    const auth = ['-H', `Authorization: Bearer ${key}`];
    const full = join(work, 'full.zip');
    const broken = join(work, 'broken.zip');
    expect(spawnSync('curl', ['-sSf', ...auth, '-o', full, url]).status).toBe(0);
    const unbroken = readFileSync(full);
    // A download broken off half way, then resumed as curl does it.
    writeFileSync(broken, unbroken);
    truncateSync(broken, Math.floor(unbroken.length / 2));
    const resumed = spawnSync('curl', ['-sSf', ...auth, '-C', '-', '-o', broken, url], { encoding: 'utf8' });
    expect(resumed.status, resumed.stderr).toBe(0);
    expect(sha256(readFileSync(broken))).toBe(sha256(unbroken));
    expectOpens(broken, [
      { name: 'a.bin', bytes: files[0]?.bytes ?? new Uint8Array() },
      { name: 'b.bin', bytes: files[1]?.bytes ?? new Uint8Array() },
    ]);
  });
});

describe('a resume of an archive that changed meanwhile', () => {
  it('fails with curl -f -C - at a versioned URL, the part file untouched; the new URL gives a valid archive', async () => {
    if (curlMissing('the changed-archive resume test')) return;
    const files = await uploadAll([
      { name: 'kept.bin', bytes: bytesOf(9, 180_000) },
      { name: 'removed.bin', bytes: bytesOf(10, 120_000) },
      { name: 'also kept.bin', bytes: bytesOf(11, 90_000) },
    ]);
    setCrcs(files, () => true);
    const [kept, removed, alsoKept] = files as [Stored, Stored, Stored];
    const collection = await client.createCollection({ name: 'Changes', fileIds: files.map((file) => file.id) });
    const link = await client.createCollectionLink(collection.id);
    // The URL a visitor is handed: the share page's "Download all".
    const page = await (await fetch(link.url, { headers: { Accept: 'text/html' } })).text();
    const href = /<a class="button download-all" href="([^"]+)"/.exec(page)?.[1] ?? '';
    expect(href).toMatch(/\/archive\.zip\?v=[0-9a-f]{64}$/);
    const visitorUrl = new URL(href, link.url).href;
    const auth = ['-H', `Authorization: Bearer ${key}`];

    // Both downloads broken off half way (the owner's archiveUrl, the visitor's URL).
    const parts: { path: string; url: string; headers: string[]; bytes: Buffer }[] = [];
    for (const [name, url, headers] of [
      ['owner.zip', collection.archiveUrl, auth],
      ['visitor.zip', visitorUrl, []],
    ] as const) {
      const path = join(work, name);
      expect(spawnSync('curl', ['-sSf', ...headers, '-o', path, url]).status).toBe(0);
      truncateSync(path, Math.floor(readFileSync(path).length / 2));
      parts.push({ path, url, headers: [...headers], bytes: readFileSync(path) });
    }

    const changed = await client.removeFromCollection(collection.id, removed.id);
    expect(changed.archiveUrl).not.toBe(collection.archiveUrl);

    // The documented resume: curl -f -C - -o <part> <url>. It fails (412) and writes nothing.
    for (const part of parts) {
      const resumed = spawnSync('curl', ['-sS', '-f', '-C', '-', ...part.headers, '-o', part.path, part.url], {
        encoding: 'utf8',
      });
      expect(resumed.status, resumed.stderr).toBe(22);
      expect(resumed.stderr).toContain('412');
      expect(readFileSync(part.path).equals(part.bytes)).toBe(true);
    }
    // The 412 names the current URL; from zero, it is a valid archive of the members left.
    const refused = await fetch(visitorUrl);
    expect(refused.status).toBe(412);
    const current = ((await refused.json()) as { details: { url: string }[] }).details[0]?.url ?? '';
    for (const [name, url, headers] of [
      ['owner-new.zip', changed.archiveUrl, auth],
      ['visitor-new.zip', current, []],
    ] as const) {
      const path = join(work, name);
      const fresh = spawnSync('curl', ['-sS', '-f', ...headers, '-o', path, url], { encoding: 'utf8' });
      expect(fresh.status, fresh.stderr).toBe(0);
      expectOpens(path, [
        { name: 'kept.bin', bytes: kept.bytes },
        { name: 'also kept.bin', bytes: alsoKept.bytes },
      ]);
    }

    // The If-Range way, at a URL without v: the ETag no longer matches, so the server answers the
    // whole new archive (200) and curl refuses to append it to the old part (exit 33).
    const plain = join(work, 'plain.zip');
    writeFileSync(plain, parts[0]?.bytes ?? new Uint8Array());
    const unversioned = collection.archiveUrl.replace(/\?v=.*$/, '');
    const oldEtag = `"${new URL(collection.archiveUrl).searchParams.get('v')}"`;
    const withIfRange = spawnSync(
      'curl',
      ['-sS', '-f', '-C', '-', '-H', `If-Range: ${oldEtag}`, ...auth, '-o', plain, unversioned],
      { encoding: 'utf8' },
    );
    expect(withIfRange.status, withIfRange.stderr).toBe(33);
    expect(readFileSync(plain).equals(parts[0]?.bytes ?? Buffer.alloc(0))).toBe(true);
  });
});

type Run = { code: number; stdout: string; stderr: string };

function cli(args: string[]): Promise<Run> {
  const env = { ...process.env, EDGESHARE_URL: server.origin, EDGESHARE_KEY: key };
  return new Promise((resolve) => {
    execFile(process.execPath, [join(ROOT, 'scripts/cli.ts'), ...args], { cwd: work, env }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

describe('npm run cli -- collections', () => {
  it('creates, adds, removes, lists, links and saves the archive (resuming a broken one)', async () => {
    const files = await uploadAll([
      { name: 'one.bin', bytes: bytesOf(6, 50_000) },
      { name: 'two.bin', bytes: bytesOf(7, 60_000) },
      { name: 'three.bin', bytes: bytesOf(8, 70_000) },
    ]);
    setCrcs(files, () => true);
    const [one, two, three] = files as [Stored, Stored, Stored];
    const created = await cli(['collections', 'create', 'From the CLI', one.id, '--note', 'made by a test', '--json']);
    expect(created.code, created.stderr).toBe(0);
    const id = (JSON.parse(created.stdout) as { id: string }).id;
    expect((await cli(['collections', 'add', id, two.id, three.id])).code).toBe(0);
    expect((await cli(['collections', 'remove', id, two.id])).code).toBe(0);
    const listed = await cli(['collections', 'list', id, '--json']);
    expect((JSON.parse(listed.stdout) as { files: { id: string }[] }).files.map((file) => file.id)).toEqual([
      one.id,
      three.id,
    ]);
    const all = await cli(['collections', 'list']);
    expect(all.stdout).toContain(id);
    const link = await cli(['collections', 'link', id, '--max-downloads', '2']);
    expect(link.code, link.stderr).toBe(0);
    expect(link.stdout.trim()).toMatch(/\/share\/[A-Za-z0-9_-]{43}$/);

    const saved = await cli(['collections', 'archive', id, '-o', 'cli.zip']);
    expect(saved.code, saved.stderr).toBe(0);
    const whole = readFileSync(join(work, 'cli.zip'));
    expectOpens(join(work, 'cli.zip'), [
      { name: 'one.bin', bytes: one.bytes },
      { name: 'three.bin', bytes: three.bytes },
    ]);
    // A run broken off: its .part and ETag left behind; the next run asks only for the rest.
    const etag = (await client.downloadCollection(id, { range: 'bytes=0-0' })).headers.get('etag') ?? '';
    writeFileSync(join(work, 'again.zip.part'), whole.subarray(0, 40_000));
    writeFileSync(join(work, 'again.zip.part.etag'), etag);
    const resumed = await cli(['collections', 'archive', id, '-o', 'again.zip', '--json']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ resumedFrom: 40_000, size: whole.length });
    expect(sha256(readFileSync(join(work, 'again.zip')))).toBe(sha256(whole));

    // One run at a time appends to PATH.part: while a live process holds the lock, another run
    // exits 1 at once and touches nothing; a lock left by a process that is gone is taken over.
    writeFileSync(join(work, 'locked.zip.part.lock'), String(process.pid));
    const second = await cli(['collections', 'archive', id, '-o', 'locked.zip']);
    expect(second.code).toBe(1);
    expect(second.stderr).toContain('another run is saving it');
    expect(existsSync(join(work, 'locked.zip'))).toBe(false);
    expect(existsSync(join(work, 'locked.zip.part'))).toBe(false);
    writeFileSync(join(work, 'locked.zip.part.lock'), '2147483646');
    const taken = await cli(['collections', 'archive', id, '-o', 'locked.zip']);
    expect(taken.code, taken.stderr).toBe(0);
    expect(sha256(readFileSync(join(work, 'locked.zip')))).toBe(sha256(whole));
    expect(existsSync(join(work, 'locked.zip.part.lock'))).toBe(false);

    const missing = await cli(['collections', 'archive', `col_${'A'.repeat(22)}`]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('COLLECTION_NOT_FOUND');
    expect((await cli(['collections', 'delete', id])).code).toBe(0);
    expect((await client.get(one.id)).id).toBe(one.id);
  });
});
