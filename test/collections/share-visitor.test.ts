// A visitor with a collection's share link: its page, one member, the ZIP (whole, ranges,
// resumed), its password for every path, and its cap as a byte budget of N × the archive's
// length over the ZIP, members, ranges and previews, exact under concurrency. Through the
// Worker's fetch, with the real local bindings.
import { env, runDurableObjectAlarm } from 'cloudflare:test';
import { beforeAll, describe, expect, it } from 'vitest';
import { concat } from '../../src/lib/bytes';
import { formatBytes } from '../../src/lib/format';
import { basic, type LinkRecord, pathOf, readLink, readThenBreakOff, statusAfterGiveBack } from '../helpers/links';
import { expectWellFormedPage, parseElements } from '../helpers/pages';
import { PNG_1X1 } from '../helpers/upload';
import { createWebhook, interceptReceivers, ofType, payloadOf, receiver, settle, waitFor } from '../helpers/webhooks';
import { call } from '../helpers/worker';
import { account, addFiles, archive, bytesOf, json, makeCollection, sha256Hex, uploadFile } from './collection-helpers';

const PASSWORD = 'correct horse battery staple';
const HTML = { Accept: 'text/html' };
const UNKNOWN_TOKEN = `/share/${'Q'.repeat(43)}`;
/** What real clients send: the answers must not change for it (downloads are never compressed). */
const CLIENT = { 'Accept-Encoding': 'gzip, br' };

const letters = (size: number, from = 0) =>
  Array.from({ length: size }, (_, index) => String.fromCharCode(97 + ((index + from) % 26))).join('');

async function collectionLink(auth: Record<string, string>, id: string, body: Record<string, unknown> = {}) {
  const response = await call(`/api/v2/collections/${id}/links`, json(body, auth));
  const text = await response.text();
  expect(response.status, text).toBe(201);
  return (JSON.parse(text) as { data: LinkRecord }).data;
}

/** An account with a collection of a text file, an image and a binary file, and a link to it. */
async function shared(linkBody: Record<string, unknown> = {}, sizes = { text: 300, data: 2000 }) {
  const owner = await account('visitor');
  const text = await uploadFile(owner.auth, 'notes.txt', letters(sizes.text));
  const image = await uploadFile(owner.auth, 'beach.png', PNG_1X1, { type: 'image/png' });
  const data = await uploadFile(owner.auth, 'data.bin', letters(sizes.data, 7), { type: 'application/octet-stream' });
  const made = await makeCollection(owner.auth, {
    name: 'Holiday <2026>',
    note: 'Summer & sea',
    fileIds: [text.id, image.id, data.id],
  });
  const link = await collectionLink(owner.auth, made.id, linkBody);
  return { ...owner, made, link, path: pathOf(link), files: { text, image, data } };
}

/** The whole body of a 200/206, else 0 bytes (a refusal), for counting what was served. */
const servedBytes = async (response: Response) => {
  const body = await bytesOf(response);
  return response.status === 200 || response.status === 206 ? body.byteLength : 0;
};

const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);

