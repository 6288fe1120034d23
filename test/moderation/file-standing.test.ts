// A file the operator quarantines or removes, on every route that would serve it or a page about
// it: 451 with the operator's statement (an HTML page for browsers), `Link: <ABUSE_CONTACT>;
// rel="blocked-by"` exactly when ABUSE_CONTACT is set, the visit logged as refused-moderated;
// release restores every route with the same bytes. The owner still sees the record, with its
// `moderation`. A removed file's bytes and quota go for good, its tombstone answers 451 until the
// owner deletes it.
import { env } from 'cloudflare:test';
import { beforeAll, describe, expect, it } from 'vitest';
import { accessLog } from '../access-log/access-helpers';
import { json, makeCollection } from '../collections/collection-helpers';
import { usageOf } from '../helpers/digests';
import { tokenOf } from '../helpers/files';
import { makeLink, pathOf } from '../helpers/links';
import {
  act,
  adminPost,
  bodySha256,
  expect451,
  quarantine,
  release,
  removeFile,
  WITH_CONTACT,
} from '../helpers/moderation';
import { expectError } from '../helpers/responses';
import { upload } from '../helpers/upload';
import { call, createKey } from '../helpers/worker';
import { readArchive } from '../helpers/zip-reader';
import { mcpClient, toolData, toolRefusal } from '../mcp/mcp-helpers';

const STATEMENT = 'Quarantined while a report of phishing is reviewed <case 41>.';
const HTML = { Accept: 'text/html' };

type Uploaded = { id: string; token: string; sha256: string; content: string };

async function put(auth: Record<string, string>, filename: string, content: string): Promise<Uploaded> {
  const { response, body } = await upload('v2', auth, { filename, content, type: 'text/plain' });
  expect(response.status).toBe(201);
  return { id: body.data.id, token: tokenOf(body.data.shareUrl), sha256: body.data.sha256, content };
}

let owner: Awaited<ReturnType<typeof createKey>>;
let target: Uploaded;
let other: Uploaded;
let linkPath: string;
let linkId: string;
let cappedPath: string;
let collectionPath: string;

beforeAll(async () => {
  owner = await createKey('moderated owner');
  target = await put(owner.auth, 'reported.txt', 'the reported file: 0123456789');
  other = await put(owner.auth, 'innocent.txt', 'an innocent file beside it');
  const link = await makeLink(owner.auth, target.id);
  linkPath = pathOf(link);
  linkId = link.id;
  cappedPath = pathOf(await makeLink(owner.auth, target.id, { maxDownloads: 1 }));
  const collection = await makeCollection(owner.auth, { name: 'Both', fileIds: [target.id, other.id] });
  const made = await call(`/api/v2/collections/${collection.id}/links`, json({}, owner.auth));
  expect(made.status).toBe(201);
  collectionPath = new URL(((await made.json()) as { data: { url: string } }).data.url).pathname;
});

/** Every visitor's URL of the target: its default link, a made link, a member of a collection. */
const visitorUrls = () => {
  const file = (base: string) => [`${base}/download`, `${base}/view`];
  return [
    ...file(`/share/${target.token}`),
    ...file(linkPath),
    `${collectionPath}/files/${target.id}`,
    `${collectionPath}/files/${target.id}/view`,
  ];
};
const pages = () => [`/share/${target.token}`, linkPath];
const ownerUrls = () => [`/api/v1/files/${target.id}/download`, `/api/v2/files/${target.id}/download`];

