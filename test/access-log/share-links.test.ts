// Every visit of a share URL is an event in its link's access log: the file's default link and
// made links, each outcome (served, partial, not modified, wrong password, exhausted, gone,
// throttled), with the bytes the client took, what the request's `cf` and User-Agent say, and an
// opaque visitor id. Owner downloads are no event; ACCESS_LOG=off records nothing.
import { createExecutionContext, env, waitOnExecutionContext } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import worker from '../../src/index';
import { basic, makeLink, owner, pathOf, readLink } from '../helpers/links';
import { awayFromWindowEdge, call, inOneHourWindow, ORIGIN, pollPause, someAddress } from '../helpers/worker';
import { accessLog, addressHeader, gist, visit, wholeLog } from './access-helpers';

const CONTENT = 'the shared content, 38 bytes long....';

describe('a file’s default link', () => {
  it('records the page, a download, a range, a 304 and the preview, newest first, under the file', async () => {
    const { auth, fileId, shareUrl } = await owner({ content: CONTENT });
    const path = new URL(shareUrl).pathname;
    expect((await visit(path, { headers: { Accept: 'text/html' } })).response.status).toBe(200);
    const whole = await visit(`${path}/download`);
    expect(whole.response.status).toBe(200);
    const etag = whole.response.headers.get('etag') ?? '';
    expect((await visit(`${path}/download`, { headers: { Range: 'bytes=0-3' } })).response.status).toBe(206);
    expect((await visit(`${path}/download`, { headers: { 'If-None-Match': etag } })).response.status).toBe(304);
    expect((await visit(`${path}/view`)).response.status).toBe(200);

    const log = await accessLog(auth, `/files/${fileId}`);
    expect(log.events.map(gist)).toEqual([
      { kind: 'preview', outcome: 'served', status: 200, bytes: CONTENT.length, range: false },
      { kind: 'download', outcome: 'not-modified', status: 304, bytes: 0, range: false },
      { kind: 'download', outcome: 'partial', status: 206, bytes: 4, range: true },
      { kind: 'download', outcome: 'served', status: 200, bytes: CONTENT.length, range: false },
      { kind: 'page', outcome: 'served', status: 200, bytes: 0, range: false },
    ]);
    expect(log.events.every((event) => event.linkId === null)).toBe(true);
    expect(log).toMatchObject({ nextCursor: null, droppedEvents: 0 });
  });

  it('records a visit of a private file’s default link as gone, under the file', async () => {
    const { auth, fileId, shareUrl } = await owner({ content: CONTENT }, 'false');
    expect((await visit(`${new URL(shareUrl).pathname}/download`)).response.status).toBe(404);
    const log = await accessLog(auth, `/files/${fileId}`);
    expect(log.events.map(gist)).toEqual([
      { kind: 'download', outcome: 'refused-gone', status: 404, bytes: 0, range: false },
    ]);
  });

  it('records a download refused by the per-address throttle, before the link was even looked up', async () => {
    const { auth, fileId, shareUrl } = await owner({ content: CONTENT });
    const from = addressHeader();
    // Both downloads count in one window.
    const tight = await inOneHourWindow('LINK_DOWNLOAD_WINDOW_SECONDS', { LINK_DOWNLOAD_LIMIT: '1' });
    const path = `${new URL(shareUrl).pathname}/download`;
    expect((await visit(path, { headers: from }, tight)).response.status).toBe(200);
    expect((await visit(path, { headers: from }, tight)).response.status).toBe(429);
    const { events } = await accessLog(auth, `/files/${fileId}`);
    expect(events.map(gist)).toEqual([
      { kind: 'download', outcome: 'throttled', status: 429, bytes: 0, range: false },
      { kind: 'download', outcome: 'served', status: 200, bytes: CONTENT.length, range: false },
    ]);
    // One visitor: the same address, the same id.
    expect(new Set(events.map((event) => event.visitor)).size).toBe(1);
  });

  it('counts what the client took of a download it broke off (to within a 256 KiB piece)', async () => {
    const size = 3 * 1024 * 1024;
    const { auth, fileId, shareUrl } = await owner({ content: 'y'.repeat(size), type: 'application/octet-stream' });
    const request = new Request(`${ORIGIN}${new URL(shareUrl).pathname}/download`, { headers: addressHeader() });
    const ctx = createExecutionContext();
    const response = await worker.fetch(request, env, ctx);
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    let got = 0;
    while (got < size / 2) {
      const { done, value } = await reader.read();
      if (done) break;
      got += value.byteLength;
    }
    await reader.cancel();
    await waitOnExecutionContext(ctx);
    // The event follows the cancel (no request signal here to hand it to waitUntil at once).
    let events = (await accessLog(auth, `/files/${fileId}`)).events;
    for (let attempt = 0, deadline = Date.now() + 30_000; events.length === 0 && Date.now() < deadline; attempt++) {
      await pollPause(attempt);
      events = (await accessLog(auth, `/files/${fileId}`)).events;
    }
    expect(events).toHaveLength(1);
    const bytes = events[0]?.bytes ?? -1;
    expect(bytes).toBeLessThanOrEqual(got);
    expect(bytes).toBeGreaterThan(got - 256 * 1024);
    expect(events[0]).toMatchObject({ kind: 'download', outcome: 'served', status: 200 });
  });
});

