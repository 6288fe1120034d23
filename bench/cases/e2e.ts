// End-to-end encryption (issue 40): a download through an encrypted file's link against a plain
// link's download of a file of the payload's size; and the command-line client (scripts/cli.ts,
// one process per command, its memory read from /proc) uploading and downloading encrypted
// against plain, the same file, the same commands but `--e2e` / a `#k=` link.
import { execFileSync } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, readSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { BenchCase, BenchContext, MetricSpec, Rep, Variant } from '../lib/case.ts';
import { type CliRun, restingPeakMiB, runCli } from '../lib/cli.ts';
import { bearer, deleteFiles, jsonBody, uploadFile } from '../lib/service.ts';
import { download, fileBody, MIB, makeFile, send, transferred } from '../lib/transfer.ts';
import { THROUGHPUT } from './uploads.ts';

export const CLI_TIME: MetricSpec = { name: 'ms', label: 'command time', unit: 'ms', better: 'lower', digits: 0 };
export const CLI_PEAK: MetricSpec = {
  name: 'cliPeakMiB',
  label: 'CLI peak RSS',
  unit: 'MiB',
  better: 'lower',
  digits: 1,
};
export const CLI_GROWTH: MetricSpec = {
  name: 'cliGrowthMiB',
  label: 'CLI RSS growth',
  unit: 'MiB',
  better: 'lower',
  digits: 1,
};
export const CLI_CPU: MetricSpec = {
  name: 'cliCpuMs',
  label: 'CLI CPU (all threads)',
  unit: 'ms',
  better: 'lower',
  digits: 0,
};
const CLI_METRICS = [THROUGHPUT, CLI_TIME, CLI_PEAK, CLI_GROWTH, CLI_CPU];

/** The size of the CLI cases' file: `fallback` MiB, or what the environment variable says (a quick look). */
export function sizeFromEnv(name: string, fallback: number): number {
  const value = Number(process.env[name]);
  return Number.isInteger(value) && value > 0 ? value : fallback;
}

/** The age file header at the start of `path` (read from its first 16 KiB, not the whole file). */
export function headerOf(path: string): string {
  const front = Buffer.alloc(16 * 1024);
  const fd = openSync(path, 'r');
  try {
    const text = front.subarray(0, readSync(fd, front, 0, front.length, 0)).toString('latin1');
    const end = text.indexOf('\n---');
    return text.slice(0, text.indexOf('\n', end + 1) + 1);
  } finally {
    closeSync(fd);
  }
}

async function makeLink(base: URL, key: string, fileId: string, extra: Record<string, unknown> = {}): Promise<string> {
  const reply = await send(new URL(`/api/v2/files/${fileId}/links`, base), {
    method: 'POST',
    headers: { ...bearer(key), 'content-type': 'application/json' },
    ...jsonBody({ label: 'bench', maxDownloads: 1_000_000, ...extra }),
  });
  if (reply.status !== 201) throw new Error(`making a link: ${reply.status} ${reply.body.slice(0, 300)}`);
  return `${new URL((JSON.parse(reply.body) as { data: { url: string } }).data.url).pathname}/download`;
}