describe('a collection link’s page', () => {
  it('shows the name, the note, every file with its size, type, preview and download, and “Download all” with the ZIP’s size', async () => {
    const { path, files, auth, made } = await shared();
    const response = await call(path, { headers: HTML });
    expect(response.status).toBe(200);
    const page = await response.text();
    // Well-formed (its preview images are the link's own URLs, not files of public/: the capped
    // page below, which has none, gets every check).
    expect(parseElements(page).problem).toBeUndefined();
    expect(response.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(page).toContain('<h1>Holiday &lt;2026&gt;</h1>');
    expect(page).toContain('Summer &amp; sea');
    for (const name of ['notes.txt', 'beach.png', 'data.bin']) expect(page).toContain(name);
    for (const type of ['300 bytes · text/plain', '70 bytes · image/png']) expect(page).toContain(type);
    for (const file of Object.values(files)) expect(page).toContain(`href="${path}/files/${file.id}" download`);
    expect(page).toContain(`<img src="${path}/files/${files.image.id}/view"`);
    expect(page).toContain(`<pre tabindex="0" aria-label="Contents of notes.txt">${letters(300)}</pre>`);
    const zip = await archive(auth, made.id);
    const version = (zip.headers.get('etag') ?? '').slice(1, -1);
    const zipLength = (await bytesOf(zip)).byteLength;
    expect(page).toContain(
      `href="${path}/archive.zip?v=${version}" download>Download all (ZIP, ${formatBytes(zipLength)})`,
    );
    expect(page).toContain('3 files');
    // The image preview loads from the member's view route, inline.
    const view = await call(`${path}/files/${files.image.id}/view`);
    expect(view.status).toBe(200);
    expect(view.headers.get('content-disposition')).toMatch(/^inline/);
    expect(await bytesOf(view)).toEqual(PNG_1X1);
  });

  it('shows no previews on a capped link’s page (each would spend the budget)', async () => {
    const { path, files } = await shared({ maxDownloads: 3 });
    const response = await call(path, { headers: HTML });
    const page = await response.text();
    await expectWellFormedPage(response, page);
    expect(page).toContain('notes.txt');
    expect(page).not.toContain(`<img src="${path}`);
    expect(page).not.toContain('<pre');
    expect(page).not.toContain(`/files/${files.image.id}/view`);
  });

  it('drops a deleted member from the page, the ZIP and its own URL at once', async () => {
    const { path, files, auth, made } = await shared();
    const before = await bytesOf(await call(`${path}/archive.zip`));
    expect((await call(`/api/v2/files/${files.data.id}`, { method: 'DELETE', headers: auth })).status).toBe(200);
    const page = await (await call(path, { headers: HTML })).text();
    expect(page).not.toContain('data.bin');
    expect(page).toContain('2 files');
    const after = await call(`${path}/archive.zip`);
    const bytes = await bytesOf(after);
    expect(bytes.byteLength).toBeLessThan(before.byteLength);
    expect(bytes).toEqual(await bytesOf(await archive(auth, made.id)));
    expect(new TextDecoder().decode(bytes)).not.toContain('data.bin');
    expect((await call(`${path}/files/${files.data.id}`)).status).toBe(404);
  });
});

describe('a collection link’s ZIP and members', () => {
  it('serves the same ZIP as the owner’s archive, at /archive.zip and /download, with its validators', async () => {
    const { path, auth, made } = await shared();
    const owners = await archive(auth, made.id);
    const ownerBytes = await bytesOf(owners);
    for (const route of ['archive.zip', 'download']) {
      const response = await call(`${path}/${route}`);
      expect(response.status).toBe(200);
      for (const header of ['content-type', 'content-length', 'etag', 'last-modified', 'accept-ranges']) {
        expect(response.headers.get(header), header).toBe(owners.headers.get(header));
      }
      expect(response.headers.get('content-disposition')).toContain('.zip');
      expect(await bytesOf(response)).toEqual(ownerBytes);
    }
    const head = await call(`${path}/archive.zip`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(String(ownerBytes.byteLength));
  });

  it('answers ranges, If-Range and If-None-Match, and a cut download resumed equals the whole (SHA-256)', async () => {
    const { path } = await shared({}, { text: 300, data: 200_000 });
    const whole = await call(`${path}/archive.zip`);
    const etag = whole.headers.get('etag') ?? '';
    const all = await bytesOf(whole);
    const part = await call(`${path}/archive.zip`, { headers: { Range: 'bytes=100-199' } });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 100-199/${all.byteLength}`);
    expect(await bytesOf(part)).toEqual(all.slice(100, 200));
    const stale = await call(`${path}/archive.zip`, { headers: { Range: 'bytes=100-199', 'If-Range': '"stale"' } });
    expect(stale.status).toBe(200);
    expect((await bytesOf(stale)).byteLength).toBe(all.byteLength);
    expect((await call(`${path}/archive.zip`, { headers: { 'If-None-Match': etag } })).status).toBe(304);

    // A download broken off after some bytes, then resumed as curl -C - does.
    const cut = await call(`${path}/archive.zip`);
    const reader = (cut.body as ReadableStream<Uint8Array>).getReader();
    const received: Uint8Array[] = [];
    let got = 0;
    while (got < 50_000) {
      const { done, value } = await reader.read();
      if (done) break;
      received.push(value);
      got += value.byteLength;
    }
    await reader.cancel();
    const rest = await call(`${path}/archive.zip`, { headers: { Range: `bytes=${got}-`, 'If-Range': etag } });
    expect(rest.status).toBe(206);
    const joined = new Uint8Array(all.byteLength);
    let offset = 0;
    for (const piece of [...received, await bytesOf(rest)]) {
      joined.set(piece, offset);
      offset += piece.byteLength;
    }
    expect(offset).toBe(all.byteLength);
    expect(await sha256Hex(joined)).toBe(await sha256Hex(all));
  });

  it('serves one member with the share download’s headers, ranges included', async () => {
    const { path, files } = await shared();
    const response = await call(`${path}/files/${files.text.id}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-disposition')).toMatch(/^attachment; filename="notes.txt"/);
    expect(response.headers.get('content-security-policy')).toBe('sandbox');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('accept-ranges')).toBe('bytes');
    expect(response.headers.get('etag')).toBeTruthy();
    expect(await response.text()).toBe(letters(300));
    const range = await call(`${path}/files/${files.text.id}`, { headers: { Range: 'bytes=0-2' } });
    expect(range.status).toBe(206);
    expect(await range.text()).toBe('abc');
  });

  it('answers a file that is not a member, another account’s file or a malformed id like an unknown token', async () => {
    const { path, auth } = await shared();
    const outsider = await uploadFile(auth, 'outside.txt', 'not in it');
    const theirs = await uploadFile((await account('other')).auth, 'theirs.txt', 'theirs');
    const unknown = (await (await call(`${UNKNOWN_TOKEN}/download`)).json()) as { code: string; error: string };
    for (const id of [outsider.id, theirs.id, 'nope', `${outsider.id}x`]) {
      const response = await call(`${path}/files/${id}`);
      expect(response.status, id).toBe(404);
      expect(await response.json()).toMatchObject({ code: unknown.code, error: unknown.error });
      const page = await call(`${path}/files/${id}`, { headers: HTML });
      expect(page.status).toBe(404);
      expect(await page.text()).toBe(await (await call(UNKNOWN_TOKEN, { headers: HTML })).text());
    }
  });

  it('has no /view of its own, and a file link has no archive or members: 404 like an unknown token', async () => {
    const { path, files, auth } = await shared();
    expect((await call(`${path}/view`)).status).toBe(404);
    const fileLink = await call(`/api/v2/files/${files.text.id}/links`, json({}, auth));
    const filePath = pathOf(((await fileLink.json()) as { data: LinkRecord }).data);
    for (const route of ['archive.zip', `files/${files.text.id}`, `files/${files.text.id}/view`]) {
      expect((await call(`${filePath}/${route}`)).status, route).toBe(404);
    }
    expect((await call(`${filePath}/download`)).status).toBe(200);
  });

  it('counts whole downloads of the ZIP and of members (200, 206 to the end), never HEAD, 304 or partial ranges', async () => {
    const { path, files, auth, link } = await shared();
    const zip = await call(`${path}/archive.zip`);
    const etag = zip.headers.get('etag') ?? '';
    await bytesOf(zip);
    await bytesOf(await call(`${path}/download`, { headers: { Range: 'bytes=0-' } }));
    await bytesOf(await call(`${path}/files/${files.text.id}`));
    for (const init of [
      { headers: { Range: 'bytes=0-9' } },
      { headers: { Range: 'bytes=0-0' } },
      { headers: { Range: 'bytes=10-19' } },
      { headers: { 'If-None-Match': etag } },
      { method: 'HEAD' },
    ] as RequestInit[]) {
      await bytesOf(await call(`${path}/archive.zip`, init));
    }
    await bytesOf(await call(`${path}/files/${files.image.id}/view`));
    expect((await readLink(auth, link.id)).downloadCount).toBe(3);
    // A member downloaded is a download of that file too; the ZIP leaves the files' counts alone.
    for (const file of Object.values(files)) {
      await runDurableObjectAlarm(env.LINK_COUNTERS.getByName(`file:${file.id}`));
    }
    const counts = await Promise.all(
      Object.values(files).map(async (file) => {
        const response = await call(`/api/v2/files/${file.id}`, { headers: auth });
        return ((await response.json()) as { data: { downloadCount: number } }).data.downloadCount;
      }),
    );
    expect(counts).toEqual([1, 0, 0]);
  });
});

describe('a password-protected collection link', () => {
  it('asks once, by form or HTTP Basic, for the page, each member, the ZIP and every range', async () => {
    const { path, files } = await shared({ password: PASSWORD });
    const page = await (await call(path, { headers: HTML })).text();
    expect(page).toContain('type="password"');
    for (const secret of ['Holiday', 'notes.txt', 'beach.png', files.text.id]) expect(page).not.toContain(secret);

    const guarded = [
      `${path}/archive.zip`,
      `${path}/download`,
      `${path}/files/${files.text.id}`,
      `${path}/files/${files.image.id}/view`,
    ];
    for (const url of guarded) {
      for (const headers of [{}, { Range: 'bytes=0-0' }, { Range: 'bytes=5-' }, basic('wrong')] as Record<
        string,
        string
      >[]) {
        const response = await call(url, { headers });
        expect(response.status, `${url} ${JSON.stringify(headers)}`).toBe(401);
        expect(response.headers.get('www-authenticate')).toContain('Basic');
        await response.arrayBuffer();
      }
      const browser = await call(url, { headers: HTML, redirect: 'manual' });
      expect(browser.status).toBe(303);
      expect(browser.headers.get('location')).toBe(path);
      const script = await call(url, { headers: { ...basic(PASSWORD), Range: 'bytes=0-0' } });
      expect(script.status).toBe(206);
      await script.arrayBuffer();
    }

    // The form's grant opens every path of the link.
    const posted = await call(path, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ password: PASSWORD }).toString(),
      redirect: 'manual',
    });
    expect(posted.status).toBe(303);
    const cookie = (posted.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    expect(posted.headers.get('set-cookie')).toContain(`Path=${path}`);
    const opened = await (await call(path, { headers: { ...HTML, Cookie: cookie } })).text();
    expect(opened).toContain('notes.txt');
    for (const url of guarded) {
      const response = await call(url, { headers: { Cookie: cookie } });
      expect(response.status, url).toBe(200);
      await response.arrayBuffer();
    }
  });
});

