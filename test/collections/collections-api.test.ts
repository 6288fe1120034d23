// The owner's collection routes through the Worker: create, list, read, change, delete, with
// every refusal (scopes, unknown and other accounts' ids, validation).
import { env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { newKeyMaterial } from '../../src/keys/key-material';
import { SCOPES, type Scope } from '../../src/limiter/scopes';
import { insertKey } from '../../src/storage/keys-repo';
import { type ErrorBody, ISO_MS } from '../helpers/records';
import { expectError } from '../helpers/responses';
import { call } from '../helpers/worker';
import {
  account,
  COLLECTION_FIELDS,
  type CollectionRecord,
  json,
  makeCollection,
  memberIds,
  readCollection,
  uploadFile,
} from './collection-helpers';

type Page = { collections: CollectionRecord[]; pagination: Record<string, unknown> };

/** A key holding only `scopes`, of `accountId`'s account (moved there before its first use, as a rotation would). */
async function keyWith(scopes: Scope[], accountId: string) {
  const material = await newKeyMaterial();
  await insertKey(env.DB, { ...material, name: 'scoped' }, {}, new Date().toISOString(), {
    scopes: JSON.stringify(scopes),
  });
  await env.DB.prepare('UPDATE api_keys SET account_id = ?1 WHERE id = ?2').bind(accountId, material.id).run();
  return { Authorization: `Bearer ${material.key}` };
}

const UNKNOWN = `col_${'A'.repeat(22)}`;

describe('POST /api/v2/collections', () => {
  it('makes a collection: 201 with exactly the record fields, an opaque id and the archive URL', async () => {
    const { auth } = await account();
    const response = await call('/api/v2/collections', json({ name: 'Q3 report', note: 'for Ana' }, auth));
    expect(response.status).toBe(201);
    const body = (await response.json()) as { success: boolean; data: CollectionRecord; _perf: number };
    expect(body.success).toBe(true);
    expect(Number.isInteger(body._perf)).toBe(true);
    const made = body.data;
    expect(Object.keys(made).sort()).toEqual(COLLECTION_FIELDS);
    expect(made).toMatchObject({ name: 'Q3 report', note: 'for Ana', fileCount: 0, bytes: 0 });
    expect(made.id).toMatch(/^col_[A-Za-z0-9_-]{22}$/);
    expect(made.archiveUrl).toMatch(
      new RegExp(`^http://edgeshare\\.test/api/v2/collections/${made.id}/archive\\?v=[0-9a-f]{64}$`),
    );
    expect(made.createdAt).toMatch(ISO_MS);
    expect(made.updatedAt).toBe(made.createdAt);
  });

  it('takes its first members in the order given, counting their bytes; note defaults to null', async () => {
    const { auth } = await account();
    const a = await uploadFile(auth, 'a.txt', 'aaaa');
    const b = await uploadFile(auth, 'b.txt', 'bb');
    const c = await uploadFile(auth, 'c.txt', 'c');
    const made = await makeCollection(auth, { name: 'three', fileIds: [c.id, a.id, b.id, a.id] });
    expect(made).toMatchObject({ note: null, fileCount: 3, bytes: 7 });
    expect(await memberIds(auth, made.id)).toEqual([c.id, a.id, b.id]);
  });

  it('uses PUBLIC_BASE_URL for archiveUrl when set', async () => {
    const { auth } = await account();
    const made = await makeCollection(auth, { name: 'x' }, { PUBLIC_BASE_URL: 'https://api.example' });
    expect(made.archiveUrl.startsWith(`https://api.example/api/v2/collections/${made.id}/archive?v=`)).toBe(true);
  });

  it('counts a name in characters: 200 emoji are fine, 201 are not', async () => {
    const { auth } = await account();
    expect((await makeCollection(auth, { name: '📦'.repeat(200) })).name).toBe('📦'.repeat(200));
    const response = await call('/api/v2/collections', json({ name: '📦'.repeat(201) }, auth));
    const error = await expectError(response, 400, 'VALIDATION_ERROR', 'v2');
    expect(error.details?.[0]?.field).toBe('name');
  });

  it.each([
    [{}, 'name'],
    [{ name: '' }, 'name'],
    [{ name: '   ' }, 'name'],
    [{ name: 'x'.repeat(201) }, 'name'],
    [{ name: 'tab\there' }, 'name'],
    [{ name: 'bell\u0007' }, 'name'],
    [{ name: 'next\u0085line' }, 'name'],
    [{ name: 42 }, 'name'],
    [{ name: 'ok', note: 'x'.repeat(2001) }, 'note'],
    [{ name: 'ok', note: 'nul\u0000' }, 'note'],
    [{ name: 'ok', fileIds: 'abc' }, 'fileIds'],
    [{ name: 'ok', fileIds: Array.from({ length: 101 }, (_, i) => `id${i}`) }, 'fileIds'],
    [{ name: 'ok', colour: 'red' }, ''],
  ])('answers 400 VALIDATION_ERROR for %j, naming the field', async (body, field) => {
    const { auth } = await account();
    const error = await expectError(await call('/api/v2/collections', json(body, auth)), 400, 'VALIDATION_ERROR', 'v2');
    expect(error.details?.map((detail) => detail.field).join(' ')).toContain(field);
    expect(await listOf(auth)).toEqual([]);
  });

  it('keeps line breaks and tabs in a note', async () => {
    const { auth } = await account();
    expect((await makeCollection(auth, { name: 'n', note: 'line 1\nline 2\r\n\tend' })).note).toBe(
      'line 1\nline 2\r\n\tend',
    );
  });

  it('answers 400 VALIDATION_ERROR for malformed JSON and for another Content-Type', async () => {
    const { auth } = await account();
    const bad = await call('/api/v2/collections', {
      method: 'POST',
      headers: { ...auth, 'Content-Type': 'application/json' },
      body: '{"name":',
    });
    await expectError(bad, 400, 'VALIDATION_ERROR', 'v2');
    const text = await call('/api/v2/collections', { method: 'POST', headers: auth, body: 'name=x' });
    await expectError(text, 400, 'VALIDATION_ERROR', 'v2');
  });

  it('answers 404 FILE_NOT_FOUND naming every unknown, other account’s or expired id, and creates nothing', async () => {
    const { auth } = await account();
    const other = await account('other');
    const mine = await uploadFile(auth, 'mine.txt', 'mine');
    const theirs = await uploadFile(other.auth, 'theirs.txt', 'theirs');
    const expired = await uploadFile(auth, 'old.txt', 'old');
    await env.DB.prepare('UPDATE files SET expires_at = ?2 WHERE id = ?1')
      .bind(expired.id, new Date(Date.now() - 1000).toISOString())
      .run();
    const response = await call(
      '/api/v2/collections',
      json({ name: 'mixed', fileIds: [mine.id, theirs.id, 'nope', expired.id] }, auth),
    );
    const error = await expectError(response, 404, 'FILE_NOT_FOUND', 'v2');
    expect(error.details).toEqual([{ id: theirs.id }, { id: 'nope' }, { id: expired.id }]);
    expect(await listOf(auth)).toEqual([]);
  });

  it('answers 400 TOO_MANY_FILES past MAX_COLLECTION_FILES, and creates nothing', async () => {
    const { auth } = await account();
    const files = await Promise.all(['1', '2', '3'].map((n) => uploadFile(auth, `${n}.txt`, n)));
    const response = await call(
      '/api/v2/collections',
      json({ name: 'big', fileIds: files.map((file) => file.id) }, auth),
      { MAX_COLLECTION_FILES: '2' },
    );
    await expectError(response, 400, 'TOO_MANY_FILES', 'v2');
    expect(await listOf(auth)).toEqual([]);
  });
});

async function listOf(auth: Record<string, string>): Promise<string[]> {
  const response = await call('/api/v2/collections?limit=100', { headers: auth });
  expect(response.status).toBe(200);
  return ((await response.json()) as { data: Page }).data.collections.map((item) => item.id);
}

describe('GET /api/v2/collections', () => {
  it('lists the account’s collections newest first, paginated like the file list', async () => {
    const { auth } = await account();
    const made: CollectionRecord[] = [];
    for (const name of ['one', 'two', 'three']) {
      made.push(await makeCollection(auth, { name }));
      await new Promise((resolve) => setTimeout(resolve, 3));
    }
    await makeCollection((await account('other')).auth, { name: 'not mine' });
    const response = await call('/api/v2/collections?page=1&limit=2', { headers: auth });
    expect(response.status).toBe(200);
    const page = ((await response.json()) as { data: Page }).data;
    expect(page.collections.map((item) => item.name)).toEqual(['three', 'two']);
    expect(page.pagination).toEqual({ page: 1, limit: 2, total: 3, totalPages: 2, hasMore: true });
    const second = (
      (await (await call('/api/v2/collections?page=2&limit=2', { headers: auth })).json()) as {
        data: Page;
      }
    ).data;
    expect(second.collections.map((item) => item.name)).toEqual(['one']);
    expect(second.pagination).toEqual({ page: 2, limit: 2, total: 3, totalPages: 2, hasMore: false });
    expect(second.collections[0]).toEqual(made[0]);
  });

  it.each(['page=0', 'limit=101', 'limit=abc', 'page=1.5'])('answers 400 VALIDATION_ERROR for %s', async (query) => {
    const { auth } = await account();
    await expectError(await call(`/api/v2/collections?${query}`, { headers: auth }), 400, 'VALIDATION_ERROR', 'v2');
  });
});

describe('GET, PATCH and DELETE /api/v2/collections/{id}', () => {
  it('reads one collection', async () => {
    const { auth } = await account();
    const file = await uploadFile(auth, 'a.txt', 'abc');
    const made = await makeCollection(auth, { name: 'one', fileIds: [file.id] });
    expect(await readCollection(auth, made.id)).toEqual(made);
  });

  it.each([
    ['unknown', UNKNOWN],
    ['malformed', 'nope'],
  ])('answers 404 COLLECTION_NOT_FOUND for an %s id on every route', async (_, id) => {
    const { auth } = await account();
    await expectError(await call(`/api/v2/collections/${id}`, { headers: auth }), 404, 'COLLECTION_NOT_FOUND', 'v2');
    await expectError(
      await call(`/api/v2/collections/${id}`, json({ name: 'x' }, auth, 'PATCH')),
      404,
      'COLLECTION_NOT_FOUND',
      'v2',
    );
    await expectError(
      await call(`/api/v2/collections/${id}`, { method: 'DELETE', headers: auth }),
      404,
      'COLLECTION_NOT_FOUND',
      'v2',
    );
  });

  it('answers another account’s collection exactly like an unknown one, and changes nothing', async () => {
    const owner = await account('owner');
    const other = await account('other');
    const made = await makeCollection(owner.auth, { name: 'private' });
    const paths: [string, RequestInit][] = [
      [`/api/v2/collections/${made.id}`, { headers: other.auth }],
      [`/api/v2/collections/${made.id}`, json({ name: 'mine now' }, other.auth, 'PATCH')],
      [`/api/v2/collections/${made.id}`, { method: 'DELETE', headers: other.auth }],
      [`/api/v2/collections/${made.id}/files`, { headers: other.auth }],
      [`/api/v2/collections/${made.id}/links`, { headers: other.auth }],
      [`/api/v2/collections/${made.id}/links`, json({}, other.auth)],
      [`/api/v2/collections/${made.id}/archive`, { headers: other.auth }],
    ];
    for (const [path, init] of paths) {
      const error = await expectError(await call(path, init), 404, 'COLLECTION_NOT_FOUND', 'v2');
      expect(error.error).toBe('Collection not found');
    }
    expect(await readCollection(owner.auth, made.id)).toEqual(made);
  });

  it('changes the name and the note (null removes it), and moves updatedAt', async () => {
    const { auth } = await account();
    const made = await makeCollection(auth, { name: 'before', note: 'a note' });
    await new Promise((resolve) => setTimeout(resolve, 5));
    const response = await call(`/api/v2/collections/${made.id}`, json({ name: 'after' }, auth, 'PATCH'));
    expect(response.status).toBe(200);
    const renamed = ((await response.json()) as { data: CollectionRecord }).data;
    expect(renamed).toMatchObject({ name: 'after', note: 'a note', createdAt: made.createdAt });
    expect(Date.parse(renamed.updatedAt)).toBeGreaterThan(Date.parse(made.updatedAt));
    const cleared = await call(`/api/v2/collections/${made.id}`, json({ note: null }, auth, 'PATCH'));
    expect(((await cleared.json()) as { data: CollectionRecord }).data).toMatchObject({ name: 'after', note: null });
  });

  it.each([[{}], [{ name: '' }], [{ name: null }], [{ note: 5 }], [{ fileIds: [] }]])(
    'answers 400 VALIDATION_ERROR to PATCH %j, and changes nothing',
    async (body) => {
      const { auth } = await account();
      const made = await makeCollection(auth, { name: 'same' });
      await expectError(
        await call(`/api/v2/collections/${made.id}`, json(body, auth, 'PATCH')),
        400,
        'VALIDATION_ERROR',
        'v2',
      );
      expect(await readCollection(auth, made.id)).toEqual(made);
    },
  );

  it('deletes a collection and its links, never its files', async () => {
    const { auth } = await account();
    const file = await uploadFile(auth, 'kept.txt', 'kept');
    const made = await makeCollection(auth, { name: 'gone', fileIds: [file.id] });
    const link = await call(`/api/v2/collections/${made.id}/links`, json({}, auth));
    const linkId = ((await link.json()) as { data: { id: string } }).data.id;
    const response = await call(`/api/v2/collections/${made.id}`, { method: 'DELETE', headers: auth });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { data: unknown }).data).toEqual({ message: `Collection ${made.id} deleted` });
    await expectError(await call(`/api/v2/collections/${made.id}`, { headers: auth }), 404, 'COLLECTION_NOT_FOUND');
    await expectError(await call(`/api/v2/links/${linkId}`, { headers: auth }), 404, 'LINK_NOT_FOUND');
    expect(await listOf(auth)).toEqual([]);
    // The file stays, downloadable; its member and link rows are gone.
    const download = await call(`/api/v2/files/${file.id}/download`, { headers: auth });
    expect(await download.text()).toBe('kept');
    const rows = await env.DB.prepare(
      'SELECT (SELECT COUNT(*) FROM collection_files WHERE collection_id = ?1) AS members, (SELECT COUNT(*) FROM share_links WHERE collection_id = ?1) AS links',
    )
      .bind(made.id)
      .first();
    expect(rows).toEqual({ members: 0, links: 0 });
    await expectError(
      await call(`/api/v2/collections/${made.id}`, { method: 'DELETE', headers: auth }),
      404,
      'COLLECTION_NOT_FOUND',
    );
  });
});

