// Migration 0016 (abuse handling) applied to a database made by the schema before it, holding an
// account with files, a made link, a collection with its link, and a file request that received
// a file: no row changes but for the new columns (NULL: good standing, never scanned), every file
// stays listed and downloadable (v1 and v2) with `moderation` and `scan` null, and every share
// link, the collection's page and ZIP, and the request's page work as before. This file rebuilds
// its own D1 (storage is per test file).
import { env } from 'cloudflare:test';
import { beforeAll, describe, expect, it } from 'vitest';
import { newFileId } from '../../src/files/ids';
import { newKeyMaterial } from '../../src/keys/key-material';
import { randomBase64Url } from '../../src/lib/crypto';
import { migration, schemaBefore } from '../helpers/migrations';
import { call } from '../helpers/worker';
import { readArchive } from '../helpers/zip-reader';

const HOUR = 3_600_000;
const TABLES = ['accounts', 'api_keys', 'files', 'share_links', 'collections', 'collection_files', 'file_requests'];

type Seeded = {
  auth: Record<string, string>;
  files: { id: string; content: string; token: string }[];
  linkToken: string;
  collectionToken: string;
  requestToken: string;
};

/** An account (founded by its key) with three files, a link, a collection and its link, a request: as stored before 0016. */
async function seed(): Promise<Seeded> {
  const material = await newKeyMaterial();
  const account = material.id;
  const at = new Date(Date.now() - HOUR).toISOString();
  const later = new Date(Date.now() + 24 * HOUR).toISOString();
  const requestId = randomBase64Url(16);
  const requestToken = randomBase64Url(24);
  const statements = [
    env.DB.prepare(
      `INSERT INTO api_keys (id, key_hash, prefix, name, status, created_at, updated_at)
       VALUES (?1, ?2, ?3, 'before 0016', 'active', ?4, ?4)`,
    ).bind(account, material.keyHash, material.prefix, at),
    env.DB.prepare(
      `INSERT INTO file_requests (id, account_id, token, label, max_files, created_at, updated_at, expires_at)
       VALUES (?1, ?2, ?3, 'Inbox', 5, ?4, ?4, ?5)`,
    ).bind(requestId, account, requestToken, at, later),
  ];
  const files: Seeded['files'] = [];
  for (const [index, content] of ['first file', 'second, private', 'received one'].entries()) {
    const id = newFileId();
    const token = randomBase64Url(24);
    const r2Key = `files/${account}/${id}`;
    const object = await env.FILES.put(r2Key, content, { httpMetadata: { contentType: 'text/plain' } });
    statements.push(
      env.DB.prepare(
        `INSERT INTO files (id, account_id, filename, original_name, size, mime_type, r2_key, etag, share_token,
           is_public, download_count, uploaded_at, updated_at, expires_at, request_id, sha256, crc32)
         VALUES (?1, ?2, ?3, ?4, ?5, 'text/plain', ?6, ?7, ?8, ?9, 0, ?10, ?10, NULL, ?11, NULL, NULL)`,
      ).bind(
        id,
        account,
        `stored_${id}.txt`,
        `file ${index}.txt`,
        content.length,
        r2Key,
        object.httpEtag,
        token,
        index === 1 ? 0 : 1,
        new Date(Date.now() - HOUR + index * 1000).toISOString(),
        index === 2 ? requestId : null,
      ),
    );
    files.push({ id, content, token });
  }
  const linkToken = randomBase64Url(32);
  const collectionToken = randomBase64Url(32);
  const collectionId = `col_${randomBase64Url(16)}`;
  const link = (id: string, token: string, fileId: string | null, collection: string | null) =>
    env.DB.prepare(
      `INSERT INTO share_links (id, file_id, collection_id, account_id, token, download_count, created_at, updated_at)
       VALUES (?1, ?2, ?3, ?4, ?5, 0, ?6, ?6)`,
    ).bind(id, fileId, collection, account, token, at);
  statements.push(
    link(`lnk_${randomBase64Url(16)}`, linkToken, files[1]?.id ?? '', null),
    env.DB.prepare(
      `INSERT INTO collections (id, account_id, name, note, created_at, updated_at) VALUES (?1, ?2, 'Both', NULL, ?3, ?3)`,
    ).bind(collectionId, account, at),
    ...[0, 1].map((position) =>
      env.DB.prepare(
        'INSERT INTO collection_files (collection_id, file_id, position, added_at) VALUES (?1, ?2, ?3, ?4)',
      ).bind(collectionId, files[position]?.id, position, at),
    ),
    link(`lnk_${randomBase64Url(16)}`, collectionToken, null, collectionId),
  );
  await env.DB.batch(statements);
  return { auth: { Authorization: `Bearer ${material.key}` }, files, linkToken, collectionToken, requestToken };
}