export function e2eLinkDownloadCase(id: string, sizeMiB: number, reps: number): BenchCase {
  return {
    id,
    title: `Download ${sizeMiB} MiB through an encrypted file's link`,
    description: [
      `An age file of ${sizeMiB} MiB of plaintext (made by \`age -r\`) is uploaded once (untimed), raw PUT ` +
        '`?encryption=age`, and given a link with its own header (an X25519 stanza).',
      'A plain file of exactly the payload’s size is uploaded the same way and given a link without a password.',
      'Each repetition reads `GET /share/<token>/download` to the end: the link’s header, then the payload.',
      'Throughput is bytes read / time; the encrypted read carries the header’s ~200 bytes more.',
    ],
    reps,
    metrics: [THROUGHPUT, { name: 'ms', label: 'request time', unit: 'ms', better: 'lower', digits: 0 }],
    async prepare(ctx) {
      const { service } = ctx.workers;
      const dir = join(ctx.tmpDir, 'e2e-link');
      mkdirSync(dir, { recursive: true });
      const plain = makeFile(ctx.tmpDir, sizeMiB * MIB);
      execFileSync('age-keygen', ['-o', join(dir, 'key.txt')], { stdio: 'pipe' });
      const recipient = execFileSync('age-keygen', ['-y', join(dir, 'key.txt')], { encoding: 'utf8' }).trim();
      const agePath = join(dir, 'file.age');
      execFileSync('age', ['-r', recipient, '-o', agePath, plain]);
      const header = headerOf(agePath);
      const payloadSize = statSync(agePath).size - Buffer.byteLength(header, 'latin1');
      const reply = await send(new URL('/api/v2/upload/file.age?encryption=age', service.url), {
        method: 'PUT',
        headers: bearer(ctx.apiKey),
        ...fileBody(agePath),
      });
      if (reply.status !== 201) throw new Error(`age upload: ${reply.status} ${reply.body.slice(0, 300)}`);
      const encryptedId = (JSON.parse(reply.body) as { data: { id: string } }).data.id;
      // The link's header: one X25519 stanza, the length of the one a client makes for a link's key
      // (the server checks its syntax, never opens it).
      const encryptedLink = await makeLink(service.url, ctx.apiKey, encryptedId, { e2eHeader: header });
      const samePath = makeFile(dir, payloadSize);
      const { id: plainId } = await uploadFile(service.url, ctx.apiKey, samePath);
      const plainLink = await makeLink(service.url, ctx.apiKey, plainId);
      ctx.facts[`${id}.headerBytes`] = Buffer.byteLength(header, 'latin1');

      const reader = (path: string, bytes: number): Pick<Variant, 'run'> => ({
        async run() {
          const got = await download(new URL(path, service.url));
          if (got.status !== 200 || got.bytes !== bytes) throw new Error(`${path}: ${got.status}, ${got.bytes} bytes`);
          return { metrics: transferred(got.ms, bytes) };
        },
      });
      return [
        {
          id: 'plain-link',
          label: 'edgeshare GET /share/<token>/download, a plain file of the payload’s size',
          role: 'baseline',
          worker: 'service',
          ...reader(plainLink, payloadSize),
        },
        {
          id: 'service',
          label: 'edgeshare GET /share/<token>/download, an encrypted file (link header ‖ payload)',
          role: 'service',
          worker: 'service',
          versus: 'plain-link',
          ...reader(encryptedLink, statSync(agePath).size),
        },
      ];
    },
  };
}

/** What the CLI cases share: a folder, the CLI's environment with an identity made once, its resting peak. */
type CliSetup = { dir: string; env: Record<string, string>; restingMiB: number };
const setups = new WeakMap<BenchContext, Promise<CliSetup>>();

function cliSetup(ctx: BenchContext): Promise<CliSetup> {
  let setup = setups.get(ctx);
  if (!setup) {
    setup = (async () => {
      const dir = join(ctx.tmpDir, 'cli');
      mkdirSync(dir, { recursive: true });
      const env = {
        EDGESHARE_URL: ctx.workers.service.url.origin,
        EDGESHARE_KEY: ctx.apiKey,
        EDGESHARE_IDENTITY: join(dir, 'identity.txt'),
        EDGESHARE_STATE: join(dir, 'state.json'),
      };
      // The account's recipient (uploads encrypt to it) and the identity that opens them.
      await runCli(['identity', 'init', '--json'], env, dir);
      return { dir, env, restingMiB: await restingPeakMiB(env, dir) };
    })();
    setups.set(ctx, setup);
  }
  return setup;
}

/** A CLI run's figures: throughput of `bytes` (the plaintext), time, peak and growth over the resting peak. */
const cliMetrics = (run: CliRun, bytes: number, restingMiB: number) => ({
  ...transferred(run.ms, bytes),
  cliPeakMiB: run.peakMiB,
  cliGrowthMiB: run.peakMiB - restingMiB,
  cliCpuMs: run.cpuMs,
});

