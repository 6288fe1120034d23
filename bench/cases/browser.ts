/// <reference lib="dom" />
// (DOM types: the page.evaluate callbacks run in the browser.)
// End-to-end encryption in the browser (issue 41), in Debian's Chromium driven by playwright-core:
// an encrypted upload through the web app against a plain one of the same file, and a decrypting
// share-page download against a plain one of the same size; each beside its floor, the same
// browser encrypting or decrypting the same bytes with nothing else. The page's JS heap is read
// through the DevTools protocol (Performance.getMetrics) while each runs.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { type Browser, chromium, type Page } from 'playwright-core';
import { CHROMIUM_ARGS, CHROMIUM_PATH, INSTALL_CHROMIUM } from '../../scripts/chromium.ts';
import { ROOT } from '../../scripts/wrangler.ts';
import { recoverFileKey, sealMeta } from '../../src/lib/age/index.ts';
import { E2E_TUS_CHUNK_BYTES } from '../../src/lib/web-settings.ts';
import type { BenchCase, BenchContext, MetricSpec, Rep } from '../lib/case.ts';
import { bearer, deleteFiles, jsonBody } from '../lib/service.ts';
import { fileBody, MIB, makeFile, send, transferred } from '../lib/transfer.ts';
import { headerOf } from './e2e.ts';
import { THROUGHPUT } from './uploads.ts';

const TIME: MetricSpec = { name: 'ms', label: 'time', unit: 'ms', better: 'lower', digits: 0 };
/** The page's own JS heap (the main thread's, not its workers'), in MB as the issue states its bound. */
export const JS_HEAP: MetricSpec = {
  name: 'jsHeapMB',
  label: 'page JS heap peak',
  unit: 'MB',
  better: 'lower',
  digits: 1,
};
const METRICS = [THROUGHPUT, TIME, JS_HEAP];

/** A case's Chromium (closed by its teardown), its own account and folder. */
type Setup = { browser: Browser; key: string; dir: string };

async function browserSetup(ctx: BenchContext, id: string): Promise<Setup> {
  if (!CHROMIUM_PATH) throw new Error(`no Chromium: ${INSTALL_CHROMIUM}`);
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS });
  // An account of its own: the web app makes its identity there on first use.
  const { key } = await ctx.createApiKey(`${id} bench`);
  const dir = join(ctx.tmpDir, id);
  mkdirSync(dir, { recursive: true });
  return { browser, key, dir };
}

