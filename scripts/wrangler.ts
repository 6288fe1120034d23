// Runs the project's own wrangler on the Node that runs this script (the pinned one under npm),
// offline-friendly: no telemetry, no request.cf fetch, no banner.
import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
const WRANGLER = fileURLToPath(new URL('../node_modules/wrangler/bin/wrangler.js', import.meta.url));

export function wranglerEnv(overrides: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    WRANGLER_SEND_METRICS: process.env.WRANGLER_SEND_METRICS ?? 'false',
    CLOUDFLARE_CF_FETCH_ENABLED: process.env.CLOUDFLARE_CF_FETCH_ENABLED ?? 'false',
    WRANGLER_HIDE_BANNER: process.env.WRANGLER_HIDE_BANNER ?? 'true',
    ...overrides,
  };
}

// `wrangler types` writes (and `--check`s) the bindings every checkout shares, so a developer's
// local secrets must not reach worker-configuration.d.ts: by default it types every name in
// .dev.vars or .env as a secret, and then `npm run check` says the committed file is out of date.
// Naming an env file stops it reading .dev.vars (/dev/null: there is none, on any system), and
// these two stop it reading .env files and the shell's environment. wrangler keeps the flag in
// the file's header, so its own check (and wrangler dev's) read no local secret either.
// ADMIN_TOKEN, the one secret, is typed in src/env.ts.
export const LOCAL_SECRETS_OFF = {
  CLOUDFLARE_LOAD_DEV_VARS_FROM_DOT_ENV: 'false',
  CLOUDFLARE_INCLUDE_PROCESS_ENV: 'false',
};

/** `wrangler types` arguments with no local env file, unless the caller names one. */
export const typesArgs = (args: string[]) =>
  args.some((arg) => arg === '--env-file' || arg.startsWith('--env-file=')) ? args : [...args, '--env-file=/dev/null'];

export class WranglerError extends Error {
  readonly args: string[];
  readonly output: string;

  constructor(args: string[], output: string) {
    super(`wrangler ${args.slice(0, 2).join(' ')} failed`);
    this.args = args;
    this.output = output;
  }
}

/** Runs wrangler to completion and returns its stdout; throws a WranglerError on failure. */
export function wrangler(args: string[], options: { quiet?: boolean } = {}): string {
  const result = spawnSync(process.execPath, [WRANGLER, ...args], {
    cwd: ROOT,
    env: wranglerEnv(),
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.status !== 0) throw new WranglerError(args, `${result.stdout ?? ''}${result.stderr ?? ''}`);
  if (!options.quiet) process.stdout.write(result.stdout ?? '');
  return result.stdout;
}

/** Prints a failed wrangler call's output and exits, for scripts' top level. */
export function exitOnWranglerError(error: unknown): never {
  if (error instanceof WranglerError) {
    process.stderr.write(error.output);
    console.error(error.message);
    process.exit(1);
  }
  throw error;
}

/** Starts wrangler attached to this terminal; resolves with its exit code. */
export function wranglerInteractive(args: string[], env: NodeJS.ProcessEnv = {}): Promise<number> {
  const child = spawn(process.execPath, [WRANGLER, ...args], { cwd: ROOT, env: wranglerEnv(env), stdio: 'inherit' });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => child.kill(signal));
  }
  return new Promise((resolve) => child.on('exit', (code) => resolve(code ?? 1)));
}

/** `--local` (default), or `--remote`, plus `--persist-to DIR` when given. */
export type Target = { remote: boolean; persistTo: string | undefined };

export function targetArgs(target: Target): string[] {
  if (target.remote) return ['--remote'];
  return ['--local', ...(target.persistTo ? ['--persist-to', target.persistTo] : [])];
}

export function applyMigrations(target: Target, quiet = true): void {
  wrangler(['d1', 'migrations', 'apply', 'DB', ...targetArgs(target)], { quiet });
}

/**
 * Runs SQL on the DB binding and returns the rows of its last statement. A fresh local
 * database gets its migrations applied first, on demand.
 */
export function sql<Row = Record<string, unknown>>(target: Target, command: string): Row[] {
  const args = ['d1', 'execute', 'DB', ...targetArgs(target), '--json', '--command', command];
  let out: string;
  try {
    out = wrangler(args, { quiet: true });
  } catch (error) {
    if (target.remote || !(error instanceof WranglerError) || !error.output.includes('no such table')) throw error;
    applyMigrations(target);
    out = wrangler(args, { quiet: true });
  }
  const parsed = JSON.parse(out) as { results: Row[] }[];
  return parsed.at(-1)?.results ?? [];
}

/** A SQL string literal; quotes doubled. Values here come from the operator, not from clients. */
export const literal = (value: string | number | null | undefined) =>
  value === null || value === undefined
    ? 'NULL'
    : typeof value === 'number'
      ? String(value)
      : `'${value.replaceAll("'", "''")}'`;
