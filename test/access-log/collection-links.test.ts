// A collection link's visits in its own access log, as a file link's are: the page (`page`), the
// ZIP (`archive`, at /archive.zip and /download), one member (`download`), a member's preview
// (`preview`), password attempts (`password`), each outcome (served, partial, not-modified,
// refused-password, refused-exhausted, refused-gone, throttled). And the owner's
// GET /api/v2/collections/{id}/access: every link of the collection merged, newest first.
import { describe, expect, it } from 'vitest';
import { account, archive, json, makeCollection, uploadFile } from '../collections/collection-helpers';
import { basic, type LinkRecord, pathOf, readLink } from '../helpers/links';
import { call, inOneHourWindow } from '../helpers/worker';
import { accessLog, addressHeader, gist, visit, wholeLog } from './access-helpers';

const A = 'the first member, 27 bytes.';
const B = 'the second member, 28 bytes';
const HTML = { Accept: 'text/html' };

async function collectionLink(auth: Record<string, string>, id: string, body: Record<string, unknown> = {}) {
  const response = await call(`/api/v2/collections/${id}/links`, json(body, auth));
  const text = await response.text();
  expect(response.status, text).toBe(201);
  return (JSON.parse(text) as { data: LinkRecord }).data;
}

async function shared(body: Record<string, unknown> = {}) {
  const { auth } = await account('collection-log');
  const a = await uploadFile(auth, 'a.txt', A);
  const b = await uploadFile(auth, 'b.txt', B);
  const made = await makeCollection(auth, { name: 'Logged', fileIds: [a.id, b.id] });
  const link = await collectionLink(auth, made.id, body);
  const length = (await (await archive(auth, made.id)).arrayBuffer()).byteLength;
  return { auth, made, link, path: pathOf(link), a, b, length };
}

const form = (password: string): RequestInit => ({
  method: 'POST',
  headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams({ password }),
  redirect: 'manual',
});

describe('a collection link’s access log', () => {
  it('records the page, the ZIP, a range, a 304, a member and a preview, each with its bytes', async () => {
    const { auth, link, path, a, b, length } = await shared();
    expect((await visit(path, { headers: HTML })).response.status).toBe(200);
    const zip = await visit(`${path}/archive.zip`);
    const etag = zip.response.headers.get('etag') ?? '';
    expect((await visit(`${path}/download`, { headers: { Range: 'bytes=0-9' } })).response.status).toBe(206);
    expect((await visit(`${path}/archive.zip`, { headers: { 'If-None-Match': etag } })).response.status).toBe(304);
    expect((await visit(`${path}/files/${a.id}`)).response.status).toBe(200);
    expect((await visit(`${path}/files/${b.id}`, { headers: { Range: 'bytes=4-' } })).response.status).toBe(206);
    expect((await visit(`${path}/files/${a.id}/view`)).response.status).toBe(200);

    const log = await accessLog(auth, `/links/${link.id}`);
    expect(log.events.map(gist)).toEqual([
      { kind: 'preview', outcome: 'served', status: 200, bytes: A.length, range: false },
      { kind: 'download', outcome: 'partial', status: 206, bytes: B.length - 4, range: true },
      { kind: 'download', outcome: 'served', status: 200, bytes: A.length, range: false },
      { kind: 'archive', outcome: 'not-modified', status: 304, bytes: 0, range: false },
      { kind: 'archive', outcome: 'partial', status: 206, bytes: 10, range: true },
      { kind: 'archive', outcome: 'served', status: 200, bytes: length, range: false },
      { kind: 'page', outcome: 'served', status: 200, bytes: 0, range: false },
    ]);
    expect(log.events.every((event) => event.linkId === link.id)).toBe(true);
    const record = await readLink(auth, link.id);
    expect(record).toMatchObject({ visitors: 7, droppedEvents: 0 });
    expect(record.lastAccessAt).toBe(log.events[0]?.at);
  });

  it('records password attempts, refused visits and the exhausted link', async () => {
    const { auth, link, path, a, length } = await shared({ password: 'right one', maxDownloads: 1 });
    expect((await visit(path, { headers: HTML })).response.status).toBe(200);
    expect((await visit(path, form('wrong one'))).response.status).toBe(401);
    expect((await visit(path, form('right one'))).response.status).toBe(303);
    expect((await visit(`${path}/archive.zip`)).response.status).toBe(401);
    expect((await visit(`${path}/files/${a.id}`, { headers: basic('wrong one') })).response.status).toBe(401);
    expect((await visit(`${path}/archive.zip`, { headers: basic('right one') })).response.status).toBe(200);
    expect((await visit(path, { headers: HTML })).response.status).toBe(404);
    expect((await visit(`${path}/files/${a.id}`, { headers: basic('right one') })).response.status).toBe(404);
    expect((await visit(`${path}/download`, { headers: basic('right one') })).response.status).toBe(404);

    const { events } = await accessLog(auth, `/links/${link.id}`);
    expect(events.map(gist)).toEqual([
      { kind: 'archive', outcome: 'refused-exhausted', status: 404, bytes: 0, range: false },
      { kind: 'download', outcome: 'refused-exhausted', status: 404, bytes: 0, range: false },
      { kind: 'page', outcome: 'refused-exhausted', status: 404, bytes: 0, range: false },
      { kind: 'archive', outcome: 'served', status: 200, bytes: length, range: false },
      { kind: 'download', outcome: 'refused-password', status: 401, bytes: 0, range: false },
      { kind: 'archive', outcome: 'refused-password', status: 401, bytes: 0, range: false },
      { kind: 'password', outcome: 'served', status: 303, bytes: 0, range: false },
      { kind: 'password', outcome: 'refused-password', status: 401, bytes: 0, range: false },
      { kind: 'page', outcome: 'refused-password', status: 200, bytes: 0, range: false },
    ]);
  });

  it('records a revoked link’s visits, and a member not in the collection, as gone', async () => {
    const { auth, link, path, a } = await shared();
    const outsider = await uploadFile(auth, 'outside.txt', 'not a member');
    expect((await visit(`${path}/files/${outsider.id}`)).response.status).toBe(404);
    expect((await call(`/api/v2/links/${link.id}`, { method: 'DELETE', headers: auth })).status).toBe(200);
    expect((await visit(`${path}/archive.zip`)).response.status).toBe(404);
    expect((await visit(`${path}/files/${a.id}`)).response.status).toBe(404);
    expect((await visit(path, { headers: HTML })).response.status).toBe(404);
    const { events } = await accessLog(auth, `/links/${link.id}`);
    expect(events.map(gist)).toEqual([
      { kind: 'page', outcome: 'refused-gone', status: 404, bytes: 0, range: false },
      { kind: 'download', outcome: 'refused-gone', status: 404, bytes: 0, range: false },
      { kind: 'archive', outcome: 'refused-gone', status: 404, bytes: 0, range: false },
      { kind: 'download', outcome: 'refused-gone', status: 404, bytes: 0, range: false },
    ]);
  });

  it('records ZIP downloads refused by the per-address throttle', async () => {
    const { auth, link, path } = await shared();
    const from = addressHeader();
    // Both ZIPs count in one window.
    const tight = await inOneHourWindow('LINK_DOWNLOAD_WINDOW_SECONDS', { LINK_DOWNLOAD_LIMIT: '1' });
    expect((await visit(`${path}/archive.zip`, { headers: from }, tight)).response.status).toBe(200);
    expect((await visit(`${path}/archive.zip`, { headers: from }, tight)).response.status).toBe(429);
    const { events } = await accessLog(auth, `/links/${link.id}`);
    expect(gist(events[0] as (typeof events)[number])).toEqual({
      kind: 'archive',
      outcome: 'throttled',
      status: 429,
      bytes: 0,
      range: false,
    });
  });
});

