// The CLI's end-to-end encryption against the real service under `wrangler dev`, and against the
// `age` command line both ways (docs/e2e.md, "The command line"): identity init|show|export|import|
// backup|restore, upload --e2e (one PUT, and tus resumed after Ctrl-C), share (#k=, --passphrase),
// download of a file and of a link decrypting as it streams, collections link with the members'
// headers, and request-upload to a request link carrying #r=. Needs `age` and `curl` (Debian's).
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Decrypter } from 'age-encryption';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../../scripts/wrangler.ts';
import { type SharedDevServer, sharedDevServer } from '../helpers/dev-server.ts';
import { offsetOf, savedUploadUrl } from '../helpers/tus-offset.ts';

const CLI = join(ROOT, 'scripts/cli.ts');
let server: SharedDevServer;
let work: string;
let env: NodeJS.ProcessEnv;
let recipient: string;

type Run = { code: number; stdout: string; stderr: string };

function run(file: string, args: string[], extraEnv: NodeJS.ProcessEnv = {}, input?: string): Promise<Run> {
  return new Promise((resolve) => {
    const child = execFile(
      file,
      args,
      { cwd: work, env: { ...env, ...extraEnv }, encoding: 'buffer', maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout: stdout.toString('latin1'), stderr: stderr.toString() });
      },
    );
    // A command that exits before reading its input (`ls`) closes the pipe: EPIPE, not a failure.
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(input ?? '');
  });
}

const cli = (args: string[], extraEnv: NodeJS.ProcessEnv = {}, input?: string) =>
  run(process.execPath, [CLI, ...args], extraEnv, input);
/** A shell line (curl, age, pipes) in the work folder, with the test's environment ($ORIGIN, $EDGESHARE_KEY). */
const sh = (line: string) => run('bash', ['-o', 'pipefail', '-c', line]);

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const sha256File = (name: string) => sha256(readFileSync(join(work, name)));

/** Distinct bytes: a pattern broken every 997 bytes, so a misplaced chunk changes the digest. */
function bytesOf(size: number, seed: number): Uint8Array {
  const bytes = new Uint8Array(size);
  for (let i = 0; i < size; i++) bytes[i] = (i * 31 + seed + Math.floor(i / 997)) % 251;
  return bytes;
}

async function fileRecord(id: string): Promise<Record<string, unknown>> {
  const response = await fetch(`${server.origin}/api/v2/files/${id}`, {
    headers: { Authorization: `Bearer ${env.EDGESHARE_KEY}` },
  });
  return ((await response.json()) as { data: Record<string, unknown> }).data;
}