describe('scopes', () => {
  it('reads need files:read; making and changing need links:write', async () => {
    const owner = await account('scopes');
    const made = await makeCollection(owner.auth, { name: 'scoped' });
    // Both keys are the owner's account's, so only the scope decides.
    const readOnly = await keyWith(
      SCOPES.filter((scope) => scope !== 'links:write'),
      owner.id,
    );
    const writeOnly = await keyWith(
      SCOPES.filter((scope) => scope !== 'files:read'),
      owner.id,
    );
    const refusals: [Record<string, string>, string, RequestInit, string][] = [
      [readOnly, '/api/v2/collections', json({ name: 'x' }, readOnly), 'links:write'],
      [readOnly, `/api/v2/collections/${made.id}`, json({ name: 'x' }, readOnly, 'PATCH'), 'links:write'],
      [readOnly, `/api/v2/collections/${made.id}`, { method: 'DELETE', headers: readOnly }, 'links:write'],
      [readOnly, `/api/v2/collections/${made.id}/files`, json({ fileIds: ['x'] }, readOnly), 'links:write'],
      [readOnly, `/api/v2/collections/${made.id}/files/x`, { method: 'DELETE', headers: readOnly }, 'links:write'],
      [readOnly, `/api/v2/collections/${made.id}/links`, json({}, readOnly), 'links:write'],
      [writeOnly, '/api/v2/collections', { headers: writeOnly }, 'files:read'],
      [writeOnly, `/api/v2/collections/${made.id}`, { headers: writeOnly }, 'files:read'],
      [writeOnly, `/api/v2/collections/${made.id}/files`, { headers: writeOnly }, 'files:read'],
      [writeOnly, `/api/v2/collections/${made.id}/links`, { headers: writeOnly }, 'files:read'],
      [writeOnly, `/api/v2/collections/${made.id}/archive`, { headers: writeOnly }, 'files:read'],
    ];
    for (const [, path, init, scope] of refusals) {
      const response = await call(path, init);
      const body = (await response.json()) as ErrorBody & { details: unknown };
      expect({ path, status: response.status, code: body.code, details: body.details }).toEqual({
        path,
        status: 403,
        code: 'FORBIDDEN',
        details: [{ scope }],
      });
    }
    expect(await readCollection(owner.auth, made.id)).toEqual(made);
    // And each key can do what its scope allows.
    expect((await call(`/api/v2/collections/${made.id}`, { headers: readOnly })).status).toBe(200);
    expect((await call(`/api/v2/collections/${made.id}`, json({ note: 'ok' }, writeOnly, 'PATCH'))).status).toBe(200);
  });

  it('answers 401 without a valid key', async () => {
    await expectError(await call('/api/v2/collections'), 401, 'UNAUTHORIZED');
    await expectError(
      await call('/api/v2/collections', json({ name: 'x' }, { Authorization: 'Bearer esk_nope' })),
      401,
      'UNAUTHORIZED',
    );
  });
});
