// End-to-end encryption against a real `wrangler dev` with Debian's `age` and `age-keygen`, curl
// and unzip: a file made with `age -r <owner's recipient>` goes in with curl (raw PUT, multipart)
// and the owner's download opens with `age -d`; one goes in with curl through tus (creation, a
// PATCH cut part-way, HEAD for the offset, PATCH the rest), is listed as encrypted, and the owner's
// CLI (`npm run cli -- download`) decrypts it to the same SHA-256; a link's download opens with
// `curl -s <link>/download | age -d -i <the link's key>`; a collection link's ZIP passes
// `unzip -t`, each encrypted entry opens with `age -d` and that link's key, its length is exact and
// 20 random ranges match; a member added after the link was made is absent from that link's ZIP
// until PUT /api/v2/links/{linkId}/headers/{fileId}.
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../../scripts/wrangler.ts';
import { addRecipientHeader, recoverFileKey } from '../../src/lib/age/index.ts';
import { ageFile } from '../helpers/age-files.ts';
import { type SharedDevServer, sharedDevServer } from '../helpers/dev-server.ts';
import { settledOffset } from '../helpers/tus-offset.ts';

let server: SharedDevServer;
let auth: Record<string, string>;
const work = mkdtempSync(join(tmpdir(), 'edgeshare-age-'));
const at = (name: string) => join(work, name);

/** A key made by `age-keygen` in a file: its path, identity and recipient. */
type KeyFile = { path: string; identity: string; recipient: string };
function keygen(name: string): KeyFile {
  const path = at(name);
  execFileSync('age-keygen', ['-o', path], { stdio: 'pipe' });
  const identity = (readFileSync(path, 'utf8').match(/AGE-SECRET-KEY-1[0-9A-Z]+/) ?? [''])[0];
  const recipient = execFileSync('age-keygen', ['-y', path], { encoding: 'utf8' }).trim();
  return { path, identity, recipient };
}

let owner: KeyFile;

beforeAll(async () => {
  server = await sharedDevServer('e2eServer');
  auth = { Authorization: `Bearer ${await server.createKey('age cli')}` };
  owner = keygen('owner.txt');
}, 180_000);

afterAll(() => {
  rmSync(work, { recursive: true, force: true });
});

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** `size` distinctive bytes from `seed`. */
function bytesOf(seed: number, size: number): Uint8Array {
  const out = new Uint8Array(size);
  let x = seed;
  for (let i = 0; i < size; i++) {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    out[i] = x >>> 24;
  }
  return out;
}

/** Runs a shell pipeline; its stdout as bytes (fails the test with stderr when it fails). */
function shell(script: string): Buffer {
  const result = spawnSync('sh', ['-c', script], { cwd: work, maxBuffer: 64 << 20 });
  if (result.status !== 0) throw new Error(`${script}\n${result.stderr.toString()}`);
  return result.stdout;
}

/** A plaintext on disk, encrypted to the owner with Debian's `age -r`: its plaintext and the age file. */
function ageMade(name: string, seed: number, size: number) {
  const plaintext = bytesOf(seed, size);
  writeFileSync(at(`${name}.plain`), plaintext);
  execFileSync('age', ['-r', owner.recipient, '-o', at(name), at(`${name}.plain`)]);
  return { plaintext, bytes: new Uint8Array(readFileSync(at(name))) };
}

/** Uploads with curl's raw PUT (`?encryption=age`): the file's record. */
function curlPut(name: string): { id: string; shareUrl: string; size: number } {
  const out = shell(
    `curl -sS --fail-with-body -T ${name} -H 'Authorization: ${auth.Authorization}' '${server.origin}/api/v2/upload/${name}?encryption=age'`,
  );
  return JSON.parse(out.toString()).data;
}

/** The age header (bytes) at the start of an age file. */
function headerOf(bytes: Uint8Array): Uint8Array {
  const text = new TextDecoder('latin1').decode(bytes.subarray(0, 16 * 1024));
  const end = text.indexOf('\n---');
  return bytes.subarray(0, text.indexOf('\n', end + 1) + 1);
}

