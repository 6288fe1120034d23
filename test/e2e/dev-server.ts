// A real `wrangler dev` for end-to-end tests: the project's wrangler on the Node that runs the
// tests, offline (scripts/wrangler.ts), on 127.0.0.1 (wrangler.toml [dev] ip) and a free port,
// with its own throwaway local state. Start one per test file; stop it in afterAll.
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { applyMigrations, ROOT, wranglerEnv } from '../../scripts/wrangler.ts';

const WRANGLER = join(ROOT, 'node_modules/wrangler/bin/wrangler.js');
const run = promisify(execFile);

export type DevServer = {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  /** The local state directory (`--persist-to`), removed by stop(). */
  persistTo: string;
  /** Creates an API key in the server's database with `npm run keys` and returns it. */
  createKey(name?: string): Promise<string>;
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

/** A TCP port nothing listens on right now, on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

export async function startDevServer(options: DevServerOptions = {}): Promise<DevServer> {
  const persistTo = mkdtempSync(join(tmpdir(), 'edgeshare-e2e-'));
  const target = { remote: false, persistTo };
  applyMigrations(target);

  const [port, inspectorPort] = [await freePort(), await freePort()];
  const origin = `http://127.0.0.1:${port}`;
  const vars = Object.entries(options.vars ?? {}).flatMap(([name, value]) => ['--var', `${name}:${value}`]);
  // The ip comes from wrangler.toml [dev]; the inspector gets its own port so that runs (and a
  // developer's own `npm run dev`) never collide on the default one.
  const args = ['dev', '--port', String(port), '--inspector-port', String(inspectorPort), '--persist-to', persistTo];
  // detached: wrangler leads a new process group, so stop() can end workerd and esbuild with it.
  const child = spawn(process.execPath, [WRANGLER, ...args, '--show-interactive-dev-session=false', ...vars], {
    cwd: ROOT,
    env: { ...wranglerEnv(), XDG_CONFIG_HOME: join(persistTo, 'config') },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let log = '';
  const append = (chunk: Buffer) => {
    log = (log + chunk.toString()).slice(-20_000);
  };
  child.stdout.on('data', append);
  child.stderr.on('data', append);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) {
      process.kill(-child.pid, 'SIGTERM');
      const timer = setTimeout(() => child.pid !== undefined && process.kill(-child.pid, 'SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(persistTo, { recursive: true, force: true });
  };

  try {
    await waitForHealth(origin, options.startTimeoutMs ?? 90_000, () => child.exitCode !== null);
  } catch (error) {
    await stop();
    throw new Error(`wrangler dev did not start: ${(error as Error).message}\n${log}`);
  }

  return {
    origin,
    persistTo,
    output: () => log,
    stop,
    async createKey(name = 'e2e') {
      const { stdout } = await run(
        process.execPath,
        [join(ROOT, 'scripts/keys.ts'), 'create', '--name', name, '--persist-to', persistTo],
        {
          cwd: ROOT,
        },
      );
      const key = stdout.trim().split('\n').at(-1) ?? '';
      if (!key.startsWith('esk_')) throw new Error(`no key in keys output: ${stdout}`);
      return key;
    },
  };
}

async function waitForHealth(origin: string, timeoutMs: number, hasExited: () => boolean): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (hasExited()) throw new Error('wrangler exited');
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
