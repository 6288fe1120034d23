// Downloads of an encrypted file through its ways in: a link's download is exactly that link's age
// header followed by the stored payload (a whole age file its key opens), with an exact length,
// ranges anywhere (20 random ones), resume from any offset as `curl -C -` does, an ETag per link
// that changes with the link's header; revoking one link leaves another working and the stored
// object untouched; the default link serves the owner's header. Links refuse a missing header on an
// encrypted file and any header on a plain one.
import { env } from 'cloudflare:test';
import { beforeAll, describe, expect, it } from 'vitest';
import { type AgeFile, ageFile, type Identity, linkHeader, newIdentity, openWith } from '../helpers/age-files';
import { json, makeLink, pathOf } from '../helpers/links';
import { readJson } from '../helpers/responses';
import { call, createKey } from '../helpers/worker';

type Key = Awaited<ReturnType<typeof createKey>>;
// biome-ignore lint/suspicious/noExplicitAny: the records are read field by field
type Json = any;

let key: Key;
let owner: Identity;
let file: AgeFile;
let fileId: string;
let shareUrl: string;

beforeAll(async () => {
  key = await createKey('e2e downloads', { rateLimitRequests: 100_000 });
  owner = await newIdentity();
  // Two full chunks and a bit: ranges cross chunk boundaries as well as the header's end.
  file = await ageFile(owner, 2 * 65536 + 777, 21);
  const response = await call('/api/v2/upload/f.age?encryption=age', {
    method: 'PUT',
    headers: { ...key.auth, 'Edgeshare-Meta': file.meta },
    body: file.bytes,
  });
  const upload: Json = await readJson('v2', response);
  expect(response.status).toBe(201);
  fileId = upload.data.id;
  shareUrl = upload.data.shareUrl;
});

const download = (path: string, headers: Record<string, string> = {}) => call(`${path}/download`, { headers });
const bytesOf = async (response: Response) => new Uint8Array(await response.arrayBuffer());

/** A pseudo-random generator from a seed (the same ranges every run). */
function random(seed: number) {
  let x = seed;
  return (below: number) => {
    x = (x * 1103515245 + 12345) >>> 0;
    return Math.floor((x / 2 ** 32) * below);
  };
}

async function r2Etag(): Promise<string> {
  const row = await env.DB.prepare('SELECT r2_key FROM files WHERE id = ?1').bind(fileId).first<{ r2_key: string }>();
  const object = await env.FILES.head(row?.r2_key ?? '');
  expect(object).not.toBeNull();
  return (object as R2Object).etag;
}

