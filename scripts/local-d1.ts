// The local D1 database, the very one `wrangler dev` serves. A fresh state is made through the
// Miniflare API, the library wrangler itself runs `d1 execute --local` and `d1 migrations apply
// --local` on, with the same options, so the same SQLite file: Miniflare's D1 object is named by
// the binding's id (wrangler's rule: preview_database_id, else database_id, else the binding name),
// kept under <state>/v3/d1, and migrations are recorded in wrangler's table (d1_migrations), so
// `wrangler d1 migrations apply --local` sees ours as applied. Once that file exists, it is opened
// directly with node:sqlite (localD1File() names it as workerd does): no workerd to start, about a
// tenth of a command's CPU (0.3 s against 2.5). SQLite's own locks keep it safe beside a running
// wrangler dev, which opens the file in WAL mode as node:sqlite does. (The wrangler CLI took a
// process, a 15 MB bundle parsed, per statement, and one more workerd per migration.)
import { createHash, createHmac } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { fileURLToPath } from 'node:url';

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

/** Miniflare's Durable Object namespace for D1 databases: its unique key names their ids. */
const D1_NAMESPACE = 'miniflare-D1DatabaseObject';

/**
 * The SQLite file workerd keeps a local D1 database in: <state>/v3/d1/<namespace>/<id>.sqlite, the
 * id being idFromName(config.id) in Miniflare's D1 namespace, derived as workerd's
 * ActorIdFactoryImpl does: keyed by SHA-256 of the namespace's unique key, the first 16 bytes are
 * HMAC-SHA-256 of the name, the last 16 that of the first 16. (test/scripts/keys.cli.test.ts checks
 * it against the file Miniflare makes.)
 */
export function localD1File(state: string, id: string): string {
  const key = createHash('sha256').update(D1_NAMESPACE).digest();
  const first = createHmac('sha256', key).update(id).digest().subarray(0, 16);
  const last = createHmac('sha256', key).update(first).digest().subarray(0, 16);
  return join(state, 'v3', 'd1', D1_NAMESPACE, `${Buffer.concat([first, last]).toString('hex')}.sqlite`);
}

/** Where statements go: Miniflare's D1 (a fresh state), or the SQLite file itself. */
type Backend = {
  /** One statement; the rows it returns. */
  query<Row>(sql: string): Promise<Row[]>;
  /** Several statements in one transaction (a migration and its record). */
  execute(sql: string): Promise<void>;
  close(): Promise<void>;
};

/** The SQLite file, opened directly. */
function fileBackend(file: string): Backend {
  // Waits out a lock a running wrangler dev holds for a moment, as D1 would queue the statement.
  const db = new DatabaseSync(file, { timeout: 10_000 });
  return {
    async query<Row>(sql: string) {
      const statement = db.prepare(sql);
      // SQLite compiles the first statement only: one more would silently not run.
      if (sql.trim().length > statement.sourceSQL.length) throw new Error('one statement at a time');
      if (statement.columns().length === 0) {
        statement.run();
        return [];
      }
      return statement.all().map((row) => ({ ...row }) as Row);
    },
    async execute(sql: string) {
      db.exec('BEGIN');
      try {
        db.exec(sql);
        db.exec('COMMIT');
      } catch (error) {
        db.exec('ROLLBACK');
        throw error;
      }
    },
    async close() {
      db.close();
    },
  };
}

/** Makes the database through Miniflare, exactly as wrangler's own local `d1 execute` does. */
async function miniflareBackend(state: string, config: LocalD1Config): Promise<Backend> {
  // Loaded here, not at the top: only a fresh state needs it (0.6 s of CPU).
  const { convertV4MiniflareOptions, Miniflare } = await import('miniflare');
  // The options of wrangler's executeLocally (its d1/execute.ts).
  const mf = new Miniflare(
    convertV4MiniflareOptions({
      modules: true,
      script: '',
      resourcePersistencePath: join(state, 'v3'),
      d1Databases: { DATABASE: config.id },
    }),
  );
  try {
    const db = await mf.getD1Database('DATABASE');
    return {
      // One statement, as the file takes (D1 would run more, and answer the last one's rows).
      query: async <Row>(sql: string) => (await db.prepare(sql).all<Row>()).results,
      execute: async (sql: string) => void (await db.prepare(sql).all()),
      close: () => mf.dispose(),
    };
  } catch (error) {
    await mf.dispose();
    throw error;
  }
}

export class LocalD1 {
  readonly #backend: Backend;
  readonly config: LocalD1Config;

  private constructor(backend: Backend, config: LocalD1Config) {
    this.#backend = backend;
    this.config = config;
  }

  /** Opens the local state `persistTo` (wrangler's default, .wrangler/state, when undefined). */
  static async open(persistTo: string | undefined): Promise<LocalD1> {
    const config = localD1Config(readFileSync(join(ROOT, 'wrangler.toml'), 'utf8'));
    const state = resolve(ROOT, persistTo ?? '.wrangler/state');
    const file = localD1File(state, config.id);
    return new LocalD1(existsSync(file) ? fileBackend(file) : await miniflareBackend(state, config), config);
  }

  /** Runs one SQL statement and returns its rows, as `wrangler d1 execute --json` does. */
  async query<Row = Record<string, unknown>>(sql: string): Promise<Row[]> {
    try {
      return await this.#backend.query<Row>(sql);
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
      await this.#backend
        .execute(`${sql}\nINSERT INTO ${table} (name)\nvalues ('${name.replaceAll("'", "''")}');`)
        .catch((error: unknown) => {
          throw new LocalD1Error(`Migration ${name} failed: ${(error as Error).message}`);
        });
    }
    return pending;
  }

  /** Closes the database (and Miniflare's workerd, if it made it). */
  close(): Promise<void> {
    return this.#backend.close();
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