const dump = async (table: string) => (await env.DB.prepare(`SELECT * FROM ${table} ORDER BY rowid`).all()).results;

const FILE_COLUMNS = {
  moderation_state: null,
  moderation_statement: null,
  moderated_at: null,
  scan_status: null,
  scan_signature: null,
  scanned_at: null,
  released_at: null,
};

let seeded: Seeded;
const before: Record<string, Record<string, unknown>[]> = {};
const after: Record<string, Record<string, unknown>[]> = {};

beforeAll(async () => {
  await schemaBefore('0016');
  seeded = await seed();
  for (const table of TABLES) before[table] = await dump(table);
  expect(before.files).toHaveLength(3);
  await env.DB.batch(migration('0016')[0]?.queries.map((query) => env.DB.prepare(query)) ?? []);
  for (const table of TABLES) after[table] = await dump(table);
  // Today's code also reads files' end-to-end columns (0017, after this one): applied for the API checks.
  await env.DB.batch(migration('0017')[0]?.queries.map((query) => env.DB.prepare(query)) ?? []);
});

describe('migration 0016 on a database with files, links, a collection and a request', () => {
  it('changes no row: files and accounts only gain their new columns, NULL; the rest stays as it was', () => {
    expect(after.files).toEqual(before.files?.map((row) => ({ ...row, ...FILE_COLUMNS })));
    expect(after.accounts).toEqual(
      before.accounts?.map((row) => ({ ...row, suspended_at: null, suspension_statement: null })),
    );
    for (const table of ['api_keys', 'share_links', 'collections', 'collection_files', 'file_requests']) {
      expect(after[table], table).toEqual(before[table]);
    }
  });

  it('adds empty tables for disabled links, the blocklist and reports, with their indexes', async () => {
    for (const table of ['disabled_links', 'blocklist', 'reports', 'report_tallies']) {
      expect(await dump(table), table).toEqual([]);
    }
    const { results } = await env.DB.prepare(
      "SELECT name FROM sqlite_master WHERE type IN ('index', 'trigger') AND name NOT LIKE 'sqlite_%'",
    ).all<{ name: string }>();
    expect(results.map((row) => row.name)).toEqual(
      expect.arrayContaining([
        'blocklist_by_age',
        'reports_by_status',
        'reports_by_target',
        'share_links_drop_disabled',
      ]),
    );
    const plan = await env.DB.prepare('EXPLAIN QUERY PLAN SELECT 1 FROM blocklist WHERE sha256 = ?1')
      .bind('0'.repeat(64))
      .all<{ detail: string }>();
    expect(plan.results.map((row) => row.detail).join(' ')).toMatch(/USING (COVERING )?INDEX|PRIMARY KEY/);
  });

  it('keeps every file listed (v1 and v2, in good standing) and downloadable with its key', async () => {
    for (const version of ['v1', 'v2']) {
      const listed = await call(`/api/${version}/files?limit=100`, { headers: seeded.auth });
      const files = ((await listed.json()) as { data: { files: Record<string, unknown>[] } }).data.files;
      expect(files.map((file) => file.id).sort(), version).toEqual(seeded.files.map((file) => file.id).sort());
      for (const file of files) {
        if (version === 'v2') expect(file).toMatchObject({ moderation: null, scan: null });
        else expect(file).not.toHaveProperty('moderation');
      }
      for (const file of seeded.files) {
        const download = await call(`/api/${version}/files/${file.id}/download`, { headers: seeded.auth });
        expect(download.status, version).toBe(200);
        expect(await download.text()).toBe(file.content);
      }
    }
  });

  it('keeps share links, the collection’s page and ZIP, and the request’s page working', async () => {
    const [first, second] = seeded.files;
    expect(await (await call(`/share/${first?.token}/download`)).text()).toBe(first?.content);
    expect((await call(`/share/${second?.token}/download`)).status).toBe(404);
    expect(await (await call(`/share/${seeded.linkToken}/download`)).text()).toBe(second?.content);
    const page = await call(`/share/${seeded.collectionToken}`, { headers: { Accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('file 1.txt');
    const zip = await call(`/share/${seeded.collectionToken}/archive.zip`);
    expect(zip.status).toBe(200);
    const { members } = readArchive(new Uint8Array(await zip.arrayBuffer()));
    expect(members.map(({ entry, data }) => [entry.name, new TextDecoder().decode(data)])).toEqual([
      ['file 0.txt', first?.content],
      ['file 1.txt', second?.content],
    ]);
    expect((await call(`/r/${seeded.requestToken}`, { headers: { Accept: 'text/html' } })).status).toBe(200);
  });
});