describe('a link to an encrypted file serves its own header and the payload', () => {
  it('the download is exactly header ‖ payload, with its length, and opens with the link’s key only', async () => {
    const keyed = await linkHeader(file);
    const link = await makeLink(key.auth, fileId, { e2eHeader: keyed.header });
    const response = await download(pathOf(link));
    expect(response.status).toBe(200);
    const expected = new Uint8Array([...new TextEncoder().encode(keyed.header), ...file.payload]);
    expect(response.headers.get('content-length')).toBe(String(expected.length));
    expect(response.headers.get('content-type')).toBe('application/octet-stream');
    // The digest of the payload alone would be a lie about these bytes: none is sent.
    expect(response.headers.get('repr-digest')).toBeNull();
    const bytes = await bytesOf(response);
    expect(bytes).toEqual(expected);
    expect(await openWith(bytes, keyed.identity)).toEqual(file.plaintext);
    // The owner's identity is not in this link's header: it cannot open the link's file.
    await expect(openWith(bytes, owner.identity)).rejects.toThrow();
    const head = await call(`${pathOf(link)}/download`, { method: 'HEAD' });
    expect(head.headers.get('content-length')).toBe(String(expected.length));
  });

  it('20 random ranges equal the same slices of the age file, across the header’s end and chunks', async () => {
    const keyed = await linkHeader(file);
    const link = await makeLink(key.auth, fileId, { e2eHeader: keyed.header });
    const whole = new Uint8Array([...new TextEncoder().encode(keyed.header), ...file.payload]);
    const next = random(7);
    const ranges: [number, number][] = [[keyed.header.length - 5, keyed.header.length + 5]];
    while (ranges.length < 20) {
      const from = next(whole.length);
      ranges.push([from, Math.min(whole.length - 1, from + next(70_000))]);
    }
    for (const [from, to] of ranges) {
      const response = await download(pathOf(link), { Range: `bytes=${from}-${to}` });
      expect(response.status, `${from}-${to}`).toBe(206);
      expect(response.headers.get('content-range')).toBe(`bytes ${from}-${to}/${whole.length}`);
      expect(await bytesOf(response)).toEqual(whole.slice(from, to + 1));
    }
    // A suffix range, as a player asks for an end.
    const suffix = await download(pathOf(link), { Range: 'bytes=-100' });
    expect(await bytesOf(suffix)).toEqual(whole.slice(-100));
  });

  it('a download broken off resumes from its offset, as curl -C - asks, to the same file', async () => {
    const keyed = await linkHeader(file);
    const link = await makeLink(key.auth, fileId, { e2eHeader: keyed.header });
    const first = await bytesOf(await download(pathOf(link), { Range: 'bytes=0-99999' }));
    // curl -C - sends `Range: bytes=<what it has>-`, and no If-Range.
    const rest = await download(pathOf(link), { Range: `bytes=${first.length}-` });
    expect(rest.status).toBe(206);
    const resumed = new Uint8Array([...first, ...(await bytesOf(rest))]);
    expect(await openWith(resumed, keyed.identity)).toEqual(file.plaintext);
  });

  it('each link has its own ETag, which changes when its header is replaced; If-Range holds to it', async () => {
    const a = await linkHeader(file);
    const b = await linkHeader(file);
    const linkA = await makeLink(key.auth, fileId, { e2eHeader: a.header });
    const linkB = await makeLink(key.auth, fileId, { e2eHeader: b.header });
    const etagA = (await download(pathOf(linkA))).headers.get('etag');
    const etagB = (await download(pathOf(linkB))).headers.get('etag');
    const etagOwner = (await download(new URL(shareUrl).pathname)).headers.get('etag');
    expect(etagA).toMatch(/^"/);
    expect(new Set([etagA, etagB, etagOwner]).size).toBe(3);
    expect((await download(pathOf(linkA), { 'If-None-Match': etagA as string })).status).toBe(304);

    const replaced = await linkHeader(file);
    const put = await call(
      `/api/v2/links/${linkA.id}/headers/${fileId}`,
      json({ header: replaced.header }, key.auth, 'PUT'),
    );
    const record: Json = await put.json();
    expect(put.status, JSON.stringify(record)).toBe(200);
    expect(record.data).toMatchObject({ linkId: linkA.id, fileId, header: replaced.header });
    const after = await download(pathOf(linkA));
    expect(after.headers.get('etag')).not.toBe(etagA);
    expect(await openWith(await bytesOf(after), replaced.identity)).toEqual(file.plaintext);
    // A resume that names the old ETag gets the whole new file, not a mix of two.
    const resumed = await download(pathOf(linkA), { Range: 'bytes=100-', 'If-Range': etagA as string });
    expect(resumed.status).toBe(200);
    expect(await openWith(await bytesOf(resumed), replaced.identity)).toEqual(file.plaintext);
    // The old key no longer opens the link's file; link B is as it was.
    await expect(openWith(await bytesOf(await download(pathOf(linkA))), a.identity)).rejects.toThrow();
    expect((await download(pathOf(linkB))).headers.get('etag')).toBe(etagB);
  });

  it('revoking link A: A is 404, its header gone; B still opens; the stored object is untouched', async () => {
    const a = await linkHeader(file);
    const b = await linkHeader(file);
    const linkA = await makeLink(key.auth, fileId, { e2eHeader: a.header });
    const linkB = await makeLink(key.auth, fileId, { e2eHeader: b.header });
    const before = await r2Etag();
    const revoked = await call(`/api/v2/links/${linkA.id}`, { method: 'DELETE', headers: key.auth });
    expect(revoked.status).toBeLessThan(300);
    expect((await download(pathOf(linkA))).status).toBe(404);
    const kept = await env.DB.prepare('SELECT COUNT(*) AS n FROM link_headers WHERE link_id = ?1')
      .bind(linkA.id)
      .first<{ n: number }>();
    expect(kept?.n).toBe(0);
    const response = await download(pathOf(linkB));
    expect(response.status).toBe(200);
    expect(await openWith(await bytesOf(response), b.identity)).toEqual(file.plaintext);
    expect(await r2Etag()).toBe(before);
    // A revoked link takes no header.
    const put = await call(`/api/v2/links/${linkA.id}/headers/${fileId}`, json({ header: a.header }, key.auth, 'PUT'));
    expect(put.status).toBe(404);
  });

  it('the default link (shareUrl) serves the owner’s header: the owner’s identity opens it', async () => {
    const response = await download(new URL(shareUrl).pathname);
    expect(response.status).toBe(200);
    const bytes = await bytesOf(response);
    expect(bytes).toEqual(file.bytes);
    expect(await openWith(bytes, owner.identity)).toEqual(file.plaintext);
  });
});

describe('making a link: the header an encrypted file needs, and a plain file refuses', () => {
  it('no e2eHeader for an encrypted file is 400 naming it', async () => {
    const response = await call(`/api/v2/files/${fileId}/links`, json({}, key.auth));
    const body: Json = await response.json();
    expect(response.status).toBe(400);
    expect(body.code).toBe('VALIDATION_ERROR');
    expect(body.details[0].field).toBe('e2eHeader');
  });

  it('an e2eHeader on a plain file is 400 naming it', async () => {
    const plain = await call('/api/v2/upload/a.txt', { method: 'PUT', headers: key.auth, body: 'plain text' });
    const id = ((await plain.json()) as Json).data.id;
    const response = await call(`/api/v2/files/${id}/links`, json({ e2eHeader: file.header }, key.auth));
    const body: Json = await response.json();
    expect(response.status).toBe(400);
    expect(body.details[0].field).toBe('e2eHeader');
  });

  it('a malformed e2eHeader is 422 E2E_INVALID, and no link is made', async () => {
    const before = ((await (await call(`/api/v2/files/${fileId}/links`, { headers: key.auth })).json()) as Json).data;
    const bad = file.header.replace('age-encryption.org/v1', 'age-encryption.org/v9');
    const response = await call(`/api/v2/files/${fileId}/links`, json({ e2eHeader: bad }, key.auth));
    const body: Json = await response.json();
    expect(response.status).toBe(422);
    expect(body.code).toBe('E2E_INVALID');
    expect(body.details[0]).toMatchObject({ field: 'e2eHeader', rule: 'version' });
    const after = ((await (await call(`/api/v2/files/${fileId}/links`, { headers: key.auth })).json()) as Json).data;
    expect(after).toEqual(before);
  });
});