beforeAll(async () => {
  server = await sharedDevServer('e2eServer');
  work = mkdtempSync(join(tmpdir(), 'edgeshare-cli-e2e-'));
  env = {
    ...process.env,
    ORIGIN: server.origin,
    EDGESHARE_URL: server.origin,
    EDGESHARE_KEY: await server.createKey('cli-e2e'),
    EDGESHARE_STATE: join(work, 'uploads.json'),
    EDGESHARE_IDENTITY: join(work, 'home', 'identity.txt'),
  };
  const init = await cli(['identity', 'init', '--json']);
  if (init.code !== 0) throw new Error(`identity init: ${init.stderr}`);
  recipient = (JSON.parse(init.stdout) as { recipient: string }).recipient;
}, 300_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('npm run cli: end-to-end encryption', () => {
  it('keeps one identity: init, show, export for age, and refuses a second init', async () => {
    expect(recipient).toMatch(/^age1[0-9a-z]{58}$/);
    expect(statSync(env.EDGESHARE_IDENTITY as string).mode & 0o777).toBe(0o600);
    const show = await cli(['identity', 'show', '--json']);
    expect(JSON.parse(show.stdout)).toMatchObject({ local: recipient, recipient, backup: false });
    const exported = await cli(['identity', 'export']);
    expect(exported.code).toBe(0);
    expect(exported.stdout).toContain(`# public key: ${recipient}`);
    expect(exported.stdout).toMatch(/^AGE-SECRET-KEY-1[0-9A-Z]{58}$/m);
    // age-keygen's own tool reads it: the same recipient.
    writeFileSync(join(work, 'exported.txt'), exported.stdout);
    expect((await sh('age-keygen -y exported.txt')).stdout.trim()).toBe(recipient);
    const again = await cli(['identity', 'init']);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('exists already');
  });

  it('decrypts a file made by `age -r` and uploaded with curl to the same SHA-256 (raw PUT and multipart)', async () => {
    const plain = bytesOf(200_000, 1);
    writeFileSync(join(work, 'agecli.bin'), plain);
    const made = await sh(`age -r ${recipient} -o agecli.age agecli.bin`);
    expect(made.code, made.stderr).toBe(0);
    const put = await sh(
      'curl -sS --fail-with-body -T agecli.age -H "Authorization: Bearer $EDGESHARE_KEY" "$ORIGIN/api/v2/upload/agecli.age?encryption=age"',
    );
    expect(put.code, put.stdout).toBe(0);
    const putId = (JSON.parse(put.stdout) as { data: { id: string } }).data.id;
    const form = await sh(
      'curl -sS --fail-with-body -H "Authorization: Bearer $EDGESHARE_KEY" -F encryption=age -F file=@agecli.age "$ORIGIN/api/v2/upload"',
    );
    expect(form.code, form.stdout).toBe(0);
    const formId = (JSON.parse(form.stdout) as { data: { id: string } }).data.id;

    for (const [id, target] of [
      [putId, 'agecli-put.out'],
      [formId, 'agecli-form.out'],
    ] as const) {
      const listed = await cli(['list', '--json']);
      expect((JSON.parse(listed.stdout) as { files: { id: string }[] }).files.map((file) => file.id)).toContain(id);
      const download = await cli(['download', id, '-o', target]);
      expect(download.code, download.stderr).toBe(0);
      expect(download.stdout).toContain('decrypted');
      expect(sha256File(target)).toBe(sha256(plain));
    }
    // With no name of its own (no meta), it is saved as the stored name without `.age`.
    const named = await sh(`'${process.execPath}' '${CLI}' download ${putId} && sha256sum agecli`);
    expect(named.code, named.stderr).toBe(0);
    expect(named.stdout).toContain(sha256(plain));
  });

  it('uploads with --e2e (the server sees no name) and shares a #k= link that `curl | age -d -i` opens', async () => {
    const plain = bytesOf(300_000, 2);
    writeFileSync(join(work, 'report.pdf'), plain);
    const upload = await cli(['upload', '--e2e', 'report.pdf', '--json']);
    expect(upload.code, upload.stderr).toBe(0);
    const [record] = JSON.parse(upload.stdout) as { id: string; originalName: string; encryption: string }[];
    if (!record) throw new Error('no record');
    expect(record.encryption).toBe('age');
    expect(record.originalName).toMatch(/^[0-9a-f]{16}\.age$/);
    const stored = await fileRecord(record.id);
    expect(stored.meta).toEqual(expect.any(String));
    expect(JSON.stringify(stored)).not.toContain('report');

    // The owner's download: decrypted, its real name and SHA-256 from meta.
    const own = await cli(['download', record.id]);
    expect(own.code, own.stderr).toBe(0);
    expect(own.stdout).toContain(`sha256:${sha256(plain)} verified`);
    expect(sha256File('report.pdf')).toBe(sha256(plain));

    const share = await cli(['share', record.id]);
    expect(share.code, share.stderr).toBe(0);
    const url = share.stdout.trim();
    expect(url).toMatch(/\/share\/[^#]+#k=AGE-SECRET-KEY-1[0-9A-Z]{58}$/);
    const [link, key] = url.split('#k=') as [string, string];
    writeFileSync(join(work, 'link-key.txt'), `${key}\n`);
    const opened = await sh(`curl -s ${link}/download | age -d -i link-key.txt > from-age.bin`);
    expect(opened.code, opened.stderr).toBe(0);
    expect(sha256File('from-age.bin')).toBe(sha256(plain));
    // The owner's identity is not the link's key: the link's download does not open with it.
    expect((await sh(`curl -s ${link}/download | age -d -i exported.txt > /dev/null`)).code).not.toBe(0);

    // The CLI opens the link with no API key, decrypting as it streams.
    const visitor = await cli(['download', url, '-o', 'from-link.bin'], { EDGESHARE_KEY: '' });
    expect(visitor.code, visitor.stderr).toBe(0);
    expect(sha256File('from-link.bin')).toBe(sha256(plain));
    // A wrong key fails before a byte is written.
    const other = (await sh('age-keygen 2>/dev/null | tail -1')).stdout.trim();
    const wrong = await cli(['download', `${link}#k=${other}`, '-o', 'wrong.bin']);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('cannot decrypt');
    expect(existsSync(join(work, 'wrong.bin'))).toBe(false);
  });

  it('saves a decrypted download whole or not at all: two runs to one path leave one whole file', async () => {
    const big = bytesOf(6 * 1024 * 1024, 3);
    const small = bytesOf(200_000, 4);
    const ids: string[] = [];
    for (const [name, bytes] of [
      ['big.bin', big],
      ['small.bin', small],
    ] as const) {
      writeFileSync(join(work, name), bytes);
      const up = await cli(['upload', '--e2e', name, '--json']);
      expect(up.code, up.stderr).toBe(0);
      ids.push((JSON.parse(up.stdout) as { id: string }[])[0]?.id ?? '');
    }
    writeFileSync(join(work, 'same.bin'), 'before');
    // Written in place, the small file's run would truncate the big one's file mid-way and write
    // over its start: a mix, reported as saved by both.
    const runs = await Promise.all(ids.map((id) => cli(['download', id, '-o', 'same.bin'])));
    for (const run of runs) expect(run.code, run.stderr).toBe(0);
    expect([sha256(big), sha256(small)]).toContain(sha256File('same.bin'));
    expect(readdirSync(work).filter((name) => name.includes('.part'))).toEqual([]);
  });

  it('makes a passphrase link that opens in the CLI and in age-encryption', async () => {
    const plain = bytesOf(70_000, 3);
    writeFileSync(join(work, 'phrase.bin'), plain);
    const upload = await cli(['upload', '--e2e', 'phrase.bin', '--json']);
    const [record] = JSON.parse(upload.stdout) as { id: string }[];
    const share = await cli(['share', record?.id ?? '', '--passphrase', '-'], {}, 'correct horse battery staple\n');
    expect(share.code, share.stderr).toBe(0);
    const url = share.stdout.trim();
    expect(url).not.toContain('#');

    const cliOpen = await cli(
      ['download', url, '--passphrase', '-', '-o', 'phrase.out'],
      {},
      'correct horse battery staple\n',
    );
    expect(cliOpen.code, cliOpen.stderr).toBe(0);
    expect(sha256File('phrase.out')).toBe(sha256(plain));

    const download = new Uint8Array(await (await fetch(`${url}/download`)).arrayBuffer());
    const decrypter = new Decrypter();
    decrypter.addPassphrase('correct horse battery staple');
    expect(sha256(await decrypter.decrypt(download))).toBe(sha256(plain));
    const wrong = await cli(['download', url, '--passphrase', 'not it', '-o', 'nope.out']);
    expect(wrong.code).toBe(1);
    expect(existsSync(join(work, 'nope.out'))).toBe(false);
  }, 120_000);

  it('resumes an --e2e upload through tus after Ctrl-C, to the same age file', async () => {
    const plain = bytesOf(6 * 1024 * 1024 + 12_345, 4);
    writeFileSync(join(work, 'large.bin'), plain);
    const large = { EDGESHARE_RESUMABLE_THRESHOLD: String(1024 * 1024) };
    const args = ['upload', '--e2e', 'large.bin', '--chunk-size', '1', '--json'];
    const first: ChildProcess = spawn(process.execPath, [CLI, ...args], { cwd: work, env: { ...env, ...large } });
    let stderr = '';
    const interrupted = new Promise<number | null>((resolve) => first.once('exit', (code) => resolve(code)));
    first.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (/ (2[5-9]|[3-9]\d)%/.test(stderr) && first.exitCode === null) first.kill('SIGINT');
    });
    expect(await interrupted).toBe(130);
    // What a resume needs is kept: tus's address, and the header and nonce (no key).
    const saved = JSON.parse(readFileSync(join(work, 'uploads.json.e2e.json'), 'utf8')) as Record<
      string,
      { header: string }
    >;
    expect(Object.keys(saved)).toHaveLength(1);
    expect(Buffer.from(Object.values(saved)[0]?.header ?? '', 'base64').toString()).toMatch(
      /^age-encryption\.org\/v1\n/,
    );

    const uploadUrl = savedUploadUrl(work);
    const offset = await offsetOf(uploadUrl, { Authorization: `Bearer ${env.EDGESHARE_KEY}` });
    expect(offset).toBeGreaterThan(0);
    expect(offset).toBeLessThan(plain.length);

    // The second run continues that upload from the server's offset (the same id), with the same bytes.
    const second = await cli(args, large);
    expect(second.code, second.stderr).toBe(0);
    const [record] = JSON.parse(second.stdout) as { id: string }[];
    expect(uploadUrl.endsWith(`/uploads/${record?.id}`)).toBe(true);
    const out = await cli(['download', record?.id ?? '', '-o', 'large.out']);
    expect(out.code, out.stderr).toBe(0);
    expect(sha256File('large.out')).toBe(sha256(plain));
    expect(JSON.parse(readFileSync(join(work, 'uploads.json.e2e.json'), 'utf8'))).toEqual({});
  }, 120_000);

  it('links a collection with a header per encrypted member: its ZIP entries open with `age -d`', async () => {
    const secret = bytesOf(100_000, 5);
    writeFileSync(join(work, 'member.bin'), secret);
    writeFileSync(join(work, 'plain.txt'), 'a plain member');
    const enc = JSON.parse((await cli(['upload', '--e2e', 'member.bin', '--json'])).stdout) as { id: string }[];
    const pln = JSON.parse((await cli(['upload', 'plain.txt', '--json'])).stdout) as { id: string }[];
    const made = await cli(['collections', 'create', 'mixed', enc[0]?.id ?? '', pln[0]?.id ?? '', '--json']);
    const collection = JSON.parse(made.stdout) as { id: string };
    const linked = await cli(['collections', 'link', collection.id, '--json']);
    expect(linked.code, linked.stderr).toBe(0);
    const { url, encryptedMembers } = JSON.parse(linked.stdout) as { url: string; encryptedMembers: number };
    expect(encryptedMembers).toBe(1);
    const [link, key] = url.split('#k=') as [string, string];
    writeFileSync(join(work, 'collection-key.txt'), `${key}\n`);
    mkdirSync(join(work, 'unzipped'));
    const zip = await sh(
      `curl -sS --fail -o mixed.zip ${link}/download && unzip -t mixed.zip && unzip -q mixed.zip -d unzipped`,
    );
    expect(zip.code, zip.stderr + zip.stdout).toBe(0);
    const listed = await sh('ls unzipped');
    const entry = listed.stdout.split('\n').find((name) => name.endsWith('.age')) ?? '';
    expect(entry).not.toBe('');
    const opened = await sh(`age -d -i collection-key.txt "unzipped/${entry}" > member.out`);
    expect(opened.code, opened.stderr).toBe(0);
    expect(sha256File('member.out')).toBe(sha256(secret));
    expect(readFileSync(join(work, 'unzipped', 'plain.txt'), 'utf8')).toBe('a plain member');
  });

  it('sends files to an e2e request link with #r= (no key), and the owner decrypts them', async () => {
    const made = await cli(['requests', 'create', '--e2e', '--json']);
    expect(made.code, made.stderr).toBe(0);
    const request = JSON.parse(made.stdout) as { id: string; url: string; e2e: boolean };
    expect(request.e2e).toBe(true);
    expect(request.url).toMatch(new RegExp(`/r/[A-Za-z0-9_-]+#r=${recipient}$`));
    const plain = bytesOf(90_000, 6);
    writeFileSync(join(work, 'scan.png'), plain);
    const sent = await cli(['request-upload', request.url, 'scan.png'], { EDGESHARE_KEY: '' });
    expect(sent.code, sent.stderr).toBe(0);
    // A plain upload to the same request is refused.
    const [page] = request.url.split('#');
    const described = await fetch(page?.replace('/r/', '/api/v2/r/') ?? '');
    const { uploadUrl } = ((await described.json()) as { data: { uploadUrl: string } }).data;
    const plainUpload = await sh(`curl -s -F file=@scan.png ${uploadUrl}`);
    expect(plainUpload.stdout).toContain('E2E_REQUIRED');

    const files = await fetch(`${server.origin}/api/v2/requests/${request.id}/files`, {
      headers: { Authorization: `Bearer ${env.EDGESHARE_KEY}` },
    });
    const [received] = ((await files.json()) as { data: { files: { id: string; encryption: string }[] } }).data.files;
    expect(received?.encryption).toBe('age');
    const out = await cli(['download', received?.id ?? '']);
    expect(out.code, out.stderr).toBe(0);
    expect(sha256File('scan.png')).toBe(sha256(plain));
    expect(out.stdout).toContain('saved scan.png');
  });

  it('backs the identity up on the account and restores it on another device (identity backup|restore|import)', async () => {
    const backup = await cli(['identity', 'backup', '--passphrase', '-'], {}, 'a long backup passphrase\n');
    expect(backup.code, backup.stderr).toBe(0);
    const identity = readFileSync(env.EDGESHARE_IDENTITY as string, 'utf8');
    const elsewhere = { EDGESHARE_IDENTITY: join(work, 'other-device', 'identity.txt') };
    const wrong = await cli(['identity', 'restore', '--passphrase', 'nope'], elsewhere);
    expect(wrong.code).toBe(1);
    const restored = await cli(['identity', 'restore', '--passphrase', '-'], elsewhere, 'a long backup passphrase\n');
    expect(restored.code, restored.stderr).toBe(0);
    expect(restored.stdout).toContain(recipient);
    const key = (text: string) => text.split('\n').find((line) => line.startsWith('AGE-SECRET-KEY-1'));
    expect(key(readFileSync(elsewhere.EDGESHARE_IDENTITY, 'utf8'))).toBe(key(identity));
    // The backup is an age file `age -d` opens with the passphrase too (armored, scrypt).
    const stored = await fetch(`${server.origin}/api/v2/e2e/identity`, {
      headers: { Authorization: `Bearer ${env.EDGESHARE_KEY}` },
    });
    expect(((await stored.json()) as { data: { backup: string } }).data.backup).toContain(
      '-----BEGIN AGE ENCRYPTED FILE-----',
    );

    // import: another identity takes over only with --replace.
    await sh('age-keygen -o fresh.txt 2>/dev/null');
    const third = { EDGESHARE_IDENTITY: join(work, 'third', 'identity.txt') };
    const refused = await cli(['identity', 'import', 'fresh.txt'], third);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('E2E_IDENTITY_EXISTS');
    const replaced = await cli(['identity', 'import', 'fresh.txt', '--replace', '--json'], third);
    expect(replaced.code, replaced.stderr).toBe(0);
    const fresh = (await sh('age-keygen -y fresh.txt')).stdout.trim();
    expect((JSON.parse(replaced.stdout) as { recipient: string }).recipient).toBe(fresh);
  }, 120_000);
});
