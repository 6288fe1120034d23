// Migration 0013 against a database made by the schema before it (0001–0012), holding files and
// share links of every kind (plain, password and cap with downloads counted, revoked, expired):
// share_links is rebuilt (file_id nullable, collection_id added) with every row kept as it was,
// its indexes and its trigger made again; every file and link stays listed, downloadable and
// working, and collections work beside them.
import { applyD1Migrations, env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { hashPassword } from '../../src/visitors/password';
import { basic, type LinkRecord, pathOf } from '../helpers/links';
import { migration, schemaBefore } from '../helpers/migrations';
import { upload } from '../helpers/upload';
import { call, createKey } from '../helpers/worker';
import { json } from './collection-helpers';

type LinkSeed = {
  id: string;
  file: number;
  password?: string;
  max?: number;
  count?: number;
  revoked?: boolean;
  expired?: boolean;
};

const LINKS: LinkSeed[] = [
  { id: 'plain' },
  { id: 'guarded', password: 'old secret', max: 3, count: 1 },
  { id: 'revoked', revoked: true },
  { id: 'expired', expired: true },
].map((seed, index) => ({ ...seed, id: `lnk_${seed.id.padEnd(22, 'Q')}`, file: index % 3 }));

const tokenOf = (index: number) => `token${index}`.padEnd(43, 'T');

describe('migration 0013_collections', () => {
  it('keeps every file and share link listed, downloadable and working, and adds collections', async () => {
    await schemaBefore('0013');
    // Today's code reads every file's standing and every account's suspension (0016, which touches
    // nothing 0013 does): that joins the old schema first, so the files below can be uploaded.
    await applyD1Migrations(env.DB, migration('0016'));
    const key = await createKey('before 0013');
    const files: { id: string; content: string }[] = [];
    for (const n of [0, 1, 2]) {
      const content = `old file ${n}`;
      const { response, body } = await upload(
        'v2',
        key.auth,
        { filename: `old-${n}.txt`, content },
        { fields: { isPublic: 'false' } },
      );
      expect(response.status).toBe(201);
      files.push({ id: body.data.id, content });
    }
    const now = Date.now();
    const iso = (at: number) => new Date(at).toISOString();
    for (const [index, seed] of LINKS.entries()) {
      const password = seed.password ? await hashPassword(seed.password) : null;
      await env.DB.prepare(
        `INSERT INTO share_links (id, file_id, account_id, token, label, password_hash, password_salt,
           password_iterations, max_downloads, download_count, expires_at, last_downloaded_at, created_at,
           updated_at, revoked_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, NULL, ?12, ?12, ?13)`,
      )
        .bind(
          seed.id,
          files[seed.file]?.id,
          key.id,
          tokenOf(index),
          `label ${index}`,
          password?.hash ?? null,
          password?.salt ?? null,
          password?.iterations ?? null,
          seed.max ?? null,
          seed.count ?? 0,
          seed.expired ? iso(now - 60_000) : iso(now + 3_600_000),
          iso(now - 1000 + index),
          seed.revoked ? iso(now) : null,
        )
        .run();
    }
    const snapshot = async (table: string) =>
      (await env.DB.prepare(`SELECT * FROM ${table} ORDER BY id`).all()).results;
    const filesBefore = await snapshot('files');
    const linksBefore = await snapshot('share_links');
    expect(linksBefore).toHaveLength(LINKS.length);

    for (const each of migration('0013')) {
      await env.DB.batch(each.queries.map((query) => env.DB.prepare(query)));
    }

    // Every row as it was; links gain collection_id NULL.
    expect(await snapshot('files')).toEqual(filesBefore);
    expect(await snapshot('share_links')).toEqual(linksBefore.map((row) => ({ ...row, collection_id: null })));
    // Today's code also reads files' end-to-end columns (0017, which needs 0013's tables): after it.
    await applyD1Migrations(env.DB, migration('0017'));
    const schema = await env.DB.prepare(
      "SELECT type, name FROM sqlite_master WHERE tbl_name IN ('share_links', 'files', 'collections', 'collection_files') AND type IN ('index', 'trigger') AND name NOT LIKE 'sqlite_%'",
    ).all<{ type: string; name: string }>();
    expect(schema.results.map((row) => `${row.type} ${row.name}`)).toEqual(
      expect.arrayContaining([
        'index share_links_by_file',
        'index share_links_by_account',
        'index share_links_by_collection',
        'trigger files_take_links',
        'trigger files_leave_collections',
        'trigger collections_take_members',
      ]),
    );

    // Every file still listed and downloadable.
    const list = await call('/api/v2/files?limit=100', { headers: key.auth });
    const listed = ((await list.json()) as { data: { files: { id: string }[] } }).data.files.map((file) => file.id);
    expect(listed.sort()).toEqual(files.map((file) => file.id).sort());
    for (const file of files) {
      expect(await (await call(`/api/v2/files/${file.id}/download`, { headers: key.auth })).text()).toBe(file.content);
    }

    // Every link read as before, now with collectionId null.
    const read = async (id: string) =>
      ((await (await call(`/api/v2/links/${id}`, { headers: key.auth })).json()) as { data: LinkRecord }).data;
    const [plain, guarded, revoked, expired] = await Promise.all(LINKS.map((seed) => read(seed.id)));
    expect(plain).toMatchObject({ fileId: files[0]?.id, collectionId: null, status: 'active', label: 'label 0' });
    expect(guarded).toMatchObject({ hasPassword: true, maxDownloads: 3, downloadCount: 1, status: 'active' });
    expect(revoked?.status).toBe('revoked');
    expect(expired?.status).toBe('expired');
    const ofFile = await call(`/api/v2/files/${files[1]?.id}/links`, { headers: key.auth });
    expect(((await ofFile.json()) as { data: { links: LinkRecord[] } }).data.links.map((link) => link.id)).toEqual([
      guarded?.id,
    ]);

    // Working: the plain link serves its private file; the password one with its password (and
    // counts on from 1); the dead ones stay dead.
    expect(await (await call(`${pathOf(plain as LinkRecord)}/download`)).text()).toBe(files[0]?.content);
    expect((await call(`${pathOf(guarded as LinkRecord)}/download`)).status).toBe(401);
    const unlocked = await call(`${pathOf(guarded as LinkRecord)}/download`, { headers: basic('old secret') });
    expect(await unlocked.text()).toBe(files[1]?.content);
    expect((await read(guarded?.id ?? '')).downloadCount).toBe(2);
    expect((await call(`${pathOf(revoked as LinkRecord)}/download`)).status).toBe(404);
    expect((await call(`${pathOf(expired as LinkRecord)}/download`)).status).toBe(404);

    // New links and collections work beside the old ones.
    const made = await call(`/api/v2/files/${files[2]?.id}/links`, json({ label: 'new' }, key.auth));
    expect(made.status).toBe(201);
    const collection = await call(
      '/api/v2/collections',
      json({ name: 'after 0013', fileIds: files.map((file) => file.id) }, key.auth),
    );
    expect(collection.status).toBe(201);
    const collectionId = ((await collection.json()) as { data: { id: string } }).data.id;
    expect((await call(`/api/v2/collections/${collectionId}/links`, json({}, key.auth))).status).toBe(201);

    // The trigger of 0007, made again: a deleted file takes its links (and leaves the collection).
    expect((await call(`/api/v2/files/${files[0]?.id}`, { method: 'DELETE', headers: key.auth })).status).toBe(200);
    expect(
      await env.DB.prepare('SELECT COUNT(*) AS n FROM share_links WHERE file_id = ?1').bind(files[0]?.id).first('n'),
    ).toBe(0);
    const after = await call(`/api/v2/collections/${collectionId}`, { headers: key.auth });
    expect(((await after.json()) as { data: { fileCount: number } }).data.fileCount).toBe(2);
  });
});
