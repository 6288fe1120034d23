// Runs the project's own wrangler on the Node that runs this script (the pinned one under npm),
// offline-friendly: no telemetry, no request.cf fetch, no banner. The local database is opened
// in-process instead (scripts/local-d1.ts): the same SQLite file, at a tenth of the CPU.
import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { LocalD1, LocalD1Error } from './local-d1.ts';

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

/** Prints a failed wrangler call's (or local database's) output and exits, for scripts' top level. */
export function exitOnWranglerError(error: unknown): never {
  if (error instanceof WranglerError) {
    process.stderr.write(error.output);
    console.error(error.message);
    process.exit(1);
  }
  if (error instanceof LocalD1Error) {
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

/** The local database (in `--persist-to DIR`, else .wrangler/state), or with `remote` the deployed one. */
export type Target = { remote: boolean; persistTo: string | undefined };

/** The local databases sql() and applyMigrations() opened, by state directory (each one workerd). */
const opened = new Map<string, Promise<LocalD1>>();

function local(target: Target): Promise<LocalD1> {
  const key = target.persistTo ?? '';
  let db = opened.get(key);
  if (!db) {
    db = LocalD1.open(target.persistTo);
    opened.set(key, db);
  }
  return db;
}

/** Closes the local databases opened here; a script calls it when done (process.exit needs not). */
export async function closeLocalDatabases(): Promise<void> {
  const dbs = [...opened.values()];
  opened.clear();
  await Promise.all(dbs.map(async (db) => (await db.catch(() => undefined))?.close()));
}

/** Applies the migrations not yet applied: locally in this process (scripts/local-d1.ts), remotely by wrangler. */
export async function applyMigrations(target: Target, quiet = true): Promise<void> {
  if (target.remote) {
    wrangler(['d1', 'migrations', 'apply', 'DB', '--remote'], { quiet });
    return;
  }
  const applied = await (await local(target)).migrate();
  if (quiet) return;
  console.log(applied.length === 0 ? 'No migrations to apply.' : applied.map((name) => `Applied ${name}`).join('\n'));
}

/**
 * Runs SQL on the DB binding and returns the rows of its last statement. A fresh local
 * database gets its migrations applied first, on demand.
 */
export async function sql<Row = Record<string, unknown>>(target: Target, command: string): Promise<Row[]> {
  if (target.remote) {
    const out = wrangler(['d1', 'execute', 'DB', '--remote', '--json', '--command', command], { quiet: true });
    return (JSON.parse(out) as { results: Row[] }[]).at(-1)?.results ?? [];
  }
  const db = await local(target);
  try {
    return await db.query<Row>(command);
  } catch (error) {
    if (!(error instanceof LocalD1Error) || !error.message.includes('no such table')) throw error;
    await db.migrate();
    return db.query<Row>(command);
  }
}

/** A SQL string literal; quotes doubled. Values here come from the operator, not from clients. */
export const literal = (value: string | number | null | undefined) =>
  value === null || value === undefined
    ? 'NULL'
    : typeof value === 'number'
      ? String(value)
      : `'${value.replaceAll("'", "''")}'`;
