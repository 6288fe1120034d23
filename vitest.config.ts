// First: the WebSocket to the tests inside workerd without compression (see the file).
import './test/helpers/ws-no-deflate.ts';
import { accessSync, constants, statfsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { cloudflareTest, readD1Migrations } from '@cloudflare/vitest-plugin';
import { defineConfig } from 'vitest/config';
import { unstable_getMiniflareWorkerOptions } from 'wrangler';
import { buildBrowserAssets } from './scripts/assets.mjs';

// The pages' generated browser code (Swagger UI, the web app's bundle) lives in public/ only once
// built; wrangler's [build] does that for dev and deploy, and this does it for the tests (they
// read public/ through the ASSETS binding, and the browser tests start wrangler dev).
buildBrowserAssets();

const migrations = await readD1Migrations(new URL('./migrations', import.meta.url).pathname);

// Node's compile cache for the Node processes the tests start, which inherit this: wrangler (a
// 15 MB bundle, parsed again for every CLI call and dev server), the CLIs, vitest's own workers.
// It took a fifth off the cli project's CPU. Kept with the installed packages, like Vite's cache.
process.env.NODE_COMPILE_CACHE ??= new URL('./node_modules/.cache/node-compile-cache', import.meta.url).pathname;

// Local storage in memory where there is room for it: Miniflare keeps D1, R2 and every Durable
// Object in SQLite files under the temporary directory, wrangler dev and clamd too, and on a disk
// their writes and deletions cost a third of the worker project's time in system CPU. A TMPDIR the
// user set is kept; a small /dev/shm (a container's 64 MB) is not used.
if (!process.env.TMPDIR) {
  try {
    const shm = statfsSync('/dev/shm');
    accessSync('/dev/shm', constants.W_OK);
    if (shm.bavail * shm.bsize >= 4 * 2 ** 30) process.env.TMPDIR = '/dev/shm';
  } catch {
    // No /dev/shm (macOS, Windows): the system's temporary directory.
  }
}

// The bindings the tests inside workerd add to wrangler.toml's.
const workerBindings = {
  TEST_MIGRATIONS: migrations,
  ADMIN_TOKEN: 'test-admin-token-0123456789abcdefghij',
  // Tests reach receivers and files on 127.0.0.1, as `npm run dev` does (a deployment never).
  ALLOW_LOOPBACK_TARGETS: 'true',
  // The operator's receiver (docs/abuse.md): a *.hooks.test host, which the tests that
  // read it intercept (test/helpers/webhooks.ts); elsewhere its events go nowhere.
  OPERATOR_WEBHOOK_URL: 'https://operator.hooks.test/hook',
  OPERATOR_WEBHOOK_SECRET: 'whsec_dGVzdC1vcGVyYXRvci1zZWNyZXQtMDEyMzQ1Njc4OQ==',
};

// The crypto libraries, pre-bundled by Vite for the tests inside workerd. Vite otherwise serves
// each of their modules rewritten, every call between them a lookup through an import object,
// which made @noble's ChaCha20-Poly1305 7 times slower than in Node (16 MiB: 1.6 s against 0.25).
// Deployed code is bundled by wrangler, so this is the tests' cost only. Vite keeps the bundles
// under node_modules/.vite.
const bundledDeps = {
  optimizer: {
    ssr: {
      enabled: true,
      include: [
        '@noble/ciphers/chacha.js',
        '@noble/hashes/sha2.js',
        '@noble/hashes/hkdf.js',
        '@noble/hashes/scrypt.js',
        '@noble/hashes/hmac.js',
        '@noble/curves/ed25519.js',
        '@scure/base',
        'age-encryption',
      ],
    },
  },
};

// What wrangler makes of wrangler.toml for Miniflare (wrangler's own reader), for the two bindings
// below that replace its entries and must otherwise stay as wrangler.toml has them.
const wranglerOptions = unstable_getMiniflareWorkerOptions(
  new URL('./wrangler.toml', import.meta.url).pathname,
).workerOptions;

// The Durable Objects the tests inside workerd hold on to: AUTH_GUARD's are named by the client's
// address, which test files share, so none may go idle with data that reset() would then not reach
// (test/helpers/worker-setup.ts).
const guard = wranglerOptions.durableObjects?.AUTH_GUARD;
if (!guard || typeof guard !== 'object') throw new Error('wrangler.toml binds no AUTH_GUARD Durable Object');
const durableObjects = { AUTH_GUARD: { ...guard, unsafePreventEviction: true } };

// The projects in Node: files take turns in a worker process (vitest's forks), as the workerd ones
// do, instead of a new process each that loads vitest, the helpers and the client again (a fifth of
// the e2e and browser projects' CPU). No file changes process-wide state (environment, globals,
// mocks); each makes its own keys, files and pages.
const sharedProcess = { isolate: false } as const;

// The queues' consumers as wrangler.toml has them, but a batch goes at once instead of after up to
// max_batch_timeout (1 s): the tests that wait for a delivery wait that much less, and the queue
// goes quiet sooner for those that check nothing more arrives (settle() in test/helpers/webhooks.ts).
const queueConsumers = Object.fromEntries(
  Object.entries(wranglerOptions.queueConsumers ?? {}).map(([queue, consumer]) => [
    queue,
    { ...consumer, maxBatchTimeout: 0 },
  ]),
);

// Our request log lines are JSON; keep them out of test output unless they report an error.
const quietLogs = (log: string) => !(log.startsWith('{"level":"info"') || log.includes('"msg":"request"'));

export default defineConfig({
  test: {
    onConsoleLog: quietLogs,
    // Test files at once, all projects together. Vitest's default (the cores less one) ran them one
    // at a time on 2 cores, yet most files spend much of their time waiting (on wrangler dev,
    // Chromium, queue batches, CLI processes), so twice the cores keeps the CPU busy.
    // `--maxWorkers N` or VITEST_MAX_WORKERS=N overrides it.
    maxWorkers: 2 * Math.max(2, availableParallelism()),
    projects: [
      {
        plugins: [
          cloudflareTest({
            remoteBindings: false,
            wrangler: { configPath: './wrangler.toml' },
            miniflare: {
              bindings: workerBindings,
              durableObjects,
              queueConsumers,
            },
          }),
        ],
        test: {
          name: 'worker',
          include: ['test/**/*.test.ts'],
          deps: bundledDeps,
          // The runner is the file name's suffix (CONTRIBUTING.md, "Where a test goes"): the others' files.
          exclude: ['test/**/*.{cli,e2e,node,browser,clamd}.test.ts'],
          setupFiles: ['./test/helpers/worker-setup.ts'],
          // Files take turns in a workerd process instead of one process each (about 6 s of CPU a
          // file: the runtime with every binding, the Worker's modules loaded again); each still
          // starts from empty storage (reset() in the setup file).
          isolate: false,
          testTimeout: 60_000,
        },
      },
      {
        // Scanning with a real clamd (test/helpers/clamd-global-setup.ts starts it): inside workerd like
        // the worker project, with SCANNER naming that clamd, so the real local queue's consumer scans
        // through connect(). Small limits make "too large" cheap: SCAN_MAX_BYTES 1 MiB, and clamd's
        // own StreamMaxLength 2 MiB. Without clamd: skipped with a banner (in CI: failing).
        plugins: [
          cloudflareTest(({ inject }) => {
            const clamd = inject('clamd');
            return {
              remoteBindings: false,
              wrangler: { configPath: './wrangler.toml' },
              miniflare: {
                bindings: {
                  ...workerBindings,
                  SCANNER: clamd?.scanner ?? '',
                  SCAN_MODE: 'gate',
                  SCAN_MAX_BYTES: String(1024 * 1024),
                  STOPPED_SCANNER: clamd?.stopped ?? '',
                },
                durableObjects,
                queueConsumers,
              },
            };
          }),
        ],
        test: {
          name: 'clamd',
          include: ['test/**/*.clamd.test.ts'],
          deps: bundledDeps,
          globalSetup: ['./test/helpers/clamd-global-setup.ts'],
          setupFiles: ['./test/helpers/worker-setup.ts'],
          isolate: false,
          testTimeout: 60_000,
        },
      },
      {
        test: {
          name: 'cli',
          ...sharedProcess,
          include: ['test/**/*.cli.test.ts'],
          environment: 'node',
          testTimeout: 120_000,
          hookTimeout: 120_000,
        },
      },
      {
        // Plain Node: what needs Node's own modules but no Worker runtime (the OpenAPI validator).
        test: {
          name: 'node',
          ...sharedProcess,
          include: ['test/**/*.node.test.ts'],
          environment: 'node',
          onConsoleLog: quietLogs,
          // Compiling every schema of both documents is CPU work: seconds, when other files run too.
          testTimeout: 30_000,
        },
      },
      {
        // A real `wrangler dev` (test/helpers/dev-server.ts): what only the HTTP layer shows. One, with an
        // admin token, is shared by the files (global setup); a file needing its own vars starts its own.
        test: {
          name: 'e2e',
          ...sharedProcess,
          include: ['test/**/*.e2e.test.ts'],
          environment: 'node',
          globalSetup: ['./test/helpers/e2e-global-setup.ts'],
          testTimeout: 60_000,
          hookTimeout: 180_000,
        },
      },
      {
        // The pages in real headless Chromium (playwright-core driving Debian's chromium) against a
        // real `wrangler dev`; skipped, loudly, where no Chromium is installed, and failing instead
        // in CI (CI=true), so that CI never passes without them (test/helpers/browser.ts).
        test: {
          name: 'browser',
          ...sharedProcess,
          include: ['test/**/*.browser.test.ts'],
          environment: 'node',
          // One wrangler dev (with an admin token) shared by the files; each waits until it answers.
          globalSetup: ['./test/helpers/browser-global-setup.ts'],
          setupFiles: ['./test/helpers/browser-setup.ts'],
          testTimeout: 60_000,
          hookTimeout: 180_000,
          // What a page shows after an API call: vitest's 1 s default is too short while several
          // Chromiums and wrangler devs share two cores (1 s missed once); a poll still ends at the match.
          expect: { poll: { timeout: 10_000 } },
        },
      },
    ],
  },
});