describe('a made link', () => {
  it('records pages, password attempts, downloads and the exhausted link, under the link', async () => {
    const { auth, fileId } = await owner({ content: CONTENT });
    const link = await makeLink(auth, fileId, { password: 'right one', maxDownloads: 1 });
    const path = pathOf(link);
    const html = { Accept: 'text/html' };
    const form = (password: string): RequestInit => ({
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ password }),
      redirect: 'manual',
    });
    expect((await visit(path, { headers: html })).response.status).toBe(200);
    expect((await visit(path, form('wrong one'))).response.status).toBe(401);
    expect((await visit(path, form('right one'))).response.status).toBe(303);
    expect((await visit(`${path}/download`, { headers: basic('wrong one') })).response.status).toBe(401);
    expect((await visit(`${path}/download`, { headers: basic('right one') })).response.status).toBe(200);
    expect((await visit(path, { headers: html })).response.status).toBe(404);
    expect((await visit(`${path}/download`, { headers: basic('right one') })).response.status).toBe(404);

    const log = await accessLog(auth, `/links/${link.id}`);
    expect(log.events.map(gist)).toEqual([
      { kind: 'download', outcome: 'refused-exhausted', status: 404, bytes: 0, range: false },
      { kind: 'page', outcome: 'refused-exhausted', status: 404, bytes: 0, range: false },
      { kind: 'download', outcome: 'served', status: 200, bytes: CONTENT.length, range: false },
      { kind: 'download', outcome: 'refused-password', status: 401, bytes: 0, range: false },
      { kind: 'password', outcome: 'served', status: 303, bytes: 0, range: false },
      { kind: 'password', outcome: 'refused-password', status: 401, bytes: 0, range: false },
      { kind: 'page', outcome: 'refused-password', status: 200, bytes: 0, range: false },
    ]);
    expect(log.events.every((event) => event.linkId === link.id)).toBe(true);

    // The link's record: the last access, and seven visits from seven addresses.
    const record = await readLink(auth, link.id);
    expect(record).toMatchObject({ visitors: 7, droppedEvents: 0 });
    expect(record.lastAccessAt).toBe(log.events[0]?.at);
    // The file's log has its made links' events too.
    expect((await accessLog(auth, `/files/${fileId}`)).events.map(gist)).toEqual(log.events.map(gist));
  });

  it('counts a capped link’s range and preview by what they sent', async () => {
    const { auth, fileId } = await owner({ content: CONTENT });
    const link = await makeLink(auth, fileId, { maxDownloads: 5 });
    const path = pathOf(link);
    expect((await visit(`${path}/download`, { headers: { Range: 'bytes=10-' } })).response.status).toBe(206);
    expect((await visit(`${path}/view`)).response.status).toBe(200);
    const { events } = await accessLog(auth, `/links/${link.id}`);
    expect(events.map(gist)).toEqual([
      { kind: 'preview', outcome: 'served', status: 200, bytes: CONTENT.length, range: false },
      { kind: 'download', outcome: 'partial', status: 206, bytes: CONTENT.length - 10, range: true },
    ]);
  });

  it('records a visit of a revoked link as gone, under the link', async () => {
    const { auth, fileId } = await owner({ content: CONTENT });
    const link = await makeLink(auth, fileId);
    expect((await call(`/api/v2/links/${link.id}`, { method: 'DELETE', headers: auth })).status).toBe(200);
    expect((await visit(`${pathOf(link)}/download`)).response.status).toBe(404);
    const { events } = await accessLog(auth, `/links/${link.id}`);
    expect(events.map(gist)).toEqual([
      { kind: 'download', outcome: 'refused-gone', status: 404, bytes: 0, range: false },
    ]);
  });

  it('records too many wrong passwords as throttled', async () => {
    const { auth, fileId } = await owner({ content: CONTENT });
    const link = await makeLink(auth, fileId, { password: 'right one' });
    const from = addressHeader();
    // Wrong passwords per address count in 5-minute windows aligned to the clock: all of them in one.
    await awayFromWindowEdge(300);
    let status = 401;
    for (let i = 0; i < 12 && status === 401; i++) {
      status = (await visit(`${pathOf(link)}/download`, { headers: { ...basic(`wrong ${i}`), ...from } })).response
        .status;
    }
    expect(status).toBe(429);
    const { events } = await accessLog(auth, `/links/${link.id}`);
    expect(gist(events[0] as (typeof events)[number])).toEqual({
      kind: 'download',
      outcome: 'throttled',
      status: 429,
      bytes: 0,
      range: false,
    });
    expect(events.slice(1).every((event) => event.outcome === 'refused-password')).toBe(true);
  });
});

