// The local D1 database, the very one `wrangler dev` serves, opened in this process through the
// Miniflare API: the library wrangler itself runs `d1 execute --local` and `d1 migrations apply
// --local` on. Same options, so the same SQLite file: Miniflare's D1 object is named by the
// binding's id (wrangler's rule: preview_database_id, else database_id, else the binding name),
// kept under <state>/v3/d1, and migrations are recorded in wrangler's table (d1_migrations), so
// `wrangler d1 migrations apply --local` sees ours as applied. One workerd process per command,
// where the wrangler CLI took a process (a 15 MB bundle parsed) per statement and one more
// workerd per migration: a fresh database's first key cost about 22 s of CPU, now about 2.
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Miniflare } from 'miniflare';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The D1 binding of wrangler.toml, as wrangler reads it for local use. */
export type LocalD1Config = { binding: string; id: string; migrationsDir: string; migrationsTable: string };

/**
 * The `DB` binding's block of wrangler.toml, read for the keys wrangler uses locally (a flat
 * `key = "value"` per line, as the file is written).
 */
export function localD1Config(toml: string, binding = 'DB'): LocalD1Config {
  const value = (block: string, key: string) => new RegExp(`^\\s*${key}\\s*=\\s*"([^"]*)"`, 'm').exec(block)?.[1];
  const block = toml
    .split(/^(?=\s*\[)/m)
    .find((section) => /^\s*\[\[d1_databases\]\]/.test(section) && value(section, 'binding') === binding);
  if (!block) throw new Error(`wrangler.toml has no [[d1_databases]] with binding = "${binding}"`);
  if (value(block, 'migrations_pattern') !== undefined) {
    throw new Error('scripts/local-d1.ts does not read migrations_pattern: name migrations <dir>/NNNN_name.sql');
  }
  return {
    binding,
    id: value(block, 'preview_database_id') ?? value(block, 'database_id') ?? binding,
    migrationsDir: resolve(ROOT, value(block, 'migrations_dir') ?? 'migrations'),
    migrationsTable: value(block, 'migrations_table') ?? 'd1_migrations',
  };
}

/** A failed statement on the local database: its message is D1's (the SQLite error). */
export class LocalD1Error extends Error {}

const quoted = (identifier: string) => `"${identifier.replaceAll('"', '""')}"`;
const migrationNumber = (name: string) => Number.parseInt(name, 10);

type D1 = Awaited<ReturnType<Miniflare['getD1Database']>>;

export class LocalD1 {
  readonly #mf: Miniflare;
  readonly #db: D1;
  readonly config: LocalD1Config;

  private constructor(mf: Miniflare, db: D1, config: LocalD1Config) {
    this.#mf = mf;
    this.#db = db;
    this.config = config;
  }

  /** Opens the local state `persistTo` (wrangler's default, .wrangler/state, when undefined). */
  static async open(persistTo: string | undefined): Promise<LocalD1> {
    const config = localD1Config(readFileSync(join(ROOT, 'wrangler.toml'), 'utf8'));
    const state = resolve(ROOT, persistTo ?? '.wrangler/state');
    // Loaded here, not at the top: a command refused for its arguments never needs it (0.6 s of CPU).
    const { convertV4MiniflareOptions, Miniflare } = await import('miniflare');
    // Exactly the options of wrangler's own local `d1 execute` (executeLocally in its d1/execute.ts).
    const mf = new Miniflare(
      convertV4MiniflareOptions({
        modules: true,
        script: '',
        resourcePersistencePath: join(state, 'v3'),
        d1Databases: { DATABASE: config.id },
      }),
    );
    try {
      return new LocalD1(mf, await mf.getD1Database('DATABASE'), config);
    } catch (error) {
      await mf.dispose();
      throw error;
    }
  }

  /**
   * Runs SQL (one statement or several) in one transaction and returns the rows of the last
   * statement, as `wrangler d1 execute --json` does.
   */
  async query<Row = Record<string, unknown>>(sql: string): Promise<Row[]> {
    try {
      return (await this.#db.prepare(sql).all<Row>()).results;
    } catch (error) {
      throw new LocalD1Error(error instanceof Error ? error.message : String(error));
    }
  }

  /**
   * Applies the migrations not yet recorded, in wrangler's order and way: each file and the row
   * recording it in one transaction. Returns the names applied.
   */
  async migrate(): Promise<string[]> {
    const { migrationsDir, migrationsTable } = this.config;
    const table = quoted(migrationsTable);
    // wrangler's own statements (d1/migrations/helpers.ts), so either tool reads the other's record.
    await this.query(`CREATE TABLE IF NOT EXISTS ${table}(
		id         INTEGER PRIMARY KEY AUTOINCREMENT,
		name       TEXT UNIQUE,
		applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP NOT NULL
);`);
    const applied = new Set(
      (await this.query<{ name: string }>(`SELECT name FROM ${table} ORDER BY id`)).map((row) => row.name),
    );
    const pending = readdirSync(migrationsDir)
      .filter((name) => name.endsWith('.sql') && !applied.has(name))
      .sort((a, b) => migrationNumber(a) - migrationNumber(b) || (a < b ? -1 : a > b ? 1 : 0));
    for (const name of pending) {
      const sql = readFileSync(join(migrationsDir, name), 'utf8');
      // SQLite itself splits the file into statements (a trigger's BEGIN … END included).
      await this.query(`${sql}\nINSERT INTO ${table} (name)\nvalues ('${name.replaceAll("'", "''")}');`).catch(
        (error: unknown) => {
          throw new LocalD1Error(`Migration ${name} failed: ${(error as Error).message}`);
        },
      );
    }
    return pending;
  }

  /** Stops this database's workerd process. */
  close(): Promise<void> {
    return this.#mf.dispose();
  }
}

/** Opens the local database, runs `use`, and closes it. */
export async function withLocalD1<T>(persistTo: string | undefined, use: (db: LocalD1) => Promise<T>): Promise<T> {
  const db = await LocalD1.open(persistTo);
  try {
    return await use(db);
  } finally {
    await db.close();
  }
}
