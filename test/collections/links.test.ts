// Share links to a collection, owner's side: the same body and controls as a file's link, the
// record carrying collectionId (fileId null), and /api/v2/links/{linkId} serving both kinds.
import { env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { LINK_FIELDS, type LinkRecord, makeLink } from '../helpers/links';
import { ISO_MS } from '../helpers/records';
import { expectError } from '../helpers/responses';
import { call } from '../helpers/worker';
import { account, json, makeCollection, uploadFile } from './collection-helpers';

const UNKNOWN = `col_${'A'.repeat(22)}`;

async function collectionLink(auth: Record<string, string>, id: string, body: Record<string, unknown> = {}) {
  const response = await call(`/api/v2/collections/${id}/links`, json(body, auth));
  const text = await response.text();
  expect(response.status, text).toBe(201);
  return (JSON.parse(text) as { data: LinkRecord }).data;
}

describe('POST /api/v2/collections/{id}/links', () => {
  it('makes a link to the collection: the link record, with collectionId and fileId null', async () => {
    const { auth } = await account();
    const made = await makeCollection(auth, { name: 'shared' });
    const response = await call(
      `/api/v2/collections/${made.id}/links`,
      json({ label: 'team', password: 'correct horse', maxDownloads: 2, expiresIn: 3600 }, auth),
    );
    expect(response.status).toBe(201);
    const link = ((await response.json()) as { data: LinkRecord }).data;
    expect(Object.keys(link).sort()).toEqual(LINK_FIELDS);
    expect(link).toMatchObject({
      fileId: null,
      collectionId: made.id,
      label: 'team',
      hasPassword: true,
      maxDownloads: 2,
      downloadCount: 0,
      lastDownloadedAt: null,
      status: 'active',
    });
    expect(link.id).toMatch(/^lnk_[A-Za-z0-9_-]{22}$/);
    expect(link.url).toMatch(/^http:\/\/edgeshare\.test\/share\/[A-Za-z0-9_-]{43}$/);
    expect(link.url).not.toContain(made.id.slice(4));
    expect(link.createdAt).toMatch(ISO_MS);
    // The password is stored as a hash only.
    const row = await env.DB.prepare('SELECT * FROM share_links WHERE id = ?1').bind(link.id).first<{
      password_hash: string;
      file_id: string | null;
      collection_id: string;
    }>();
    expect(row?.password_hash).not.toContain('correct horse');
    expect(row).toMatchObject({ file_id: null, collection_id: made.id });
  });

  it.each([
    [{ maxDownloads: 0 }, 'maxDownloads'],
    [{ expiresIn: 10 }, 'expiresIn'],
    [{ password: '' }, 'password'],
    [{ colour: 'red' }, ''],
  ])('answers 400 VALIDATION_ERROR for %j, and makes nothing', async (body, field) => {
    const { auth } = await account();
    const made = await makeCollection(auth);
    const error = await expectError(
      await call(`/api/v2/collections/${made.id}/links`, json(body, auth)),
      400,
      'VALIDATION_ERROR',
      'v2',
    );
    expect(error.details?.map((detail) => detail.field).join(' ')).toContain(field);
    expect(await linksOf(auth, made.id)).toEqual([]);
  });

  it('answers 404 COLLECTION_NOT_FOUND for an unknown, malformed or another account’s collection', async () => {
    const { auth } = await account();
    const theirs = await makeCollection((await account('other')).auth, { name: 'theirs' });
    for (const id of [UNKNOWN, 'nope', theirs.id]) {
      await expectError(
        await call(`/api/v2/collections/${id}/links`, json({}, auth)),
        404,
        'COLLECTION_NOT_FOUND',
        'v2',
      );
      await expectError(await call(`/api/v2/collections/${id}/links`, { headers: auth }), 404, 'COLLECTION_NOT_FOUND');
    }
    expect(
      await env.DB.prepare('SELECT COUNT(*) AS n FROM share_links WHERE collection_id = ?1').bind(theirs.id).first('n'),
    ).toBe(0);
  });
});

async function linksOf(auth: Record<string, string>, id: string): Promise<LinkRecord[]> {
  const response = await call(`/api/v2/collections/${id}/links`, { headers: auth });
  expect(response.status).toBe(200);
  return ((await response.json()) as { data: { links: LinkRecord[] } }).data.links;
}

describe('a collection’s links', () => {
  it('are listed newest first, and only the collection’s own (not its files’ links)', async () => {
    const { auth } = await account();
    const file = await uploadFile(auth, 'a.txt', 'a');
    const made = await makeCollection(auth, { name: 'listed', fileIds: [file.id] });
    const first = await collectionLink(auth, made.id, { label: 'first' });
    await new Promise((resolve) => setTimeout(resolve, 3));
    const second = await collectionLink(auth, made.id, { label: 'second' });
    const fileLink = await makeLink(auth, file.id, { label: 'of the file' });
    expect((await linksOf(auth, made.id)).map((link) => link.id)).toEqual([second.id, first.id]);
    const ofFile = await call(`/api/v2/files/${file.id}/links`, { headers: auth });
    const fileLinks = ((await ofFile.json()) as { data: { links: LinkRecord[] } }).data.links;
    expect(fileLinks.map((link) => link.id)).toEqual([fileLink.id]);
    expect(fileLinks[0]).toMatchObject({ fileId: file.id, collectionId: null });
  });

  it('are read, changed and revoked through /api/v2/links/{linkId}, like a file’s', async () => {
    const { auth } = await account();
    const made = await makeCollection(auth, { name: 'managed' });
    const link = await collectionLink(auth, made.id);
    const read = await call(`/api/v2/links/${link.id}`, { headers: auth });
    expect(((await read.json()) as { data: LinkRecord }).data).toEqual(link);
    const patched = await call(`/api/v2/links/${link.id}`, json({ label: 'renamed', maxDownloads: 5 }, auth, 'PATCH'));
    expect(patched.status).toBe(200);
    expect(((await patched.json()) as { data: LinkRecord }).data).toMatchObject({
      collectionId: made.id,
      fileId: null,
      label: 'renamed',
      maxDownloads: 5,
    });
    const revoked = await call(`/api/v2/links/${link.id}`, { method: 'DELETE', headers: auth });
    expect(((await revoked.json()) as { data: LinkRecord }).data.status).toBe('revoked');
    expect((await linksOf(auth, made.id)).map((each) => each.status)).toEqual(['revoked']);
    // Another account sees none of it.
    const other = await account('other');
    await expectError(await call(`/api/v2/links/${link.id}`, { headers: other.auth }), 404, 'LINK_NOT_FOUND');
  });

  it('stay alive while their collection lives, even when every member is gone', async () => {
    const { auth } = await account();
    const file = await uploadFile(auth, 'a.txt', 'a');
    const made = await makeCollection(auth, { name: 'emptied', fileIds: [file.id] });
    const link = await collectionLink(auth, made.id);
    await call(`/api/v2/files/${file.id}`, { method: 'DELETE', headers: auth });
    const read = await call(`/api/v2/links/${link.id}`, { headers: auth });
    expect(read.status).toBe(200);
    expect(((await read.json()) as { data: LinkRecord }).data.status).toBe('active');
  });

  it('are at most 100 per collection: 400 TOO_MANY_LINKS', async () => {
    const { auth, id: accountId } = await account('many links');
    const made = await makeCollection(auth, { name: 'popular' });
    const now = new Date().toISOString();
    const rows = Array.from({ length: 100 }, (_, i) =>
      env.DB.prepare(
        'INSERT INTO share_links (id, collection_id, account_id, token, created_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?5, ?5)',
      ).bind(`lnk_${String(i).padStart(22, 'x')}`, made.id, accountId, `t${i}`.padEnd(43, 'y'), now),
    );
    await env.DB.batch(rows);
    const error = await expectError(
      await call(`/api/v2/collections/${made.id}/links`, json({}, auth)),
      400,
      'TOO_MANY_LINKS',
      'v2',
    );
    expect(error.error).toContain('collection');
  });
});
