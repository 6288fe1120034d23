// Migration 0010 against a database made by the schema before it, holding files: a schema-0005
// database (before accounts) with files, brought through every migration before 0010 (0006's
// accounts included), then 0010. Every row is kept as it was (key_id renamed account_id by 0006,
// request_id NULL), and the statements the API lists and reads files with work on
// it. The schema runs in a SQLite-backed Durable Object's storage (the same SQLite as D1), since
// the test's D1 already has every migration applied.
import { env, runInDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { listSql } from '../../src/storage/files-repo';

const schema0005 = env.TEST_MIGRATIONS.filter((migration) => migration.name < '0006');
const between = env.TEST_MIGRATIONS.filter((migration) => migration.name >= '0006' && migration.name < '0010');
const migration = env.TEST_MIGRATIONS.find((each) => each.name.startsWith('0010'));
const later = env.TEST_MIGRATIONS.filter((each) => each.name >= '0011');

const FILE = (n: number) => [
  `f${String(n).padStart(21, '0')}`,
  'key_old',
  `name-${n}_f${n}.txt`,
  `name ${n}.txt`,
  100 + n,
  'text/plain',
  `files/key_old/f${n}`,
  `"etag${n}"`,
  `share${String(n).padStart(27, '0')}`,
  n % 2,
  n,
  new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString(),
  new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString(),
  n === 3 ? '2099-01-01T00:00:00.000Z' : null,
];

describe('migration 0010_file_requests', () => {
  it('keeps every file of a database made before it, and the list and read statements work on it', async () => {
    expect(migration).toBeDefined();
    expect(schema0005.map((each) => each.name)).toContain('0005_list_sorts.sql');
    expect(between.map((each) => each.name)).toContain('0006_accounts.sql');
    await runInDurableObject(env.FILE_REQUESTS.getByName('migration-0010-test'), (_instance, state) => {
      const sql = state.storage.sql;
      for (const each of schema0005) for (const query of each.queries) sql.exec(query);
      sql.exec(
        `INSERT INTO api_keys (id, key_hash, prefix, name, status, created_at, updated_at)
         VALUES ('key_old', 'hash', 'esk_old', 'old', 'active', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')`,
      );
      for (let n = 1; n <= 5; n++) {
        sql.exec(
          `INSERT INTO files (id, key_id, filename, original_name, size, mime_type, r2_key, etag, share_token,
             is_public, download_count, uploaded_at, updated_at, expires_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
          ...FILE(n),
        );
      }
      const snapshot = () => sql.exec('SELECT * FROM files ORDER BY id').toArray();
      const old = snapshot();
      expect(old).toHaveLength(5);
      for (const each of between) for (const query of each.queries) sql.exec(query);
      const accounts = snapshot();
      for (const query of migration?.queries ?? []) sql.exec(query);

      // Nothing lost or rewritten: the same rows (the owner column named account_id since 0006),
      // with request_id NULL.
      const migrated = snapshot();
      expect(migrated).toEqual(accounts.map((row) => ({ ...row, request_id: null })));
      // sha256 NULL from 0008 (filled in later by the sweep's backfill).
      expect(migrated).toEqual(
        old.map(({ key_id, ...row }) => ({ ...row, account_id: key_id, sha256: null, request_id: null })),
      );
      expect(sql.exec("SELECT files FROM key_stats WHERE account_id = 'key_old'").one()).toEqual({ files: 5 });
      expect(sql.exec("SELECT id FROM accounts WHERE id = 'key_old'").toArray()).toEqual([{ id: 'key_old' }]);

      // The list statement of the API, newest first, and a new file with a request id beside them.
      // Today's statements also read what later migrations add (0012's crc32): they follow, as in a deploy.
      for (const each of later) for (const query of each.queries) sql.exec(query);
      const now = '2026-06-01T00:00:00.000Z';
      const page = sql.exec(listSql({ sort: 'uploadedAt', order: 'desc' }), 'key_old', now, 10, 0).toArray() as {
        id: string;
        total: number;
        request_id: string | null;
      }[];
      expect(page.map((row) => row.id)).toEqual([5, 4, 3, 2, 1].map((n) => FILE(n)[0]));
      expect(page[0]?.total).toBe(5);
      expect(page.every((row) => row.request_id === null)).toBe(true);
      sql.exec(
        `INSERT INTO file_requests (id, account_id, token, max_files, created_at, updated_at, expires_at)
         VALUES ('req', 'key_old', 'tok', 10, ?1, ?1, '2099-01-01T00:00:00.000Z')`,
        now,
      );
      expect(
        sql.exec("SELECT file_count, bytes, is_public, closed_at FROM file_requests WHERE id = 'req'").one(),
      ).toEqual({ file_count: 0, bytes: 0, is_public: 0, closed_at: null });
    });
  });
});
