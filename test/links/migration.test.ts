// Migration 0007 against a database made by the schema before it, holding files: it adds the
// share_links table and its trigger, and every stored file stays listed and downloadable. The
// code runs on the schema of every migration, so 0013 (collections, which rebuilds share_links)
// follows 0007 here, as it would on a database brought up to date.
import { env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { makeLink, pathOf } from '../helpers/links';
import { upload } from '../helpers/upload';
import { call, createKey } from '../helpers/worker';

const migration = (number = '0007') => {
  const found = env.TEST_MIGRATIONS.find((item) => item.name.startsWith(`${number}_`));
  if (!found) throw new Error(`migration ${number} is missing`);
  return found;
};

describe('migration 0007_share_links', () => {
  it('keeps every file listed and downloadable, and links work after it', async () => {
    // Back to the schema before 0007 (this file's storage is its own), then files made under it.
    await env.DB.batch([
      env.DB.prepare('DROP TRIGGER IF EXISTS files_take_links'),
      env.DB.prepare('DROP TABLE IF EXISTS share_links'),
      // What 0013 made (it runs again after 0007 below).
      env.DB.prepare('DROP TRIGGER IF EXISTS files_leave_collections'),
      env.DB.prepare('DROP TABLE IF EXISTS collection_files'),
      env.DB.prepare('DROP TABLE IF EXISTS collections'),
    ]);
    const key = await createKey('before 0007');
    const uploaded: { id: string; shareUrl: string }[] = [];
    for (const [i, isPublic] of ['true', 'false', 'true'].entries()) {
      const { response, body } = await upload(
        'v2',
        key.auth,
        { filename: `old-${i}.txt`, content: `old file ${i}` },
        { fields: { isPublic } },
      );
      expect(response.status).toBe(201);
      uploaded.push(body.data);
    }
    const before = await env.DB.prepare('SELECT * FROM files ORDER BY id').all();

    await env.DB.batch(migration().queries.map((query) => env.DB.prepare(query)));
    await env.DB.batch(migration('0013').queries.map((query) => env.DB.prepare(query)));

    const after = await env.DB.prepare('SELECT * FROM files ORDER BY id').all();
    expect(after.results).toEqual(before.results);
    const list = await call('/api/v2/files?limit=100', { headers: key.auth });
    const listed = ((await list.json()) as { data: { files: { id: string }[] } }).data.files.map((file) => file.id);
    expect(listed.sort()).toEqual(uploaded.map((file) => file.id).sort());
    for (const [i, file] of uploaded.entries()) {
      const download = await call(`/api/v2/files/${file.id}/download`, { headers: key.auth });
      expect(await download.text()).toBe(`old file ${i}`);
    }
    const shared = await call(`${new URL(uploaded[0]?.shareUrl ?? '').pathname}/download`);
    expect(shared.status).toBe(200);
    const link = await makeLink(key.auth, uploaded[1]?.id ?? '');
    expect(await (await call(`${pathOf(link)}/download`)).text()).toBe('old file 1');
  });
});
