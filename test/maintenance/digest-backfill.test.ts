// Migration 0008 against a database made by the schema before it, holding files, and the
// sweep's bounded backfill of their digests.
import { applyD1Migrations, env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { backfillDigests } from '../../src/maintenance/digest-backfill';
import { sha256Field, sha256Hex, textOf } from '../helpers/digests';
import { migration, migrationsAfter, schemaBefore } from '../helpers/migrations';
import { runCron } from '../helpers/storage';
import { call, createKey } from '../helpers/worker';

type Listed = { id: string; sha256: string | null };

/** A file as an older version stored it: a blob in R2 and a row without any digest column. */
async function seedOldFile(accountId: string, index: number, bytes: Uint8Array): Promise<string> {
  const id = `old${String(index).padStart(2, '0')}${'A'.repeat(17)}`;
  const r2Key = `files/${accountId}/${id}`;
  const object = await env.FILES.put(r2Key, bytes, { httpMetadata: { contentType: 'text/plain' } });
  const at = new Date(Date.now() - 86_400_000 + index).toISOString();
  await env.DB.prepare(
    `INSERT INTO files (id, account_id, filename, original_name, size, mime_type, r2_key, etag, share_token, is_public,
       download_count, uploaded_at, updated_at, expires_at)
     VALUES (?1, ?2, ?3, ?4, ?5, 'text/plain', ?6, ?7, ?8, 1, 0, ?9, ?9, NULL)`,
  )
    .bind(
      id,
      accountId,
      `old_${id}.txt`,
      `old ${index}.txt`,
      bytes.length,
      r2Key,
      object.httpEtag,
      `tok${id}${index}`,
      at,
    )
    .run();
  return id;
}

describe('migration 0008 and the digest backfill', () => {
  it('keeps every file listed and downloadable, then fills in their digests run by run', async () => {
    // Every migration before 0008 (0006 accounts included) builds this file's database alone.
    await schemaBefore('0008');
    const columns = await env.DB.prepare("SELECT name FROM pragma_table_info('files')").all<{ name: string }>();
    expect(columns.results.map((column) => column.name)).toContain('account_id');
    expect(columns.results.map((column) => column.name)).not.toContain('sha256');
    const { id: accountId, auth } = await createKey('backfill');
    const contents = Array.from({ length: 25 }, (_, index) => textOf(1000 + index, index + 1));
    const ids: string[] = [];
    for (const [index, bytes] of contents.entries()) ids.push(await seedOldFile(accountId, index, bytes));
    await applyD1Migrations(env.DB, migration('0008'));
    // Today's code also reads what later migrations add (0010's request_id): they follow, as in a deploy.
    await applyD1Migrations(env.DB, migrationsAfter('0008'));

    // Every old file is listed (sha256 null) and downloadable (no Repr-Digest yet).
    const list = async () =>
      ((await (await call('/api/v2/files?limit=100', { headers: auth })).json()) as { data: { files: Listed[] } }).data
        .files;
    const before = await list();
    expect(before.map((file) => file.id).sort()).toEqual([...ids].sort());
    expect(before.every((file) => file.sha256 === null)).toBe(true);
    const first = ids[0] ?? '';
    const download = await call(`/api/v2/files/${first}/download`, { headers: auth });
    expect(download.status).toBe(200);
    expect(download.headers.has('repr-digest')).toBe(false);
    expect(new Uint8Array(await download.arrayBuffer())).toEqual(contents[0]);

    // One bounded run (a few files), then the scheduled sweep finishes the rest.
    const run = await backfillDigests({ db: env.DB, bucket: env.FILES }, { files: 10, bytes: 5010 });
    expect(run).toEqual({ hashed: 5, missing: 0 });
    await runCron();
    await runCron();
    const after = await list();
    for (const [index, id] of ids.entries()) {
      expect(after.find((file) => file.id === id)?.sha256, id).toBe(await sha256Hex(contents[index] as Uint8Array));
    }
    const hashed = await call(`/api/v2/files/${first}/download`, { method: 'HEAD', headers: auth });
    expect(hashed.headers.get('repr-digest')).toBe(await sha256Field(contents[0] as Uint8Array));
  });

  it('never stalls on a file whose blob is gone: the next run goes past it', async () => {
    const { id: accountId } = await createKey('backfill-missing');
    const blobless = await seedOldFileNow(accountId, 'gone', textOf(10), false);
    const kept = await seedOldFileNow(accountId, 'kept', textOf(20), true);
    // Everything else in this file's database is hashed already; limits of one file a run.
    const runs = [];
    for (let i = 0; i < 4; i++)
      runs.push(await backfillDigests({ db: env.DB, bucket: env.FILES }, { files: 1, bytes: 1 }));
    expect(runs.some((run) => run.missing === 1)).toBe(true);
    const row = await env.DB.prepare('SELECT sha256 FROM files WHERE id = ?1').bind(kept).first<{ sha256: string }>();
    expect(row?.sha256).toBe(await sha256Hex(textOf(20)));
    const gone = await env.DB.prepare('SELECT sha256 FROM files WHERE id = ?1')
      .bind(blobless)
      .first<{ sha256: null }>();
    expect(gone?.sha256).toBeNull();
  });
});

/** An unhashed row (sha256 NULL), with or without its blob, uploaded a moment ago. */
async function seedOldFileNow(accountId: string, name: string, bytes: Uint8Array, blob: boolean): Promise<string> {
  const id = `${name}${'B'.repeat(22 - name.length)}`;
  const r2Key = `files/${accountId}/${id}`;
  const etag = blob ? ((await env.FILES.put(r2Key, bytes))?.httpEtag ?? '') : '"none"';
  const at = new Date().toISOString();
  await env.DB.prepare(
    `INSERT INTO files (id, account_id, filename, original_name, size, mime_type, r2_key, etag, share_token, is_public,
       download_count, uploaded_at, updated_at, expires_at, sha256)
     VALUES (?1, ?2, ?3, ?3, ?4, 'text/plain', ?5, ?6, ?7, 1, 0, ?8, ?8, NULL, NULL)`,
  )
    .bind(id, accountId, `${name}.txt`, bytes.length, r2Key, etag, `tok-${id}`, at)
    .run();
  return id;
}