/** `upload FILE` against `upload --e2e FILE` of the same file (tus from 64 MiB), each deleted after. */
export function cliUploadCase(id: string, sizeMiB: number, reps: number): BenchCase {
  return {
    id,
    title: `The CLI uploads ${sizeMiB} MiB, encrypted and plain`,
    description: [
      '`npm run cli -- upload FILE --json` against `upload --e2e FILE --json`: one Node process each, timed from spawn ' +
        'to exit; tus in 50 MiB chunks from 64 MiB (the CLI’s defaults), one raw PUT or form below.',
      '`--e2e` encrypts to the account’s recipient while it streams, and first reads the file once for the SHA-256 ' +
        'that `meta` carries.',
      'CLI peak RSS is the process’s VmHWM read every 20 ms; growth is that minus the peak of a command that moves ' +
        'no file (`identity show`).',
    ],
    reps,
    metrics: CLI_METRICS,
    async prepare(ctx) {
      const { dir, env, restingMiB } = await cliSetup(ctx);
      const size = sizeMiB * MIB;
      const path = makeFile(ctx.tmpDir, size);
      const uploader = (e2e: boolean) => async (): Promise<Rep> => {
        // A fresh tus state file: the last run's finished upload is never "resumed".
        const state = mkdtempSync(join(dir, 'state-'));
        const args = ['upload', ...(e2e ? ['--e2e'] : []), path, '--json'];
        const run = await runCli(args, { ...env, EDGESHARE_STATE: join(state, 'tus.json') }, dir);
        const [record] = JSON.parse(run.stdout) as { id: string; encryption: string | null }[];
        if (!record || (record.encryption === 'age') !== e2e) throw new Error(`upload: ${run.stdout.slice(0, 300)}`);
        return {
          metrics: cliMetrics(run, size, restingMiB),
          cleanup: async () => {
            await deleteFiles(ctx.workers.service.url, ctx.apiKey, [record.id]);
            rmSync(state, { recursive: true, force: true });
            return undefined;
          },
        };
      };
      return [
        { id: 'cli-plain', label: 'CLI upload FILE', role: 'baseline', worker: 'service', run: uploader(false) },
        {
          id: 'service',
          label: 'CLI upload --e2e FILE',
          role: 'service',
          worker: 'service',
          versus: 'cli-plain',
          run: uploader(true),
        },
      ];
    },
  };
}

/**
 * `download ID` of a plain file against `download ID` of the same file uploaded with `--e2e` (the
 * owner's identity opens it), and `download URL#k=…` of a link to it, each saved to disk.
 */
export function cliDownloadCase(id: string, sizeMiB: number, reps: number): BenchCase {
  return {
    id,
    title: `The CLI downloads ${sizeMiB} MiB, decrypting and plain`,
    description: [
      'The file is uploaded once by the CLI, plain and with `--e2e` (untimed); `share` makes a link with its key ' +
        'after `#k=`.',
      '`npm run cli -- download ID -o FILE`: plain, the download checked against its `Repr-Digest`; encrypted, ' +
        'decrypted as it streams and checked against the SHA-256 in `meta`.',
      '`download URL#k=… -o FILE`: the same decrypting download through the link (no API key needed).',
      'CLI peak RSS is the process’s VmHWM read every 20 ms; growth is that minus the peak of a command that moves ' +
        'no file (`identity show`).',
    ],
    reps,
    metrics: CLI_METRICS,
    async prepare(ctx) {
      const { dir, env, restingMiB } = await cliSetup(ctx);
      const size = sizeMiB * MIB;
      const path = makeFile(ctx.tmpDir, size);
      const uploaded = async (e2e: boolean) => {
        const state = mkdtempSync(join(dir, 'state-'));
        const args = ['upload', ...(e2e ? ['--e2e'] : []), path, '--json'];
        const run = await runCli(args, { ...env, EDGESHARE_STATE: join(state, 'tus.json') }, dir);
        rmSync(state, { recursive: true, force: true });
        const [record] = JSON.parse(run.stdout) as { id: string }[];
        if (!record) throw new Error(`upload: ${run.stdout.slice(0, 300)}`);
        return record.id;
      };
      const plainId = await uploaded(false);
      const encryptedId = await uploaded(true);
      const url = await keyedLink(encryptedId, env, dir);
      const downloader = cliDownloader(id, dir, env, size, restingMiB);
      return [
        {
          id: 'cli-plain',
          label: 'CLI download ID (plain)',
          role: 'baseline',
          worker: 'service',
          run: downloader(plainId),
        },
        {
          id: 'service',
          label: 'CLI download ID (encrypted, the owner’s identity)',
          role: 'service',
          worker: 'service',
          versus: 'cli-plain',
          run: downloader(encryptedId),
        },
        {
          id: 'cli-link',
          label: 'CLI download URL#k=… (encrypted, the link’s key)',
          role: 'peer',
          worker: 'service',
          versus: 'cli-plain',
          run: downloader(url),
        },
      ];
    },
  };
}