describe('a password-protected collection link’s page', () => {
  const from = () => ({ 'CF-Connecting-IP': `203.0.113.${Math.floor(Math.random() * 250) + 1}` });

  it('says “collection” on its password form, and names nothing of it', async () => {
    const { path } = await shared({ password: PASSWORD });
    const response = await call(path, { headers: { ...HTML, ...from() } });
    expect(response.status).toBe(200);
    const page = await response.text();
    expect(page).toContain('<h1>This collection is protected by a password</h1>');
    expect(page).toContain('<title>A shared collection · edgeshare</title>');
    expect(page).toContain('<meta property="og:title" content="A shared collection">');
    expect(page).not.toMatch(/\bfile is protected|A shared file\b/);
    expect(page).not.toContain('Holiday');
  });

  it('answers the page itself, with every member, to the right HTTP Basic password', async () => {
    const { path, files } = await shared({ password: PASSWORD });
    const response = await call(path, { headers: { ...HTML, ...basic(PASSWORD), ...from() } });
    expect(response.status).toBe(200);
    const page = await response.text();
    expect(page).toContain('<h1>Holiday &lt;2026&gt;</h1>');
    expect(page).toContain('Summer &amp; sea');
    for (const name of ['notes.txt', 'beach.png', 'data.bin']) expect(page).toContain(name);
    for (const file of Object.values(files)) expect(page).toContain(`href="${path}/files/${file.id}" download`);
    expect(page).toMatch(new RegExp(`href="${path}/archive\\.zip\\?v=[A-Za-z0-9_.-]+" download>Download all \\(ZIP,`));
    expect(page).not.toContain('type="password"');
  });

  it('answers a wrong HTTP Basic password with its form saying so (401), nothing of the collection shown', async () => {
    const { path, files } = await shared({ password: PASSWORD });
    const response = await call(path, { headers: { ...HTML, ...basic('wrong'), ...from() } });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBeNull();
    const page = await response.text();
    expect(page).toContain('This collection is protected by a password');
    expect(page).toContain('That password is not right.');
    for (const secret of ['Holiday', 'notes.txt', 'beach.png', files.text.id, 'archive.zip']) {
      expect(page).not.toContain(secret);
    }
  });
});