/** Peak JSHeapUsedSize of the page while `work` runs, sampled every 100 ms through the DevTools protocol. */
async function withHeap<T>(page: Page, work: () => Promise<T>): Promise<[T, number]> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Performance.enable');
  let peak = 0;
  let running = true;
  const sample = async () => {
    const { metrics } = await cdp.send('Performance.getMetrics');
    peak = Math.max(peak, metrics.find((metric) => metric.name === 'JSHeapUsedSize')?.value ?? 0);
  };
  const sampler = (async () => {
    while (running) {
      await sample();
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  try {
    return [await work(), peak];
  } finally {
    running = false;
    await sampler;
    await sample().catch(() => undefined);
    await cdp.detach().catch(() => undefined);
  }
}

/** The file at `path`, chosen in a file input the page gains (#bench-file): a File the page reads from disk. */
async function chooseFile(page: Page, path: string): Promise<void> {
  await page.evaluate(() => {
    const input = document.createElement('input');
    input.type = 'file';
    input.id = 'bench-file';
    document.body.append(input);
  });
  await page.locator('#bench-file').setInputFiles(path);
}

async function signIn(page: Page, origin: string, key: string): Promise<void> {
  await page.goto(`${origin}/`);
  await page.getByLabel('API key', { exact: true }).fill(key);
  await page.getByRole('button', { name: 'Use key' }).click();
  await page.getByRole('heading', { name: 'Your files' }).waitFor();
}

/** Adds the file to the web app's queue and waits until its item says done; the time. */
async function uploadInApp(page: Page, path: string, encrypt: boolean): Promise<number> {
  const box = page.getByLabel('Encrypt end to end');
  if ((await box.isChecked()) !== encrypt) await box.setChecked(encrypt);
  const started = performance.now();
  await page.locator('#file-input').setInputFiles(path);
  const item = page.locator('#uploads li[data-state="done"], #uploads li[data-state="error"]');
  // The first encrypted upload of an account makes its identity and offers the backup meanwhile.
  const backup = page.getByLabel('Backup passphrase');
  const offered = backup
    .waitFor({ timeout: 600_000 })
    .then(async () => {
      await backup.fill('a bench passphrase that is long enough');
      await page.getByRole('button', { name: 'Save the backup' }).click();
    })
    .catch(() => undefined);
  await Promise.race([item.waitFor({ timeout: 600_000 }), offered]);
  await item.waitFor({ timeout: 600_000 });
  const ms = performance.now() - started;
  if ((await item.getAttribute('data-state')) !== 'done') {
    throw new Error(`the web app's upload failed: ${await item.textContent()}`);
  }
  return ms;
}

/** Every file of the account, deleted (untimed, after each upload). */
async function deleteAll(base: URL, key: string): Promise<void> {
  const reply = await send(new URL('/api/v2/files?limit=100', base), { method: 'GET', headers: bearer(key) });
  const { data } = JSON.parse(reply.body) as { data: { files: { id: string }[] } };
  if (data.files.length > 0)
    await deleteFiles(
      base,
      key,
      data.files.map((file) => file.id),
    );
}

/**
 * The web app uploads the same file plain (tus, 50 MiB PATCHes) and encrypted (made in its Web
 * Worker as tus reads it, 8 MiB PATCHes); the floor is that Web Worker alone hashing and
 * encrypting the same file in the same slices, sending nothing.
 */
export function browserUploadCase(id: string, sizeMiB: number, reps: number): BenchCase {
  let setup: Setup;
  return {
    id,
    title: `The web app uploads ${sizeMiB} MiB in Chromium, encrypted and plain`,
    description: [
      `One page per repetition signs in with an API key and gets the ${sizeMiB} MiB file through its file input; ` +
        'timed from the choice to the upload’s item saying done. Each upload is deleted after (untimed).',
      'Plain: tus in 50 MiB PATCHes. Encrypted: the file’s SHA-256 first (for `meta`), then tus in 8 MiB PATCHes, ' +
        'each made by the Web Worker (64 KiB chunks, each encrypted at its index).',
      'Floor: on the same page, the same Web Worker (/assets/e2e-worker.js) hashes the file and encrypts it in the ' +
        'same 8 MiB slices, one after another, sending nothing.',
      'The page’s JS heap is its main thread’s (CDP Performance.getMetrics every 100 ms); the Web Worker’s is apart.',
    ],
    reps,
    metrics: METRICS,
    async prepare(ctx) {
      setup = await browserSetup(ctx, id);
      const { service } = ctx.workers;
      const origin = service.url.origin;
      const context = await setup.browser.newContext({ viewport: { width: 1280, height: 900 } });
      const path = makeFile(setup.dir, sizeMiB * MIB);
      const size = statSync(path).size;
      // Untimed: the identity made (and its backup saved), and both ways run once.
      const warm = await context.newPage();
      await signIn(warm, origin, setup.key);
      const small = makeFile(setup.dir, MIB + 17);
      await uploadInApp(warm, small, true);
      await warm.reload();
      await warm.getByRole('heading', { name: 'Your files' }).waitFor();
      await uploadInApp(warm, small, false);
      await warm.close();
      await deleteAll(service.url, setup.key);

      const inApp = (encrypt: boolean) => async (): Promise<Rep> => {
        const page = await context.newPage();
        await signIn(page, origin, setup.key);
        const [ms, heap] = await withHeap(page, () => uploadInApp(page, path, encrypt));
        return {
          metrics: { ...transferred(ms, size), jsHeapMB: heap / 1e6 },
          cleanup: async () => {
            await page.close();
            await deleteAll(service.url, setup.key);
            return undefined;
          },
        };
      };
      const floor = async (): Promise<Rep> => {
        const page = await context.newPage();
        await page.goto(`${origin}/`);
        await chooseFile(page, path);
        const [ms, heap] = await withHeap(page, () =>
          page.evaluate(async (slice) => {
            const file = (document.getElementById('bench-file') as HTMLInputElement).files?.[0] as File;
            const worker = new Worker('/assets/e2e-worker.js');
            let next = 0;
            const ask = (message: Record<string, unknown>) =>
              new Promise<unknown>((resolve, reject) => {
                const id = ++next;
                worker.onmessage = ({ data }) => {
                  if (data.id !== id) return;
                  if ('error' in data) reject(new Error(data.error));
                  else resolve(data.value);
                };
                worker.postMessage({ id, ...message });
              });
            const random = (length: number) => crypto.getRandomValues(new Uint8Array(length));
            // A header the length of a web app's upload's (one X25519 stanza); its bytes are not checked here.
            const keys = { header: random(200), nonce: random(16), fileKey: random(16) };
            const started = performance.now();
            await ask({ kind: 'hash', file });
            const total = keys.header.length + 16 + file.size + Math.ceil(file.size / 65536) * 16;
            for (let start = 0; start < total; start += slice) {
              await ask({ kind: 'slice', file, ...keys, start, end: Math.min(total, start + slice) });
            }
            worker.terminate();
            return performance.now() - started;
          }, E2E_TUS_CHUNK_BYTES),
        );
        await page.close();
        return { metrics: { ...transferred(ms, size), jsHeapMB: heap / 1e6 } };
      };
      return [
        { id: 'web-plain', label: 'web app upload (plain)', role: 'baseline', worker: 'service', run: inApp(false) },
        {
          id: 'service',
          label: 'web app upload, encrypted end to end',
          role: 'service',
          worker: 'service',
          versus: 'web-plain',
          run: inApp(true),
        },
        {
          id: 'floor',
          label: 'floor: the Web Worker hashing and encrypting the file alone',
          role: 'peer',
          worker: 'service',
          versus: 'web-plain',
          run: floor,
        },
      ];
    },
    async teardown() {
      await setup?.browser.close();
    },
  };
}

/** Bundles bench/browser/floor.ts for the page (esbuild, as scripts/assets.mjs bundles the web app). */
async function floorScript(): Promise<string> {
  const result = await build({
    entryPoints: [join(ROOT, 'bench/browser/floor.ts')],
    bundle: true,
    write: false,
    format: 'iife',
    platform: 'browser',
    target: 'es2022',
    logLevel: 'silent',
  });
  return result.outputFiles[0]?.text ?? '';
}

/**
 * A share page's download: the plain file's Download link (the browser saves the response), and
 * the encrypted file's Download button (the page decrypts as it downloads and saves through its
 * Service Worker); the floor decrypts the same age file from a Blob with the page's own code.
 */
export function browserDownloadCase(id: string, sizeMiB: number, reps: number): BenchCase {
  let setup: Setup;
  return {
    id,
    title: `A share page downloads ${sizeMiB} MiB in Chromium, decrypting and plain`,
    description: [
      `${sizeMiB} MiB uploaded twice through the API (untimed): plain, and as an age file made by \`age -r\` with its ` +
        '`meta` (name, size, SHA-256), whose link carries the same header; the page opens with `#k=` and the key.',
      'Plain: the page’s Download link, the browser saving the response. Encrypted: the page’s Download button; the ' +
        'page checks and decrypts as it downloads, and streams the plaintext to its Service Worker, which the ' +
        'browser saves. Both timed from the click to the saved file complete (then deleted).',
      'Floor: the page’s own code (src/web/e2e-open.ts) opening the same age file from a Blob in the page, the ' +
        'SHA-256 against `meta` included, with no network and nothing saved.',
      'The page’s JS heap is its main thread’s (CDP Performance.getMetrics every 100 ms).',
    ],
    reps,
    metrics: METRICS,
    async prepare(ctx) {
      setup = await browserSetup(ctx, id);
      const { service } = ctx.workers;
      const size = sizeMiB * MIB;
      const plain = makeFile(setup.dir, size);
      const keyPath = join(setup.dir, 'link-key.txt');
      execFileSync('age-keygen', ['-o', keyPath], { stdio: 'pipe' });
      const identity = readFileSync(keyPath, 'utf8')
        .split('\n')
        .find((line) => line.startsWith('AGE-SECRET-KEY-')) as string;
      const recipient = execFileSync('age-keygen', ['-y', keyPath], { encoding: 'utf8' }).trim();
      const agePath = join(setup.dir, 'download.age');
      execFileSync('age', ['-r', recipient, '-o', agePath, plain]);
      const header = headerOf(agePath);
      const sha256 = createHash('sha256').update(readFileSync(plain)).digest('hex');
      const fileKey = await recoverFileKey(new TextEncoder().encode(header), { identity });
      const meta = sealMeta(fileKey, { name: 'bench.bin', type: 'application/octet-stream', size, sha256 });

      const put = async (path: string, query: string, headers: Record<string, string> = {}) => {
        const reply = await send(new URL(`/api/v2/upload/bench.bin${query}`, service.url), {
          method: 'PUT',
          headers: { ...bearer(setup.key), ...headers },
          ...fileBody(path),
        });
        if (reply.status !== 201) throw new Error(`upload: ${reply.status} ${reply.body.slice(0, 300)}`);
        return (JSON.parse(reply.body) as { data: { id: string } }).data.id;
      };
      const link = async (fileId: string, extra: Record<string, unknown>) => {
        const reply = await send(new URL(`/api/v2/files/${fileId}/links`, service.url), {
          method: 'POST',
          headers: { ...bearer(setup.key), 'content-type': 'application/json' },
          ...jsonBody({ label: 'bench', ...extra }),
        });
        if (reply.status !== 201) throw new Error(`link: ${reply.status} ${reply.body.slice(0, 300)}`);
        return (JSON.parse(reply.body) as { data: { url: string } }).data.url;
      };
      const plainUrl = await link(await put(plain, ''), {});
      const encryptedUrl = `${await link(await put(agePath, '?encryption=age', { 'edgeshare-meta': meta }), { e2eHeader: header })}#k=${identity}`;

      const context = await setup.browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
      const saved = async (page: Page, click: () => Promise<void>, done: () => Promise<void>) => {
        const [download] = await Promise.all([page.waitForEvent('download', { timeout: 60_000 }), click()]);
        await done();
        const path = await download.path();
        const bytes = statSync(path).size;
        await download.delete();
        if (bytes !== size) throw new Error(`the saved file has ${bytes} bytes, not ${size}`);
      };
      const onPage = (url: string, encrypted: boolean) => async (): Promise<Rep> => {
        const page = await context.newPage();
        await page.goto(url);
        const state = (name: string) => page.locator(`.e2e-status[data-state="${name}"]`);
        if (encrypted) await state('ready').waitFor({ timeout: 60_000 });
        const [ms, heap] = await withHeap(page, async () => {
          const started = performance.now();
          if (encrypted) {
            await saved(
              page,
              () => page.getByRole('button', { name: /^Download \(/ }).click(),
              () => state('done').waitFor({ timeout: 600_000 }),
            );
          } else {
            await saved(
              page,
              () => page.getByRole('link', { name: /^Download/ }).click(),
              async () => undefined,
            );
          }
          return performance.now() - started;
        });
        await page.close();
        return { metrics: { ...transferred(ms, size), jsHeapMB: heap / 1e6 } };
      };

      // The floor's page: the share page itself, with the bench's script added (so its CSP is set aside).
      const floorContext = await setup.browser.newContext({ bypassCSP: true });
      const script = await floorScript();
      const floor = async (): Promise<Rep> => {
        const page = await floorContext.newPage();
        await page.goto(`${service.url.origin}/`);
        await page.addScriptTag({ content: script });
        await chooseFile(page, agePath);
        const [result, heap] = await withHeap(page, () =>
          page.evaluate(
            ([text, key, sealed]) => {
              const file = (document.getElementById('bench-file') as HTMLInputElement).files?.[0] as File;
              type Floor = { decrypt: (...args: unknown[]) => Promise<{ bytes: number; ms: number }> };
              return (globalThis as unknown as { benchFloor: Floor }).benchFloor.decrypt(file, text, key, sealed);
            },
            [header, identity, meta] as const,
          ),
        );
        await page.close();
        if (result.bytes !== size) throw new Error(`the floor decrypted ${result.bytes} bytes, not ${size}`);
        return { metrics: { ...transferred(result.ms, size), jsHeapMB: heap / 1e6 } };
      };
      return [
        {
          id: 'share-plain',
          label: 'share page Download (plain)',
          role: 'baseline',
          worker: 'service',
          run: onPage(plainUrl, false),
        },
        {
          id: 'service',
          label: 'share page Download, decrypted as it downloads (Service Worker)',
          role: 'service',
          worker: 'service',
          versus: 'share-plain',
          run: onPage(encryptedUrl, true),
        },
        {
          id: 'floor',
          label: 'floor: the page’s code decrypting the age file from a Blob',
          role: 'peer',
          worker: 'service',
          versus: 'share-plain',
          run: floor,
        },
      ];
    },
    async teardown() {
      await setup?.browser.close();
    },
  };
}