describe('what an event says of its visitor', () => {
  it('keeps the cf object’s place and network, the kind of client and an opaque visitor id', async () => {
    const { auth, fileId, shareUrl } = await owner({ content: CONTENT });
    const path = `${new URL(shareUrl).pathname}/download`;
    const address = someAddress();
    const cf = { country: 'NZ', asn: 64500, asOrganization: 'Example Networks', colo: 'AKL' };
    await visit(path, { headers: { 'User-Agent': 'curl/8.5.0', ...addressHeader(address) }, cf });
    await visit(path, {
      headers: {
        'User-Agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/130.0 Safari/537.36',
        ...addressHeader(address),
      },
    });
    await visit(path, { headers: { 'User-Agent': 'python-requests/2.32.3' } });
    await visit(path, { headers: { 'User-Agent': 'Wget/1.21.4' } });
    await visit(path, { headers: { 'User-Agent': 'node' } });
    await visit(path);

    const events = (await wholeLog(auth, `/files/${fileId}`)).reverse();
    expect(events.map((event) => event.client)).toEqual(['curl', 'browser', 'python', 'wget', 'node', 'other']);
    expect(events[0]).toMatchObject(cf);
    expect(events[1]).toMatchObject({ country: null, asn: null, asOrganization: null, colo: null });
    // The same address is the same visitor; every other address another one.
    expect(events[0]?.visitor).toBe(events[1]?.visitor);
    expect(new Set(events.map((event) => event.visitor)).size).toBe(5);
    for (const event of events) expect(event.visitor).toMatch(/^[A-Za-z0-9_-]{16}$/);
    expect(Object.keys(events[0] ?? {}).sort()).toEqual(
      [
        'asOrganization',
        'asn',
        'at',
        'bytes',
        'client',
        'colo',
        'country',
        'kind',
        'linkId',
        'outcome',
        'range',
        'status',
        'visitor',
      ].sort(),
    );
  });

  it('does not record the owner’s own downloads through the API', async () => {
    const { auth, fileId } = await owner({ content: CONTENT });
    expect((await visit(`/api/v2/files/${fileId}/download`, { headers: auth })).response.status).toBe(200);
    expect((await visit(`/api/v1/files/${fileId}/download`, { headers: auth })).response.status).toBe(200);
    expect((await accessLog(auth, `/files/${fileId}`)).events).toEqual([]);
  });

  it('records nothing while ACCESS_LOG is off', async () => {
    const { auth, fileId, shareUrl } = await owner({ content: CONTENT });
    const link = await makeLink(auth, fileId);
    const off = { ACCESS_LOG: 'off' };
    expect((await visit(`${new URL(shareUrl).pathname}/download`, {}, off)).response.status).toBe(200);
    expect((await visit(`${pathOf(link)}/download`, {}, off)).response.status).toBe(200);
    expect((await visit(pathOf(link), {}, off)).response.status).toBe(200);
    expect((await accessLog(auth, `/files/${fileId}`)).events).toEqual([]);
    expect(await readLink(auth, link.id)).toMatchObject({ lastAccessAt: null, visitors: 0 });
  });
});
