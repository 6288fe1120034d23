// A real `wrangler dev` for end-to-end tests: the project's wrangler on the Node that runs the
// tests, offline (scripts/wrangler.ts), on 127.0.0.1 (wrangler.toml [dev] ip) and a free port,
// with its own throwaway local state. A file that needs vars of its own starts one (and stops it
// in afterAll); the others share their project's, started by its global setup (shareDevServer).
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { inject } from 'vitest';
import type { TestProject } from 'vitest/node';
import { withLocalD1 } from '../../scripts/local-d1.ts';
import { freePort } from '../../scripts/ports.ts';
import { ROOT, wranglerEnv } from '../../scripts/wrangler.ts';

const WRANGLER = join(ROOT, 'node_modules/wrangler/bin/wrangler.js');
const run = promisify(execFile);

export type DevServer = {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  /** The local state directory (`--persist-to`), removed by stop(). */
  persistTo: string;
  /** Creates an API key in the server's database with `npm run keys` (and these flags) and returns it. */
  createKey(name?: string, flags?: string[]): Promise<string>;
  /** What wrangler printed so far, for failure messages. */
  output(): string;
  /** Stops wrangler and everything it started (by its process group), then removes the state. */
  stop(): Promise<void>;
};

export type DevServerOptions = {
  /** Extra `--var NAME:VALUE` for the Worker. */
  vars?: Record<string, string>;
  /** How long to wait for /health, in ms. */
  startTimeoutMs?: number;
};

export { freePort };

/** A server that is starting: `ready` settles when it answers /health (or rejects, with its output). */
type LaunchedDevServer = DevServer & { ready: Promise<void>; log: string };

export async function startDevServer(options: DevServerOptions = {}): Promise<DevServer> {
  const server = await launchDevServer(options);
  await server.ready;
  return server;
}

/**
 * Starts wrangler dev and returns before it answers: migrations, wrangler's own start and its
 * first build take seconds of CPU, which a global setup lets the first test files use meanwhile.
 * Its output also goes to `log`, a file other processes (test files) can read.
 */
