// Archive URLs carry their version (`?v=<version>`, the ETag's value, URL-safe): every URL handed
// out (a collection record's archiveUrl, the share page's "Download all") names the archive as it
// is; once it changes, that URL answers 412 ARCHIVE_CHANGED naming the current one, on every
// archive route (the owner's collection and file-request archives, a link's /archive.zip and
// /download), GET or HEAD, with or without Range and validators, so a resume that sends no
// If-Range (`curl -C -`) fails instead of appending another archive's bytes. Without `v` an
// archive URL answers as ever.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { archiveVersion } from '../../src/collections/archive';
import { accessLog, gist, visit } from '../access-log/access-helpers';
import { basic, type LinkRecord, pathOf, readLink } from '../helpers/links';
import type { ErrorBody } from '../helpers/records';
import { makeRequest, newOwner, receivedRows, send } from '../helpers/requests';
import { expectError } from '../helpers/responses';
import { call, ORIGIN } from '../helpers/worker';
import {
  account,
  addFiles,
  archive,
  bytesOf,
  type CollectionRecord,
  json,
  makeCollection,
  readCollection,
  setCrc,
  uploadFile,
} from './collection-helpers';

/** The `v` of a URL. */
const versionIn = (url: string) => new URL(url).searchParams.get('v');
/** An ETag's value as a version: `"<hex>"` → `<hex>`, `W/"<hex>"` → `W.<hex>`. */
const versionOfEtag = (etag: string | null) => (etag ?? '').replace(/^W\//, 'W.').replace(/"/g, '');
/** The path and query of a URL, for `call`. */
const local = (url: string) => {
  const parsed = new URL(url);
  return `${parsed.pathname}${parsed.search}`;
};

/** An account with a collection of two files, and the record's archiveUrl before a third joins (stale after). */
async function changedCollection() {
  const owner = await account('versions', { rateLimitRequests: 10_000 });
  const a = await uploadFile(owner.auth, 'a.txt', 'first member');
  const b = await uploadFile(owner.auth, 'b.txt', 'second member');
  const c = await uploadFile(owner.auth, 'c.txt', 'third member');
  const made = await makeCollection(owner.auth, { name: 'Versions', fileIds: [a.id, b.id] });
  const grown = await addFiles(owner.auth, made.id, [c.id]);
  expect(grown.status).toBe(200);
  const current = ((await grown.json()) as { data: CollectionRecord }).data;
  return { ...owner, made, stale: made.archiveUrl, current: current.archiveUrl, files: { a, b, c } };
}

/** The 412's envelope, its one detail naming `url`. */
async function expectChanged(response: Response, url: string) {
  const body = await expectError(response, 412, 'ARCHIVE_CHANGED');
  expect(body.details).toEqual([{ url }]);
  return body;
}

describe('archiveVersion', () => {
  it('makes each archive ETag a URL-safe version that a URL gives back exactly, one version per ETag', () => {
    const etag = fc.tuple(fc.boolean(), fc.stringMatching(/^[A-Za-z0-9_-]{1,80}$/));
    fc.assert(
      fc.property(etag, etag, ([weak, value], [otherWeak, otherValue]) => {
        const version = archiveVersion(`${weak ? 'W/' : ''}"${value}"`);
        expect(encodeURIComponent(version)).toBe(version);
        expect(new URL(`https://files.example/archive.zip?v=${version}`).searchParams.get('v')).toBe(version);
        const other = archiveVersion(`${otherWeak ? 'W/' : ''}"${otherValue}"`);
        expect(other === version).toBe(weak === otherWeak && value === otherValue);
      }),
      { numRuns: 300 },
    );
    expect(archiveVersion(`"${'ab'.repeat(32)}"`)).toBe('ab'.repeat(32));
    expect(archiveVersion(`W/"${'ab'.repeat(32)}"`)).toBe(`W.${'ab'.repeat(32)}`);
    expect(() => archiveVersion('"a b"')).toThrow();
  });
});

describe('a collection record’s archiveUrl', () => {
  it('names the archive’s current version, its ETag’s value, in every record the API hands out', async () => {
    const { auth } = await account('versions-records', { rateLimitRequests: 10_000 });
    const a = await uploadFile(auth, 'a.txt', 'aaaa');
    const b = await uploadFile(auth, 'b.txt', 'bb');
    const made = await makeCollection(auth, { name: 'records', fileIds: [a.id] });
    const other = await makeCollection(auth, { name: 'other', fileIds: [a.id, b.id] });
    const etagOf = async (id: string) => versionOfEtag((await archive(auth, id, {}, 'HEAD')).headers.get('etag'));

    expect(versionIn(made.archiveUrl)).toBe(await etagOf(made.id));
    expect((await readCollection(auth, made.id)).archiveUrl).toBe(made.archiveUrl);
    const listed = await call('/api/v2/collections', { headers: auth });
    const page = ((await listed.json()) as { data: { collections: CollectionRecord[] } }).data.collections;
    expect(page.map((record) => versionIn(record.archiveUrl))).toEqual([await etagOf(other.id), await etagOf(made.id)]);
    expect(versionIn(other.archiveUrl)).not.toBe(versionIn(made.archiveUrl));

    // Renaming changes no byte of the archive (only its download name): the same version.
    const renamed = await call(`/api/v2/collections/${made.id}`, json({ name: 'renamed' }, auth, 'PATCH'));
    expect(((await renamed.json()) as { data: CollectionRecord }).data.archiveUrl).toBe(made.archiveUrl);
    // A member joining or leaving does: each answer carries the new one.
    const added = ((await (await addFiles(auth, made.id, [b.id])).json()) as { data: CollectionRecord }).data;
    expect(versionIn(added.archiveUrl)).toBe(await etagOf(made.id));
    expect(added.archiveUrl).not.toBe(made.archiveUrl);
    const removed = await call(`/api/v2/collections/${made.id}/files/${b.id}`, { method: 'DELETE', headers: auth });
    const after = ((await removed.json()) as { data: CollectionRecord }).data;
    // Back to the same members: the same bytes, so the same version as at first.
    expect(after.archiveUrl).toBe(made.archiveUrl);
  });

  it('carries a weak ETag’s version as W.<hex> while a CRC-32 is unknown, and that URL is served', async () => {
    const { auth } = await account('versions-weak');
    const a = await uploadFile(auth, 'a.txt', 'aaaa', { crc: false });
    const made = await makeCollection(auth, { name: 'weak', fileIds: [a.id] });
    expect(versionIn(made.archiveUrl)).toMatch(/^W\.[0-9a-f]{64}$/);
    const response = await call(local(made.archiveUrl), { headers: auth });
    expect(response.status).toBe(200);
    expect(versionOfEtag(response.headers.get('etag'))).toBe(versionIn(made.archiveUrl));
    await bytesOf(response);
    // Its CRC-32 known: a strong ETag, a new version; the weak one is stale.
    await setCrc(a.id, 0x12345678);
    const now = (await readCollection(auth, made.id)).archiveUrl;
    expect(versionIn(now)).toMatch(/^[0-9a-f]{64}$/);
    await expectChanged(await call(local(made.archiveUrl), { headers: auth }), now);
  });
});

describe('GET/HEAD /api/v2/collections/{id}/archive?v=', () => {
  it('answers a stale version 412 ARCHIVE_CHANGED naming the current URL, whatever the headers', async () => {
    const { auth, stale, current } = await changedCollection();
    const whole = await call(local(current), { headers: auth });
    const etag = whole.headers.get('etag') ?? '';
    await bytesOf(whole);
    for (const headers of [
      {},
      { Range: 'bytes=100-' },
      { Range: 'bytes=100-', 'If-Range': etag },
      { 'If-None-Match': etag },
    ] as Record<string, string>[]) {
      const response = await call(local(stale), { headers: { ...auth, ...headers } });
      const body = await expectChanged(response, current);
      expect(body.error).toMatch(/changed/);
      const head = await call(local(stale), { method: 'HEAD', headers: { ...auth, ...headers } });
      expect(head.status, JSON.stringify(headers)).toBe(412);
      expect(await head.text()).toBe('');
    }
  });

  it('answers a malformed version 412 too, and one given twice unless both are current', async () => {
    const { auth, made, current } = await changedCollection();
    const path = `/api/v2/collections/${made.id}/archive`;
    const now = versionIn(current) ?? '';
    for (const query of ['v=', 'v=nope', `v=W.${now}`, `v=%22${now}%22`, `v=${now.toUpperCase()}`, `v=${now}&v=x`]) {
      await expectChanged(await call(`${path}?${query}`, { headers: auth }), current);
    }
    const twice = await call(`${path}?v=${now}&v=${now}`, { headers: auth });
    expect(twice.status).toBe(200);
    await bytesOf(twice);
    // Another query parameter stays in the current URL.
    await expectChanged(await call(`${path}?x=1&v=old`, { headers: auth }), `${ORIGIN}${path}?x=1&v=${now}`);
  });

  it('answers the current version as without one: 200, 206, 304, HEAD, the same bytes', async () => {
    const { auth, made, current } = await changedCollection();
    const plain = await archive(auth, made.id);
    const etag = plain.headers.get('etag') ?? '';
    const bytes = await bytesOf(plain);
    const versioned = await call(local(current), { headers: auth });
    expect(versioned.status).toBe(200);
    expect(versioned.headers.get('etag')).toBe(etag);
    expect(await bytesOf(versioned)).toEqual(bytes);
    const range = await call(local(current), { headers: { ...auth, Range: 'bytes=10-19', 'If-Range': etag } });
    expect(range.status).toBe(206);
    expect(await bytesOf(range)).toEqual(bytes.subarray(10, 20));
    expect((await call(local(current), { headers: { ...auth, 'If-None-Match': etag } })).status).toBe(304);
    const head = await call(local(current), { method: 'HEAD', headers: auth });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(String(bytes.length));
  });

  it('answers without a version as ever, the archive as it is now', async () => {
    const { auth, made, current } = await changedCollection();
    const response = await archive(auth, made.id, { Range: 'bytes=0-' });
    expect(response.status).toBe(206);
    expect(versionOfEtag(response.headers.get('etag'))).toBe(versionIn(current));
    await bytesOf(response);
  });

  it('checks the collection first: an unknown one is 404 whatever its v', async () => {
    const { auth } = await account('versions-404');
    const response = await call(`/api/v2/collections/col_${'A'.repeat(22)}/archive?v=abc`, { headers: auth });
    await expectError(response, 404, 'COLLECTION_NOT_FOUND');
  });
});

describe('GET/HEAD /api/v2/requests/{id}/archive?v=', () => {
  it('answers a stale version 412 naming the current URL, the current one and none as ever', async () => {
    const owner = await newOwner();
    const request = await makeRequest(owner.auth, { label: 'versions' });
    const path = `/api/v2/requests/${request.id}/archive`;
    const upload = async (content: string) => {
      const response = await send(request, [{ filename: `${content}.txt`, content, type: 'text/plain' }]);
      expect(response.status).toBe(201);
      await response.arrayBuffer();
    };
    await upload('first');
    const before = versionOfEtag((await call(path, { method: 'HEAD', headers: owner.auth })).headers.get('etag'));
    await upload('second');
    const head = await call(path, { method: 'HEAD', headers: owner.auth });
    const now = versionOfEtag(head.headers.get('etag'));
    expect(now).not.toBe(before);
    expect((await receivedRows(request.id)).length).toBe(2);

    await expectChanged(await call(`${path}?v=${before}`, { headers: owner.auth }), `${ORIGIN}${path}?v=${now}`);
    const staleHead = await call(`${path}?v=${before}`, {
      method: 'HEAD',
      headers: { ...owner.auth, Range: 'bytes=1-' },
    });
    expect(staleHead.status).toBe(412);
    const current = await call(`${path}?v=${now}`, { headers: owner.auth });
    expect(current.status).toBe(200);
    const whole = await bytesOf(current);
    expect(await bytesOf(await call(path, { headers: owner.auth }))).toEqual(whole);
  });
});

async function collectionLink(auth: Record<string, string>, id: string, body: Record<string, unknown> = {}) {
  const response = await call(`/api/v2/collections/${id}/links`, json(body, auth));
  const text = await response.text();
  expect(response.status, text).toBe(201);
  return (JSON.parse(text) as { data: LinkRecord }).data;
}

/** The href of the share page's "Download all". */
async function downloadAllOf(path: string, headers: Record<string, string> = {}) {
  const page = await (await call(path, { headers: { Accept: 'text/html', ...headers } })).text();
  const href = /<a class="button download-all" href="([^"]+)"/.exec(page)?.[1];
  expect(href).toBeDefined();
  return href as string;
}