/**
 * Memory while the CLI decrypts a large file through its link (`download URL#k=…`), against its
 * plain `download ID` of a file of the same size. The files are stored through the API (the
 * encrypted one made by `age -r` to the CLI's recipient): only the downloads run the CLI.
 */
export function cliMemoryCase(id: string, sizeMiB: number, reps: number): BenchCase {
  return {
    id,
    title: `The CLI decrypts ${sizeMiB} MiB through a link: its memory`,
    description: [
      `${sizeMiB} MiB stored twice through the API (untimed): plain (a form upload), and as an age file made by ` +
        '`age -r` to the CLI’s recipient (raw PUT); `npm run cli -- share` gives the encrypted one a `#k=` link.',
      '`download URL#k=… -o FILE` decrypts as it streams; `download ID -o FILE` of the plain file is the baseline.',
      'CLI peak RSS is the process’s VmHWM read every 20 ms; growth is that minus the peak of a command that moves ' +
        'no file (`identity show`). Flat: the growth does not scale with the file.',
    ],
    reps,
    metrics: CLI_METRICS,
    async prepare(ctx) {
      const { dir, env, restingMiB } = await cliSetup(ctx);
      const { service } = ctx.workers;
      const size = sizeMiB * MIB;
      const path = makeFile(ctx.tmpDir, size);
      const { id: plainId } = await uploadFile(service.url, ctx.apiKey, path);
      const recipient = execFileSync('age-keygen', ['-y', join(dir, 'identity.txt')], { encoding: 'utf8' }).trim();
      const agePath = join(dir, `memory-${sizeMiB}.age`);
      execFileSync('age', ['-r', recipient, '-o', agePath, path]);
      const reply = await send(new URL(`/api/v2/upload/memory.age?encryption=age`, service.url), {
        method: 'PUT',
        headers: bearer(ctx.apiKey),
        ...fileBody(agePath),
      });
      rmSync(agePath, { force: true });
      if (reply.status !== 201) throw new Error(`age upload: ${reply.status} ${reply.body.slice(0, 300)}`);
      const encryptedId = (JSON.parse(reply.body) as { data: { id: string } }).data.id;
      const url = await keyedLink(encryptedId, env, dir);
      const downloader = cliDownloader(id, dir, env, size, restingMiB);
      return [
        {
          id: 'cli-plain',
          label: 'CLI download ID (plain)',
          role: 'baseline',
          worker: 'service',
          run: downloader(plainId),
        },
        {
          id: 'service',
          label: 'CLI download URL#k=… (encrypted, the link’s key)',
          role: 'service',
          worker: 'service',
          versus: 'cli-plain',
          run: downloader(url),
        },
      ];
    },
  };
}

/** A keyed link to an encrypted file, made as its owner makes one: `npm run cli -- share ID`. */
async function keyedLink(fileId: string, env: Record<string, string>, dir: string): Promise<string> {
  const shared = await runCli(['share', fileId, '--json'], env, dir);
  const { url } = JSON.parse(shared.stdout) as { url: string };
  if (!url.includes('#k=')) throw new Error(`share: ${shared.stdout.slice(0, 300)}`);
  return url;
}

/** A run that downloads `source` (an id, or a link) with the CLI to a file, checks its size, and removes it. */
function cliDownloader(id: string, dir: string, env: Record<string, string>, size: number, restingMiB: number) {
  return (source: string) => async (): Promise<Rep> => {
    const target = join(dir, `out-${id}.bin`);
    const run = await runCli(['download', source, '-o', target], env, dir);
    const saved = statSync(target).size;
    rmSync(target, { force: true });
    if (saved !== size) throw new Error(`download ${source}: ${saved} bytes saved, not ${size}`);
    return { metrics: cliMetrics(run, size, restingMiB) };
  };
}