describe('a quarantined file', () => {
  it('answers 451 with the statement on every route that would serve it, and release restores the same bytes', async () => {
    const quarantined = await quarantine(target.id, STATEMENT);
    expect(quarantined).toMatchObject({ id: target.id, accountId: owner.id, moderation: { state: 'quarantined' } });

    for (const url of visitorUrls()) {
      await expect451(await call(url, {}, WITH_CONTACT), STATEMENT, { contact: true, what: url });
      await expect451(await call(url, { headers: HTML }, WITH_CONTACT), STATEMENT, { contact: true, html: true });
      await expect451(await call(url, { method: 'HEAD' }, WITH_CONTACT), STATEMENT, { contact: true, head: true });
      await expect451(await call(url, { headers: { Range: 'bytes=0-3' } }), STATEMENT, { what: `${url} ranged` });
    }
    for (const url of pages()) {
      await expect451(await call(url, { headers: HTML }, WITH_CONTACT), STATEMENT, { contact: true, html: true });
      await expect451(await call(url, { headers: HTML }), STATEMENT, { html: true, what: `${url} without contact` });
    }
    for (const url of ownerUrls()) {
      await expect451(await call(url, { headers: owner.auth }, WITH_CONTACT), STATEMENT, { contact: true });
      const ranged = { headers: { ...owner.auth, Range: 'bytes=2-5' } };
      await expect451(await call(url, ranged), STATEMENT, { what: `${url} ranged` });
      await expect451(await call(url, { method: 'HEAD', headers: owner.auth }), STATEMENT, { head: true });
    }
    // A capped link's refusals spend none of its budget (checked after release).
    for (let i = 0; i < 3; i++) await expect451(await call(`${cappedPath}/download`), STATEMENT);

    // No URL is handed out for it: a link over REST or MCP.
    await expect451(await call(`/api/v2/files/${target.id}/links`, json({}, owner.auth)), STATEMENT);
    const client = await mcpClient(owner.key);
    expect(await toolRefusal(client, 'create_share_link', { fileId: target.id })).toMatchObject({
      code: 'UNAVAILABLE_FOR_LEGAL_REASONS',
    });
    // The owner's record shows what it is under (REST and MCP); v1 keeps the seed's fields.
    const moderation = { state: 'quarantined', statement: STATEMENT, at: expect.any(String) };
    const record = await call(`/api/v2/files/${target.id}`, { headers: owner.auth });
    expect(((await record.json()) as { data: unknown }).data).toMatchObject({ moderation, scan: null });
    expect(await toolData(client, 'get_file', { fileId: target.id })).toMatchObject({ moderation });
    const v1 = await call(`/api/v1/files/${target.id}`, { headers: owner.auth });
    expect(((await v1.json()) as { data: object }).data).not.toHaveProperty('moderation');
    // The collection leaves it out of its page and ZIP: another length, another ETag.
    const page = await call(collectionPath, { headers: HTML });
    const pageText = await page.text();
    expect(page.status).toBe(200);
    expect(pageText).toContain('innocent.txt');
    expect(pageText).not.toContain('reported.txt');
    const zip = await call(`${collectionPath}/archive.zip`);
    const { members } = readArchive(new Uint8Array(await zip.arrayBuffer()));
    expect(members.map(({ entry }) => entry.name)).toEqual(['innocent.txt']);
    const quarantinedEtag = zip.headers.get('etag');

    // Refused visits are logged as such.
    const log = await accessLog(owner.auth, `/links/${linkId}`);
    expect(log.events.map((event) => [event.outcome, event.status])).toContainEqual(['refused-moderated', 451]);

    const released = await release(target.id);
    expect(released).toMatchObject({ moderation: null });
    for (const url of [...visitorUrls(), ...ownerUrls()]) {
      const response = await call(url, { headers: owner.auth }, WITH_CONTACT);
      expect(response.status, url).toBe(200);
      expect(response.headers.get('link'), url).toBeNull();
      expect(await bodySha256(response), url).toBe(target.sha256);
    }
    for (const url of pages()) expect((await call(url, { headers: HTML })).status, url).toBe(200);
    // The capped link still has its one download, whole.
    const capped = await call(`${cappedPath}/download`);
    expect(capped.status).toBe(200);
    expect(await bodySha256(capped)).toBe(target.sha256);
    const restored = await call(`${collectionPath}/archive.zip`);
    expect(restored.headers.get('etag')).not.toBe(quarantinedEtag);
    const back = readArchive(new Uint8Array(await restored.arrayBuffer()));
    expect(back.members.map(({ entry }) => entry.name)).toEqual(['reported.txt', 'innocent.txt']);
    expect((await call(`/api/v2/files/${target.id}/links`, json({}, owner.auth))).status).toBe(201);
  });

  it('is quarantined once: a second quarantine changes nothing, and its statement stays the first', async () => {
    const first = await quarantine(other.id, 'First decision.');
    const second = await quarantine(other.id, 'Second decision.');
    expect(second.moderation).toEqual(first.moderation);
    expect(await release(other.id)).toMatchObject({ moderation: null });
  });
});