describe('a collection link’s archive?v=', () => {
  it('links “Download all” to the current version; once the collection changes it is 412 at /archive.zip and /download', async () => {
    const { auth, made, files } = await changedCollection();
    const link = await collectionLink(auth, made.id);
    const path = pathOf(link);
    const href = await downloadAllOf(path);
    expect(href).toBe(`${path}/archive.zip?v=${versionIn((await readCollection(auth, made.id)).archiveUrl)}`);
    const zip = await call(href);
    expect(zip.status).toBe(200);
    const bytes = await bytesOf(zip);
    expect(await bytesOf(await archive(auth, made.id))).toEqual(bytes);

    const removed = await call(`/api/v2/collections/${made.id}/files/${files.c.id}`, {
      method: 'DELETE',
      headers: auth,
    });
    expect(removed.status).toBe(200);
    await removed.arrayBuffer();
    const fresh = await downloadAllOf(path);
    expect(fresh).not.toBe(href);
    const stale = versionIn(`${ORIGIN}${href}`);
    await expectChanged(await call(href, { headers: { Range: `bytes=${bytes.length >> 1}-` } }), `${ORIGIN}${fresh}`);
    await expectChanged(
      await call(`${path}/download?v=${stale}`),
      `${ORIGIN}${fresh.replace('/archive.zip', '/download')}`,
    );
    expect((await call(href, { method: 'HEAD' })).status).toBe(412);
    // The fresh URL, and the one without a version, serve the archive as it is now.
    const now = await call(fresh);
    expect(now.status).toBe(200);
    expect(await bytesOf(now)).toEqual(await bytesOf(await call(`${path}/archive.zip`)));
  });

  it('spends nothing of a capped link’s budget on a 412, and logs it as refused-gone', async () => {
    const { auth, made, stale, current } = await changedCollection();
    const link = await collectionLink(auth, made.id, { maxDownloads: 1 });
    const path = pathOf(link);
    const staleZip = `${path}/archive.zip?v=${versionIn(stale)}`;
    for (let i = 0; i < 3; i++) {
      const { response, body } = await visit(staleZip);
      expect(response.status).toBe(412);
      expect((JSON.parse(new TextDecoder().decode(body)) as ErrorBody).code).toBe('ARCHIVE_CHANGED');
    }
    expect(await readLink(auth, link.id)).toMatchObject({ downloadCount: 0, status: 'active' });
    const { response, body } = await visit(`${path}/archive.zip?v=${versionIn(current)}`);
    expect(response.status).toBe(200);
    expect(await readLink(auth, link.id)).toMatchObject({ downloadCount: 1, status: 'exhausted' });
    const log = await accessLog(auth, `/links/${link.id}`);
    expect(log.events.map(gist)).toEqual([
      { kind: 'archive', outcome: 'served', status: 200, bytes: body.length, range: false },
      ...Array.from({ length: 3 }, () => ({
        kind: 'archive',
        outcome: 'refused-gone',
        status: 412,
        bytes: 0,
        range: false,
      })),
    ]);
  });

  it('asks a protected link’s password before saying anything of the archive’s version', async () => {
    const { auth, made, stale } = await changedCollection();
    const link = await collectionLink(auth, made.id, { password: 'correct horse battery' });
    const staleZip = `${pathOf(link)}/archive.zip?v=${versionIn(stale)}`;
    expect((await call(staleZip)).status).toBe(401);
    const refused = await call(staleZip, { headers: basic('correct horse battery') });
    expect(refused.status).toBe(412);
    await refused.arrayBuffer();
  });
});
