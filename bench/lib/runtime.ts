// Starts Workers for the bench the way wrangler would run them, minus the `wrangler dev` proxy:
// bundled by `wrangler deploy --dry-run`, bindings read from the Worker's wrangler.toml, served by
// the Miniflare API. Each Worker gets its own Miniflare instance, so its own workerd process,
// whose memory and CPU the harness reads from /proc.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, extname, join, resolve } from 'node:path';
import { convertV4MiniflareOptions, Miniflare } from 'miniflare';
import { unstable_getMiniflareWorkerOptions, unstable_readConfig, unstable_splitSqlQuery } from 'wrangler';
import { ROOT, wrangler } from '../../scripts/wrangler.ts';
import { childProcesses } from './proc.ts';

export type BenchWorker = {
  name: string;
  /** Stays the same across restarts (the port is kept). */
  url: URL;
  /** The workerd process serving this Worker (and its local R2, D1 and Durable Objects). */
  pid: number;
  mf: Miniflare;
  /** D1 bindings and their migrations folders, as wrangler.toml declares them. */
  d1: { binding: string; migrationsDir: string | undefined }[];
  /** A fresh workerd process on the same port and state: memory figures then start from a clean slate. */
  restart: () => Promise<void>;
  /** Calls `listener` with each log line the Worker writes (across restarts) until the returned function is called. */
  watchLogs: (listener: (message: string) => void) => () => void;
};

/** Bundles a Worker exactly as `wrangler deploy` would, into outDir. */
export function bundle(configPath: string, outDir: string): void {
  wrangler(['deploy', '--dry-run', '--config', configPath, '--outdir', outDir], { quiet: true });
}

/**
 * A copy of a Worker's wrangler.toml, written into `dir`, whose bundle substitutes modules:
 * wrangler's [alias] table (esbuild's alias), each import of a key resolving to its file. The
 * copy's paths (main, the assets directory, migrations) are made absolute, so it builds the same
 * Worker from there. (`wrangler --alias` cannot name `node:` modules: it splits at the first colon.)
 */
export function aliasedConfig(configPath: string, aliases: Record<string, string>, dir: string): string {
  const source = resolve(ROOT, configPath);
  const text = readFileSync(source, 'utf8').replace(
    /^(main|directory|migrations_dir)(\s*=\s*)"([^"]+)"/gm,
    (_line, key: string, equals: string, path: string) =>
      `${key}${equals}${JSON.stringify(resolve(dirname(source), path))}`,
  );
  if (/^\[alias\]/m.test(text)) throw new Error(`${configPath} has its own [alias] table: merge, do not append`);
  const table = Object.entries(aliases).map(
    ([from, to]) => `${JSON.stringify(from)} = ${JSON.stringify(resolve(ROOT, to))}`,
  );
  mkdirSync(dir, { recursive: true });
  const copy = join(dir, 'wrangler.toml');
  writeFileSync(copy, `${text}\n[alias]\n${table.join('\n')}\n`);
  return copy;
}

const MODULE_TYPES: Record<string, 'ESModule' | 'CompiledWasm' | 'Text' | 'Data'> = {
  '.js': 'ESModule',
  '.mjs': 'ESModule',
  '.wasm': 'CompiledWasm',
  '.txt': 'Text',
  '.html': 'Text',
  '.sql': 'Text',
  '.bin': 'Data',
};

/** The bundle's modules, the entry point first. */
function bundleModules(outDir: string) {
  const files = readdirSync(outDir).filter((file) => MODULE_TYPES[extname(file)] && !file.endsWith('.map'));
  files.sort((a, b) => Number(b === 'index.js') - Number(a === 'index.js') || a.localeCompare(b));
  return files.map((file) => ({ type: MODULE_TYPES[extname(file)] ?? 'ESModule', path: join(outDir, file) }));
}

type D1Config = { binding: string; migrations_dir?: string };

export type StartOptions = {
  name: string;
  configPath: string;
  bundleDir: string;
  stateDir: string;
  /** Vars and secrets added to (or replacing) the config's [vars]. */
  vars?: Record<string, string>;
  /** Queue producer bindings left out (the Worker then runs as if they were not configured). */
  withoutQueueProducers?: string[];
};

/** Starts one Worker in its own workerd process. Cron triggers are left out: the bench fires none. */
export async function startWorker(options: StartOptions): Promise<BenchWorker> {
  const configPath = resolve(ROOT, options.configPath);
  // wrangler's Config type comes from a package it bundles, so it reaches us untyped: name what we read.
  const config = unstable_readConfig({ config: configPath }) as { d1_databases: D1Config[] };
  const listeners = new Set<(message: string) => void>();
  const onLog = (message: string) => {
    for (const listener of listeners) listener(message);
  };
  const first = await launch(options, configPath, 0, onLog);
  const worker: BenchWorker = {
    name: options.name,
    url: first.url,
    pid: first.pid,
    mf: first.mf,
    d1: config.d1_databases.map((db) => ({
      binding: db.binding,
      migrationsDir: db.migrations_dir ? resolve(dirname(configPath), db.migrations_dir) : undefined,
    })),
    async restart() {
      await worker.mf.dispose();
      const next = await launch(options, configPath, Number(worker.url.port), onLog);
      worker.mf = next.mf;
      worker.pid = next.pid;
    },
    watchLogs(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
  return worker;
}

async function launch(options: StartOptions, configPath: string, port: number, onLog: (message: string) => void) {
  const { workerOptions } = unstable_getMiniflareWorkerOptions(configPath);
  const { cronTriggers: _crons, modulesRules: _rules, rootPath: _root, ...rest } = workerOptions;
  const dropped = new Set(options.withoutQueueProducers ?? []);
  if (dropped.size > 0 && rest.queueProducers) {
    // Miniflare takes the producers as a list of binding names or as a record by binding name.
    rest.queueProducers = Array.isArray(rest.queueProducers)
      ? rest.queueProducers.filter((binding) => !dropped.has(binding))
      : Object.fromEntries(Object.entries(rest.queueProducers).filter(([binding]) => !dropped.has(binding)));
  }
  const before = childProcesses('workerd');
  const mf = new Miniflare(
    convertV4MiniflareOptions({
      ...rest,
      name: options.name,
      modules: bundleModules(options.bundleDir),
      modulesRoot: options.bundleDir,
      bindings: { ...(workerOptions.bindings as Record<string, string>), ...options.vars },
      unsafeRegisterWorker: false,
      host: '127.0.0.1',
      port,
      resourcePersistencePath: options.stateDir,
      telemetry: { enabled: false },
      // The Worker's own log lines are part of its cost; printing them is not (a case may read them).
      handleStructuredLogs: ({ message }) => onLog(message),
    }),
  );
  const url = await mf.ready;
  const started = [...childProcesses('workerd')].filter((pid) => !before.has(pid));
  if (started.length !== 1)
    throw new Error(`expected one new workerd process for ${options.name}, saw ${started.length}`);
  return { mf, url, pid: started[0] as number };
}

/** Applies every D1 binding's migrations folder, files in name order, as wrangler would. */
export async function applyMigrations(worker: BenchWorker): Promise<void> {
  for (const { binding, migrationsDir } of worker.d1) {
    if (!migrationsDir) continue;
    const db = await worker.mf.getD1Database(binding);
    for (const file of readdirSync(migrationsDir)
      .filter((name) => name.endsWith('.sql'))
      .sort()) {
      const statements = unstable_splitSqlQuery(readFileSync(join(migrationsDir, file), 'utf8'));
      await db.batch(statements.map((statement) => db.prepare(statement)));
    }
  }
}