describe('the file actions', () => {
  it('are 401 without the admin token, 404 for an unknown file, 400 without a statement', async () => {
    const path = `/admin/files/${other.id}/quarantine`;
    const body = JSON.stringify({ statement: 'x' });
    const init = { method: 'POST', headers: { 'Content-Type': 'application/json' }, body };
    await expectError(await call(path, init), 401, 'UNAUTHORIZED');
    await expectError(await call(path, { ...init, headers: { ...init.headers, ...owner.auth } }), 401, 'UNAUTHORIZED');
    for (const action of ['quarantine', 'release', 'remove']) {
      await expectError(
        await adminPost(`/files/AAAAAAAAAAAAAAAAAAAAAA/${action}`, { statement: 'x' }),
        404,
        'FILE_NOT_FOUND',
      );
    }
    for (const bad of [
      {},
      { statement: '' },
      { statement: ' \n ' },
      { statement: 'x'.repeat(2001) },
      { statement: 7 },
    ]) {
      await expectError(await adminPost(`/files/${other.id}/remove`, bad), 400, 'VALIDATION_ERROR');
    }
    // A file stored before digests has no SHA-256 to block yet: nothing is done.
    await env.DB.prepare('UPDATE files SET sha256 = NULL WHERE id = ?1').bind(other.id).run();
    await expectError(
      await adminPost(`/files/${other.id}/remove`, { statement: 'x', blockHash: true }),
      400,
      'VALIDATION_ERROR',
    );
    await env.DB.prepare('UPDATE files SET sha256 = ?2 WHERE id = ?1').bind(other.id, other.sha256).run();
    expect((await call(`/share/${other.token}/download`)).status).toBe(200);
  });
});

describe('a removed file', () => {
  it('loses its bytes and quota for good, answers 451 on every URL until its owner deletes the tombstone', async () => {
    const key = await createKey('removed owner');
    const kept = await put(key.auth, 'kept.txt', 'kept, 20 bytes long.');
    const gone = await put(key.auth, 'gone.txt', 'a file that breaks the law');
    const link = pathOf(await makeLink(key.auth, gone.id));
    const row = await env.DB.prepare('SELECT r2_key FROM files WHERE id = ?1')
      .bind(gone.id)
      .first<{ r2_key: string }>();
    expect(await usageOf(key.auth)).toMatchObject({ usedBytes: kept.content.length + gone.content.length, files: 2 });

    const statement = 'Removed: a court order (case 2026-7).';
    const removed = await removeFile(gone.id, statement, true);
    expect(removed).toMatchObject({ id: gone.id, moderation: { state: 'removed', statement }, sha256: gone.sha256 });
    expect(await env.FILES.head(row?.r2_key ?? '')).toBeNull();
    expect(await usageOf(key.auth)).toMatchObject({ usedBytes: kept.content.length, files: 1 });
    const blocked = await env.DB.prepare('SELECT reason FROM blocklist WHERE sha256 = ?1').bind(gone.sha256).first();
    expect(blocked).toEqual({ reason: statement });

    for (const url of [`/share/${gone.token}/download`, `${link}/download`, `/api/v2/files/${gone.id}/download`]) {
      await expect451(await call(url, { headers: key.auth }, WITH_CONTACT), statement, { contact: true, what: url });
    }
    await expect451(await call(link, { headers: HTML }), statement, { html: true });
    const listed = await call('/api/v2/files', { headers: key.auth });
    const files = ((await listed.json()) as { data: { files: { id: string; moderation: unknown }[] } }).data.files;
    expect(files.find((file) => file.id === gone.id)?.moderation).toMatchObject({ state: 'removed', statement });
    // Nothing brings the bytes back.
    for (const action of ['quarantine', 'release']) {
      const response = await adminPost(`/files/${gone.id}/${action}`, { statement: 'again' });
      await expectError(response, 409, 'MODERATION_CONFLICT');
    }
    expect(await act(`/files/${gone.id}/remove`, { statement: 'once more' })).toMatchObject({
      moderation: { statement },
    });

    expect((await call(`/api/v2/files/${gone.id}`, { method: 'DELETE', headers: key.auth })).status).toBe(200);
    for (const url of [`/share/${gone.token}/download`, `${link}/download`, `/api/v2/files/${gone.id}/download`]) {
      expect((await call(url, { headers: key.auth })).status, url).toBe(404);
    }
    // The tombstone's quota was given back once, not again when it was deleted.
    expect(await usageOf(key.auth)).toMatchObject({ usedBytes: kept.content.length, files: 1 });
  });
});