async function launchDevServer(options: DevServerOptions): Promise<LaunchedDevServer> {
  const dir = mkdtempSync(join(tmpdir(), 'edgeshare-e2e-'));
  const persistTo = join(dir, 'state');
  const log = join(dir, 'wrangler.log');
  const [port, inspectorPort] = [await freePort(), await freePort()];
  const origin = `http://127.0.0.1:${port}`;
  // Receivers and files on 127.0.0.1, as under `npm run dev` (a file's own vars may say otherwise).
  const allVars = { ALLOW_LOOPBACK_TARGETS: 'true', ...options.vars };
  const vars = Object.entries(allVars).flatMap(([name, value]) => ['--var', `${name}:${value}`]);
  let output = '';
  const append = (chunk: Buffer | string) => {
    output = (output + chunk.toString()).slice(-20_000);
    appendFileSync(log, chunk);
  };
  append('');

  let child: ReturnType<typeof spawn> | undefined;
  let exited = Promise.resolve();
  let stopping = false;
  let up = false;
  const start = async () => {
    // As `npm run dev` does: in this process, one workerd (scripts/local-d1.ts), not a wrangler per migration.
    await withLocalD1(persistTo, (db) => db.migrate());
    // The ip comes from wrangler.toml [dev]; the inspector gets its own port so that runs (and a
    // developer's own `npm run dev`) never collide on the default one.
    const args = ['dev', '--port', String(port), '--inspector-port', String(inspectorPort), '--persist-to', persistTo];
    for (let attempt = 1; !stopping; attempt++) {
      // detached: wrangler leads a new process group, so stop() can end workerd and esbuild with it.
      const started = spawn(process.execPath, [WRANGLER, ...args, '--show-interactive-dev-session=false', ...vars], {
        cwd: ROOT,
        env: { ...wranglerEnv(), XDG_CONFIG_HOME: join(dir, 'config') },
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: true,
      });
      child = started;
      let said = '';
      const hear = (chunk: Buffer) => {
        said += chunk.toString();
        append(chunk);
      };
      started.stdout?.on('data', hear);
      started.stderr?.on('data', hear);
      let gone = false;
      exited = new Promise<void>((resolve) =>
        started.once('exit', (code, signal) => {
          gone = true;
          // Once it has answered, its end is final: files waiting on a shared server stop waiting.
          if (!stopping) append(`\n${up ? EXITED : '[e2e] wrangler dev ended'} (${signal ?? code})\n`);
          resolve();
        }),
      );
      try {
        await waitForHealth(origin, options.startTimeoutMs ?? 90_000, () => gone);
        up = true;
        return;
      } catch (error) {
        // A port wrangler picks for itself (in the kernel's ephemeral range) can be taken by another
        // process's connection before wrangler binds it: it exits at once, and starts again well.
        if (!gone || attempt === 3 || !said.includes('Address already in use')) throw error;
        endGroup(started.pid, 'SIGKILL');
      }
    }
  };
  const ready = start().catch((error: unknown) => {
    const message = error instanceof Error ? error.message : String(error);
    append(`\n${EXITED}: did not start: ${message}\n`);
    throw new Error(`wrangler dev did not start: ${message}\n${output}`);
  });
  // Whoever awaits `ready` sees a failure; this keeps a global setup's unawaited one quiet.
  ready.catch(() => undefined);

  const stop = async () => {
    stopping = true;
    await ready.catch(() => undefined);
    if (child && child.exitCode === null && child.signalCode === null && child.pid !== undefined) {
      const pid = child.pid;
      endGroup(pid, 'SIGTERM');
      const timer = setTimeout(() => endGroup(pid, 'SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(dir, { recursive: true, force: true });
  };

  return {
    origin,
    persistTo,
    log,
    ready,
    output: () => output,
    stop,
    async createKey(name = 'e2e', flags: string[] = []) {
      const { stdout } = await run(
        process.execPath,
        [join(ROOT, 'scripts/keys.ts'), 'create', '--name', name, '--persist-to', persistTo, ...flags],
        { cwd: ROOT },
      );
      const key = stdout.trim().split('\n').at(-1) ?? '';
      if (!key.startsWith('esk_')) throw new Error(`no key in keys output: ${stdout}`);
      return key;
    },
  };
}

/** Signals the process group wrangler leads (it, workerd and esbuild), if it is still there. */
function endGroup(pid: number | undefined, signal: NodeJS.Signals) {
  try {
    if (pid !== undefined) process.kill(-pid, signal);
  } catch {
    // Already gone.
  }
}

/** The line a server's log ends with when wrangler exits or never started. */
const EXITED = '[e2e] wrangler dev exited';

/** Polls /health until it answers 200; fails early once `gone()` says wrangler is. */
async function waitForHealth(origin: string, timeoutMs: number, gone: () => boolean): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (gone()) throw new Error('wrangler exited');
    try {
      const response = await fetch(`${origin}/health`, { signal: AbortSignal.timeout(2_000) });
      await response.arrayBuffer();
      if (response.ok) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`no answer from ${origin}/health within ${timeoutMs} ms`);
}

const readLog = (log: string) => {
  try {
    return readFileSync(log, 'utf8');
  } catch {
    return '';
  }
};

/** What a global setup hands its project's test files about the server it shares. */
export type SharedDevServerInfo = { origin: string; adminToken: string; log: string };

declare module 'vitest' {
  export interface ProvidedContext {
    e2eServer: SharedDevServerInfo;
    browserServer: SharedDevServerInfo;
  }
}

/**
 * For a project's global setup: one `wrangler dev` (with an admin token, so files make their keys
 * through /admin/keys) for the project's files, under `name`; none when `enabled` is false.
 * Returns the teardown. Each file makes its own keys and files, so they can share it.
 */
export async function shareDevServer(
  project: TestProject,
  name: 'e2eServer' | 'browserServer',
  enabled = true,
): Promise<() => Promise<void>> {
  const adminToken = randomBytes(24).toString('base64url');
  // Keys get room for the pages and polls of several files at once on a loaded machine (the default,
  // 100 requests a minute, ran out for a key whose pages were slow); none of these files tests it.
  const vars = { ADMIN_TOKEN: adminToken, RATE_LIMIT_REQUESTS: '100000' };
  const server = enabled ? await launchDevServer({ vars }) : undefined;
  project.provide(name, { origin: server?.origin ?? '', adminToken, log: server?.log ?? '' });
  return async () => {
    await server?.stop();
  };
}

/** A project's shared server, in a test file: `origin`, and a new key, through the admin API. */
export type SharedDevServer = {
  origin: string;
  adminToken: string;
  /** A key (with the server's 100,000 requests a minute: room for pages and polls). */
  createKey(name?: string): Promise<string>;
  /** The end of what wrangler printed so far (all files' requests), for failure messages. */
  output(): string;
};

/** The shared server `name`, once it answers (it may still be starting when the first files run). */
export async function sharedDevServer(name: 'e2eServer' | 'browserServer'): Promise<SharedDevServer> {
  const { origin, adminToken, log } = inject(name);
  const output = () => readLog(log).slice(-20_000);
  try {
    await waitForHealth(origin, 150_000, () => readLog(log).includes(EXITED));
  } catch (error) {
    throw new Error(`the shared wrangler dev did not start: ${(error as Error).message}\n${output()}`);
  }
  return {
    origin,
    adminToken,
    createKey: (keyName = 'e2e') => adminKey(origin, adminToken, keyName),
    output,
  };
}

/** A fresh API key through POST /admin/keys. */
export async function adminKey(origin: string, adminToken: string, name: string): Promise<string> {
  const response = await fetch(`${origin}/admin/keys`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${adminToken}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ name }),
  });
  const body = (await response.json()) as { data?: { key?: string } };
  if (response.status !== 201 || !body.data?.key) {
    throw new Error(`could not create a key: ${response.status} ${JSON.stringify(body)}`);
  }
  return body.data.key;
}