describe('a collection link’s cap: N × the archive’s length', () => {
  async function zipLength(path: string) {
    const head = await call(`${path}/archive.zip`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    const length = Number(head.headers.get('content-length'));
    expect(length).toBeGreaterThan(0);
    return length;
  }

  it('serves one ZIP on a cap of 1, then every path is 404 (page, members, ranges, ZIP)', async () => {
    const { path, files, auth, link } = await shared({ maxDownloads: 1 });
    const zip = await call(`${path}/archive.zip`);
    expect(zip.status).toBe(200);
    await bytesOf(zip);
    for (const url of [
      path,
      `${path}/archive.zip`,
      `${path}/download`,
      `${path}/files/${files.text.id}`,
      `${path}/files/${files.image.id}/view`,
    ]) {
      for (const headers of [{}, { Range: 'bytes=0-0' }, { Range: 'bytes=1-' }] as Record<string, string>[]) {
        expect((await call(url, { headers })).status, `${url} ${JSON.stringify(headers)}`).toBe(404);
      }
    }
    expect(await readLink(auth, link.id)).toMatchObject({ downloadCount: 1, status: 'exhausted', remainingBytes: 0 });
  });

  it('counts members, previews and ranges against the same budget', async () => {
    const { path, files, auth, link } = await shared({ maxDownloads: 1 });
    const length = await zipLength(path);
    const member = await call(`${path}/files/${files.data.id}`);
    expect(member.status).toBe(200);
    const spent = (await bytesOf(member)).byteLength;
    const preview = await call(`${path}/files/${files.image.id}/view`);
    const previewed = (await bytesOf(preview)).byteLength;
    // The whole ZIP no longer fits; what is left of the budget still does, as a range.
    expect((await call(`${path}/archive.zip`)).status).toBe(404);
    const left = length - spent - previewed;
    const rest = await call(`${path}/archive.zip`, { headers: { Range: `bytes=0-${left - 1}` } });
    expect(rest.status).toBe(206);
    expect((await bytesOf(rest)).byteLength).toBe(left);
    expect((await call(`${path}/archive.zip`, { headers: { Range: 'bytes=0-0' } })).status).toBe(404);
    // The member was a whole download; the range short of the archive's end was not.
    expect(await readLink(auth, link.id)).toMatchObject({ downloadCount: 1, status: 'exhausted', remainingBytes: 0 });
  });

  it('shows remainingBytes: N × the archive’s length on a fresh link, in every answer; null uncapped', async () => {
    const { path, auth, made, link } = await shared({ maxDownloads: 3 });
    const length = await zipLength(path);
    expect(link).toMatchObject({ remainingBytes: 3 * length, status: 'active' });
    const open = await collectionLink(auth, made.id);
    expect(open.remainingBytes).toBeNull();
    expect((await readLink(auth, link.id)).remainingBytes).toBe(3 * length);
    const listed = await call(`/api/v2/collections/${made.id}/links`, { headers: auth });
    const links = ((await listed.json()) as { data: { links: LinkRecord[] } }).data.links;
    expect(Object.fromEntries(links.map((one) => [one.id, one.remainingBytes]))).toEqual({
      [link.id]: 3 * length,
      [open.id]: null,
    });
    // Ranges short of the end spend the budget without counting a download.
    for (let i = 0; i < 3; i++) {
      await bytesOf(await call(`${path}/archive.zip`, { headers: { ...CLIENT, Range: 'bytes=0-0' } }));
    }
    expect(await readLink(auth, link.id)).toMatchObject({ downloadCount: 0, remainingBytes: 3 * length - 3 });
  });

  it('measures the budget by the archive as it is now: a shrunk archive can exhaust a link, a grown one reopens it', async () => {
    const { path, files, auth, made, link } = await shared({ maxDownloads: 1 });
    const length = await zipLength(path);
    const spent = (await bytesOf(await call(`${path}/files/${files.data.id}`, { headers: CLIENT }))).byteLength;
    expect(await readLink(auth, link.id)).toMatchObject({ status: 'active', remainingBytes: length - spent });
    // The big member leaves: the archive is now shorter than what the link has served.
    const removed = await call(`/api/v2/collections/${made.id}/files/${files.data.id}`, {
      method: 'DELETE',
      headers: auth,
    });
    expect(removed.status).toBe(200);
    const shrunk = Number((await archive(auth, made.id, {}, 'HEAD')).headers.get('content-length'));
    expect(shrunk).toBeLessThan(spent);
    expect(await readLink(auth, link.id)).toMatchObject({ status: 'exhausted', remainingBytes: 0 });
    expect((await call(path, { headers: HTML })).status).toBe(404);
    expect((await call(`${path}/archive.zip`, { headers: { ...CLIENT, Range: 'bytes=0-0' } })).status).toBe(404);
    // A bigger file joins: the budget passes what was served again, and the link opens.
    const big = await uploadFile(auth, 'big.bin', letters(5000), { type: 'application/octet-stream' });
    expect((await addFiles(auth, made.id, [big.id])).status).toBe(200);
    const grown = Number((await archive(auth, made.id, {}, 'HEAD')).headers.get('content-length'));
    expect(await readLink(auth, link.id)).toMatchObject({ status: 'active', remainingBytes: grown - spent });
    expect((await call(path, { headers: HTML })).status).toBe(200);
    const rest = await call(`${path}/archive.zip`, { headers: { ...CLIENT, Range: `bytes=0-${grown - spent - 1}` } });
    expect(rest.status).toBe(206);
    expect((await bytesOf(rest)).byteLength).toBe(grown - spent);
    expect(await readLink(auth, link.id)).toMatchObject({ downloadCount: 1, status: 'exhausted', remainingBytes: 0 });
  });

  it('never serves more than N × the length under concurrent ZIPs, members and ranges', async () => {
    const { path, files } = await shared({ maxDownloads: 2 });
    const length = await zipLength(path);
    const requests = [
      ...Array.from({ length: 4 }, () => call(`${path}/archive.zip`)),
      ...Array.from({ length: 3 }, () => call(`${path}/files/${files.data.id}`)),
      ...Array.from({ length: 3 }, () => call(`${path}/archive.zip`, { headers: { Range: 'bytes=5-' } })),
    ];
    const served = await Promise.all((await Promise.all(requests)).map(servedBytes));
    expect(sum(served)).toBeLessThanOrEqual(2 * length);
    // Each answer is whole or refused, never cut short.
    const member = files.data.bytes.byteLength;
    const whole = [...Array(4).fill(length), ...Array(3).fill(member), ...Array(3).fill(length - 5)];
    served.forEach((bytes, i) => {
      expect([0, whole[i]]).toContain(bytes);
    });
    // And the budget is used: a request is refused only when what is left is smaller than it, so
    // (whichever order they reserved in, ranges first included) more than one archive's worth went out.
    expect(sum(served)).toBeGreaterThan(length);
  });

  it('lets exactly one of five simultaneous ZIP downloads through on a cap of 1', async () => {
    const { path } = await shared({ maxDownloads: 1 });
    const responses = await Promise.all(Array.from({ length: 5 }, () => call(`${path}/archive.zip`)));
    expect(responses.map((response) => response.status).sort()).toEqual([200, 404, 404, 404, 404]);
    await Promise.all(responses.map((response) => response.arrayBuffer()));
  });

  it('gives back what a broken-off ZIP did not send, so it resumes within the cap', async () => {
    const { path, auth, link } = await shared({ maxDownloads: 1 }, { text: 300, data: 4 * 1024 * 1024 });
    const whole = await call(`${path}/archive.zip`);
    const etag = whole.headers.get('etag') ?? '';
    const { received, got } = await readThenBreakOff(whole, 1024 * 1024);
    expect(await statusAfterGiveBack(auth, link.id)).toBe('active');
    const rest = await call(`${path}/archive.zip`, { headers: { Range: `bytes=${got}-`, 'If-Range': etag } });
    expect(rest.status).toBe(206);
    const joined = concat([...received, await bytesOf(rest)]);
    const owners = await bytesOf(await archive(auth, (await readLink(auth, link.id)).collectionId as string));
    expect(await sha256Hex(joined)).toBe(await sha256Hex(owners));
    expect((await call(`${path}/archive.zip`, { headers: { Range: 'bytes=0-0' } })).status).toBe(404);
  });
});

describe('collection.downloaded through a link', () => {
  beforeAll(() => interceptReceivers());

  it('fires once per counted ZIP download through the link (via link, linkId), not for members or partial ranges', async () => {
    const { path, auth, made, link, files } = await shared();
    const hook = receiver();
    await createWebhook(auth, hook.url, ['collection.downloaded']);
    const length = (await bytesOf(await call(`${path}/archive.zip`))).byteLength;
    await bytesOf(await call(`${path}/download`, { headers: { Range: 'bytes=0-' } }));
    for (let i = 0; i < 3; i++) await bytesOf(await call(`${path}/download`, { headers: { Range: 'bytes=0-0' } }));
    await bytesOf(await call(`${path}/download`, { headers: { Range: 'bytes=0-9' } }));
    await bytesOf(await call(`${path}/archive.zip`, { headers: { Range: 'bytes=10-19' } }));
    await bytesOf(await call(`${path}/archive.zip`, { method: 'HEAD' }));
    await bytesOf(await call(`${path}/files/${files.text.id}`));
    await waitFor(() => ofType(hook.calls(), 'collection.downloaded').length >= 2, 'two events');
    await settle();
    const events = ofType(hook.calls(), 'collection.downloaded');
    expect(events).toHaveLength(2);
    for (const event of events) {
      expect(payloadOf(event).data).toEqual({
        collectionId: made.id,
        name: made.name,
        fileIds: [files.text.id, files.image.id, files.data.id],
        fileCount: 3,
        size: length,
        via: 'link',
        linkId: link.id,
      });
    }
  });
});