describe('GET /api/v2/collections/{id}/access', () => {
  it('merges every link of the collection, newest first, with each event’s linkId, page by page', async () => {
    const { auth, made, link, path } = await shared();
    const second = await collectionLink(auth, made.id, { label: 'second' });
    expect((await visit(path, { headers: HTML })).response.status).toBe(200);
    expect((await visit(`${pathOf(second)}/archive.zip`)).response.status).toBe(200);
    expect((await visit(`${path}/download`)).response.status).toBe(200);
    const whole = await wholeLog(auth, `/collections/${made.id}`, 1);
    expect(whole.map((event) => [event.kind, event.linkId])).toEqual([
      ['archive', link.id],
      ['archive', second.id],
      ['page', link.id],
    ]);
    const first = await accessLog(auth, `/collections/${made.id}`, '?limit=2');
    expect(first.events).toHaveLength(2);
    expect(first.nextCursor).not.toBeNull();
  });

  it('is COLLECTION_NOT_FOUND for another account’s, an unknown or a malformed id; needs files:read', async () => {
    const { made } = await shared();
    const other = await account('other-log');
    for (const id of [made.id, `col_${'A'.repeat(22)}`, 'nope']) {
      const response = await call(`/api/v2/collections/${id}/access`, { headers: other.auth });
      expect(response.status, id).toBe(404);
      expect(((await response.json()) as { code: string }).code).toBe('COLLECTION_NOT_FOUND');
    }
    const owner = await account('writer-log');
    const mine = await makeCollection(owner.auth, { name: 'mine' });
    const writer = await call('/api/v2/keys', json({ name: 'w', scopes: ['links:write'] }, owner.auth));
    const { key } = ((await writer.json()) as { data: { key: string } }).data;
    const refused = await call(`/api/v2/collections/${mine.id}/access`, {
      headers: { Authorization: `Bearer ${key}` },
    });
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ code: 'FORBIDDEN', details: [{ scope: 'files:read' }] });
  });

  it('is an empty page for a collection without links, and refuses a bad cursor or limit', async () => {
    const { auth } = await account('empty-log');
    const made = await makeCollection(auth, { name: 'quiet' });
    expect(await accessLog(auth, `/collections/${made.id}`)).toEqual({
      events: [],
      nextCursor: null,
      droppedEvents: 0,
    });
    for (const query of ['?limit=0', '?limit=101', '?cursor=nope']) {
      const response = await call(`/api/v2/collections/${made.id}/access${query}`, { headers: auth });
      expect(response.status, query).toBe(400);
    }
  });
});
