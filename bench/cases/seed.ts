// Rows written straight into a Worker's D1 (no HTTP): file records for the list case and the
// read baseline. They follow migrations/0001_init.sql; no blob stands behind them.
import type { BenchWorker } from '../lib/runtime.ts';

const FILE_COLUMNS =
  'id, account_id, filename, original_name, size, mime_type, r2_key, etag, share_token, is_public, download_count, uploaded_at, updated_at, expires_at';

/**
 * Inserts `count` file rows for `keyId` in one statement (a recursive CTE), newest first one
 * second apart. `tag` (6 characters of [A-Za-z0-9_-]) makes ids, names and tokens unique per seed.
 * Returns the database size after the insert, in bytes.
 */
export async function seedFiles(worker: BenchWorker, keyId: string, count: number, tag: string): Promise<number> {
  if (!/^[A-Za-z0-9_-]{6}$/.test(tag)) throw new Error('tag: 6 characters of [A-Za-z0-9_-]');
  const db = await worker.mf.getD1Database('DB');
  const result = await db
    .prepare(
      `INSERT INTO files (${FILE_COLUMNS})
       WITH RECURSIVE seq(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM seq WHERE n < ?1),
         rows AS (SELECT n, printf('%s%016d', ?2, n) AS id,
                         strftime('%Y-%m-%dT%H:%M:%fZ', 'now', printf('-%d seconds', n)) AS at FROM seq)
       SELECT id, ?3, 'seeded_' || id || '.bin', 'seeded file ' || n || '.bin', 1024, 'application/octet-stream',
              'files/' || ?3 || '/' || id, '"seeded"', 'tok_' || id || '_abcd', 1, 0, at, at, NULL
       FROM rows`,
    )
    .bind(count, tag, keyId)
    .run();
  return Number((result.meta as { size_after?: number }).size_after ?? Number.NaN);
}

/** The database's size in bytes, as D1 reports it after a statement. */
export async function databaseBytes(worker: BenchWorker): Promise<number> {
  const db = await worker.mf.getD1Database('DB');
  const result = await db.prepare('SELECT 1').run();
  return Number((result.meta as { size_after?: number }).size_after ?? Number.NaN);
}

const BASELINE_KEY = 'key_bench_baseline';
const seededBaselines = new WeakMap<BenchWorker, string>();

/** One key row and one file row in a baseline Worker's D1 (once per Worker); returns the file's id. */
export async function seedBaselineFile(worker: BenchWorker): Promise<string> {
  const known = seededBaselines.get(worker);
  if (known) return known;
  const db = await worker.mf.getD1Database('DB');
  const now = new Date().toISOString();
  await db
    .prepare(
      `INSERT INTO api_keys (id, key_hash, prefix, name, status, created_at, updated_at)
       VALUES (?1, 'baseline-hash', 'esk_baseli', 'baseline', 'active', ?2, ?2)`,
    )
    .bind(BASELINE_KEY, now)
    .run();
  await seedFiles(worker, BASELINE_KEY, 1, 'basels');
  const id = `basels${'1'.padStart(16, '0')}`;
  seededBaselines.set(worker, id);
  return id;
}