/** A header for a new link key (made by age-keygen), wrapping the file key the owner's identity recovers. */
async function linkHeaderFor(bytes: Uint8Array, keyName: string): Promise<{ key: KeyFile; header: string }> {
  const fileKey = await recoverFileKey(headerOf(bytes), { identity: owner.identity });
  const key = keygen(keyName);
  return { key, header: new TextDecoder().decode(await addRecipientHeader(fileKey, { recipient: key.recipient })) };
}

async function api(path: string, method: string, body: unknown) {
  const response = await fetch(`${server.origin}${path}`, {
    method,
    headers: { ...auth, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = (await response.json()) as { data: Record<string, unknown> & { url: string; id: string } };
  expect(response.status, JSON.stringify(json)).toBeLessThan(300);
  return json.data;
}

describe('with the age command line', () => {
  it('a file made with age -r goes in with curl (raw PUT and multipart); owner and link downloads open with age -d', async () => {
    const made = ageMade('cli.age', 1, 200_000);
    const record = curlPut('cli.age');
    expect(record.size).toBe(made.bytes.length - headerOf(made.bytes).length);
    const multipart = JSON.parse(
      shell(
        `curl -sS --fail-with-body -H 'Authorization: ${auth.Authorization}' -F encryption=age -F file=@cli.age '${server.origin}/api/v2/upload'`,
      ).toString(),
    ).data;
    expect(multipart.encryption).toBe('age');
    for (const id of [record.id, multipart.id]) {
      const opened = shell(
        `curl -sS --fail -H 'Authorization: ${auth.Authorization}' '${server.origin}/api/v2/files/${id}/download' | age -d -i ${owner.path}`,
      );
      expect(sha256(opened)).toBe(sha256(made.plaintext));
    }
    // The default link serves the owner's header, a link its own: each opens with its key only.
    const open = shell(`curl -sS --fail '${record.shareUrl}/download' | age -d -i ${owner.path}`);
    expect(sha256(open)).toBe(sha256(made.plaintext));
    const { key, header } = await linkHeaderFor(made.bytes, 'link.txt');
    const link = await api(`/api/v2/files/${record.id}/links`, 'POST', { e2eHeader: header });
    const viaLink = shell(`curl -s '${link.url}/download' | age -d -i ${key.path}`);
    expect(sha256(viaLink)).toBe(sha256(made.plaintext));
    const wrongKey = spawnSync('sh', ['-c', `curl -s '${link.url}/download' | age -d -i ${owner.path}`], { cwd: work });
    expect(wrongKey.status).not.toBe(0);
  });

  it('a file made here opens with age -d, and curl -C - resumes its link download to the same SHA-256', async () => {
    const made = await ageFile({ identity: owner.identity, recipient: owner.recipient }, 300_000, 5);
    writeFileSync(at('lib.age'), made.bytes);
    const record = curlPut('lib.age');
    const { key, header } = await linkHeaderFor(made.bytes, 'lib-link.txt');
    const link = await api(`/api/v2/files/${record.id}/links`, 'POST', { e2eHeader: header });
    // The first 100,000 bytes, then curl -C - for the rest.
    shell(`curl -s -r 0-99999 -o part.age '${link.url}/download'`);
    shell(`curl -s -C - -o part.age '${link.url}/download'`);
    const opened = shell(`age -d -i ${key.path} part.age`);
    expect(sha256(opened)).toBe(sha256(made.plaintext));
  });
});

describe('tus with curl, resumed after a cut', () => {
  it('a file made with age -r: created, a PATCH cut part-way, HEAD, the rest; listed as encrypted; the owner’s CLI decrypts it', async () => {
    const made = ageMade('tus.age', 21, 300_000);
    const total = made.bytes.length;
    const meta = (pairs: Record<string, string>) =>
      Object.entries(pairs)
        .map(([name, value]) => `${name} ${Buffer.from(value).toString('base64')}`)
        .join(',');
    const tus = `-H 'Authorization: ${auth.Authorization}' -H 'Tus-Resumable: 1.0.0'`;
    // Creation: the whole age file's length, `encryption age` in the metadata.
    const created = shell(
      `curl -sS --fail-with-body -D - -o /dev/null -X POST ${tus} -H 'Upload-Length: ${total}' ` +
        `-H 'Upload-Metadata: ${meta({ filename: 'tus.age', encryption: 'age' })}' '${server.origin}/api/v2/uploads'`,
    ).toString();
    expect(created).toMatch(/^HTTP\/1\.1 201/);
    const url = (/^location: (\S+)\r?$/im.exec(created) ?? [])[1] ?? '';
    expect(url).toMatch(/\/api\/v2\/uploads\/[A-Za-z0-9_-]{22}$/);
    // A PATCH that announces every byte, sends the first 120,000 (the header and the payload's
    // start), and is cut: curl waits for an answer the server cannot give yet, until --max-time.
    const sent = 120_000;
    writeFileSync(at('tus.first'), made.bytes.subarray(0, sent));
    const cut = spawnSync(
      'sh',
      [
        '-c',
        `curl -sS -X PATCH ${tus} -H 'Content-Type: application/offset+octet-stream' -H 'Upload-Offset: 0' ` +
          `-H 'Content-Length: ${total}' --data-binary @tus.first --max-time 3 '${url}'`,
      ],
      { cwd: work },
    );
    expect(cut.status, cut.stderr.toString()).toBe(28); // curl's "operation timed out": the cut
    // HEAD for the offset: the bytes that arrived are kept (the header's among them).
    const offset = await settledOffset(url, auth);
    expect(offset).toBeGreaterThan(0);
    expect(offset).toBeLessThanOrEqual(sent);
    const headed = shell(`curl -sS --fail -I ${tus} '${url}'`).toString();
    expect(headed).toMatch(new RegExp(`^upload-offset: ${offset}\\r?$`, 'im'));
    // The rest from that offset, in one PATCH: the upload completes into the file.
    writeFileSync(at('tus.rest'), made.bytes.subarray(offset));
    const rest = shell(
      `curl -sS --fail-with-body -D - -o /dev/null -X PATCH ${tus} -H 'Content-Type: application/offset+octet-stream' ` +
        `-H 'Upload-Offset: ${offset}' --data-binary @tus.rest '${url}'`,
    ).toString();
    expect(rest).toMatch(/^HTTP\/1\.1 204/);
    expect(rest).toMatch(new RegExp(`^upload-offset: ${total}\\r?$`, 'im'));
    const id = url.split('/').pop() ?? '';

    // Listed as encrypted, with the payload's size.
    const cliEnv = {
      ...process.env,
      EDGESHARE_URL: server.origin,
      EDGESHARE_KEY: auth.Authorization?.slice('Bearer '.length),
      EDGESHARE_IDENTITY: owner.path,
      EDGESHARE_STATE: at('cli-state.json'),
    };
    const cli = (args: string[]) =>
      spawnSync(process.execPath, [join(ROOT, 'scripts/cli.ts'), ...args], { cwd: work, env: cliEnv });
    const listed = cli(['list', '--json']);
    expect(listed.status, listed.stderr.toString()).toBe(0);
    const files = (
      JSON.parse(listed.stdout.toString()) as { files: { id: string; encryption: string; size: number }[] }
    ).files;
    expect(files.find((file) => file.id === id)).toMatchObject({
      encryption: 'age',
      size: total - headerOf(made.bytes).length,
    });
    // The owner's CLI decrypts it (with the identity age-keygen made) to the same SHA-256.
    const opened = cli(['download', id, '-o', 'tus.out']);
    expect(opened.status, opened.stderr.toString()).toBe(0);
    expect(opened.stdout.toString()).toContain('decrypted');
    expect(sha256(readFileSync(at('tus.out')))).toBe(sha256(made.plaintext));
  }, 120_000);
});

describe('a collection link with encrypted members', () => {
  it('its ZIP passes unzip -t, each entry opens with age -d and the link’s key; exact length; 20 ranges; a later member needs its header', async () => {
    const a = ageMade('alpha.age', 11, 150_000);
    const b = ageMade('beta.age', 12, 70_000);
    const later = ageMade('gamma.age', 13, 1000);
    writeFileSync(at('plain.txt'), 'a plain member beside the encrypted ones\n');
    const ra = curlPut('alpha.age');
    const rb = curlPut('beta.age');
    const rl = curlPut('gamma.age');
    const plain = JSON.parse(
      shell(
        `curl -sS --fail-with-body -T plain.txt -H 'Authorization: ${auth.Authorization}' '${server.origin}/api/v2/upload/plain.txt'`,
      ).toString(),
    ).data as { id: string };
    const collection = await api('/api/v2/collections', 'POST', { name: 'Sealed', fileIds: [ra.id, rb.id, plain.id] });
    // One key for the link: its header for each encrypted member wraps that member's file key.
    const linkKey = keygen('collection-link.txt');
    const headerTo = async (bytes: Uint8Array) => {
      const fileKey = await recoverFileKey(headerOf(bytes), { identity: owner.identity });
      return new TextDecoder().decode(await addRecipientHeader(fileKey, { recipient: linkKey.recipient }));
    };
    const link = await api(`/api/v2/collections/${collection.id}/links`, 'POST', {
      e2eHeaders: { [ra.id]: await headerTo(a.bytes), [rb.id]: await headerTo(b.bytes) },
    });
    await api(`/api/v2/collections/${collection.id}/files`, 'POST', { fileIds: [rl.id] });

    const expectZip = async (members: Record<string, Uint8Array>) => {
      const head = await fetch(`${link.url}/download`, { method: 'HEAD' });
      rmSync(at('all.zip'), { force: true });
      shell(`curl -sS --fail -o all.zip '${link.url}/download'`);
      const zip = new Uint8Array(readFileSync(at('all.zip')));
      expect(head.headers.get('content-length')).toBe(String(zip.length));
      shell('unzip -t all.zip');
      const listed = shell('unzip -Z1 all.zip').toString().trim().split('\n').sort();
      expect(listed).toEqual(Object.keys(members).sort());
      for (const [name, plaintext] of Object.entries(members)) {
        const opened = name.endsWith('.age')
          ? shell(`unzip -p all.zip '${name}' | age -d -i ${linkKey.path}`)
          : shell(`unzip -p all.zip '${name}'`);
        expect(sha256(opened), name).toBe(sha256(plaintext));
      }
      return zip;
    };
    const zip = await expectZip({
      'alpha.age': a.plaintext,
      'beta.age': b.plaintext,
      'plain.txt': new Uint8Array(readFileSync(at('plain.txt'))),
    });
    let x = 99;
    for (let i = 0; i < 20; i++) {
      x = (Math.imul(x, 1103515245) + 12345) >>> 0;
      const from = x % zip.length;
      const to = Math.min(zip.length - 1, from + (x % 50_000));
      const response = await fetch(`${link.url}/download`, { headers: { Range: `bytes=${from}-${to}` } });
      expect(response.status).toBe(206);
      expect(new Uint8Array(await response.arrayBuffer())).toEqual(zip.slice(from, to + 1));
    }
    // The member added later is in once the link has its header.
    await api(`/api/v2/links/${link.id}/headers/${rl.id}`, 'PUT', { header: await headerTo(later.bytes) });
    await expectZip({
      'alpha.age': a.plaintext,
      'beta.age': b.plaintext,
      'gamma.age': later.plaintext,
      'plain.txt': new Uint8Array(readFileSync(at('plain.txt'))),
    });
  });
});
