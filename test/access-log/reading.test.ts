// Reading access logs: newest first, `limit` 1…100 (default 20), an opaque cursor that pages
// through one log or several merged (a file's default link and its links) without losing or
// repeating an event, even of the same millisecond; files:read; another account's ids are 404.
import { env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import type { AccessEntry } from '../../src/access-log/access-log-contract';
import { makeLink, owner, pathOf } from '../helpers/links';
import { call, createKey } from '../helpers/worker';
import { accessLog, visit, wholeLog } from './access-helpers';

const entry = (at: number, visitor = 'v'): AccessEntry => ({
  at,
  kind: 'download',
  outcome: 'served',
  status: 200,
  bytes: 1,
  range: false,
  country: null,
  asn: null,
  asOrganization: null,
  colo: null,
  client: 'curl',
  visitor,
});

/** Events written straight into a link's log (its counter object), as the recorder sends them. */
const appendTo = (name: string, events: AccessEntry[]) =>
  env.LINK_COUNTERS.getByName(name).appendAccess({ events, dropped: 0 });

describe('GET /api/v2/links/{linkId}/access', () => {
  it('pages newest first with the cursor, 20 by default, and says null at the end', async () => {
    const { auth, fileId } = await owner();
    const link = await makeLink(auth, fileId);
    const start = Date.now() - 60_000;
    await appendTo(
      link.id,
      Array.from({ length: 45 }, (_, i) => entry(start + i * 10)),
    );
    const first = await accessLog(auth, `/links/${link.id}`);
    expect(first.events).toHaveLength(20);
    expect(first.events[0]?.at).toBe(new Date(start + 440).toISOString());
    expect(first.nextCursor).toEqual(expect.any(String));
    const second = await accessLog(auth, `/links/${link.id}`, `?cursor=${encodeURIComponent(first.nextCursor ?? '')}`);
    expect(second.events).toHaveLength(20);
    const third = await accessLog(
      auth,
      `/links/${link.id}`,
      `?limit=100&cursor=${encodeURIComponent(second.nextCursor ?? '')}`,
    );
    expect(third.events).toHaveLength(5);
    expect(third.nextCursor).toBeNull();
    const times = [...first.events, ...second.events, ...third.events].map((event) => Date.parse(event.at));
    expect(times).toEqual(Array.from({ length: 45 }, (_, i) => start + (44 - i) * 10));
  });

  it('refuses a limit out of 1…100 and a cursor it did not give with 400 VALIDATION_ERROR', async () => {
    const { auth, fileId } = await owner();
    const link = await makeLink(auth, fileId);
    for (const query of ['?limit=0', '?limit=101', '?limit=x', '?cursor=nope', `?cursor=${btoa('[1,2]')}`]) {
      const response = await call(`/api/v2/links/${link.id}/access${query}`, { headers: auth });
      expect(response.status, query).toBe(400);
      expect(((await response.json()) as { code: string }).code).toBe('VALIDATION_ERROR');
    }
  });

  it('answers another account’s link, or an unknown one, with 404 LINK_NOT_FOUND; a key without files:read 403', async () => {
    const { auth, fileId } = await owner();
    const link = await makeLink(auth, fileId);
    const other = await createKey('other');
    for (const id of [link.id, 'lnk_AAAAAAAAAAAAAAAAAAAAAA', 'nonsense']) {
      const response = await call(`/api/v2/links/${id}/access`, { headers: other.auth });
      expect(response.status).toBe(404);
      expect(((await response.json()) as { code: string }).code).toBe('LINK_NOT_FOUND');
    }
    const writer = await call('/api/v2/keys', {
      method: 'POST',
      headers: { ...auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'w', scopes: ['links:write'] }),
    });
    const { key } = ((await writer.json()) as { data: { key: string } }).data;
    const refused = await call(`/api/v2/links/${link.id}/access`, { headers: { Authorization: `Bearer ${key}` } });
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ code: 'FORBIDDEN', details: [{ scope: 'files:read' }] });
  });
});

describe('GET /api/v2/files/{id}/access', () => {
  it('merges the default link and every made link, newest first, each event naming its link', async () => {
    const { auth, fileId, shareUrl } = await owner();
    const a = await makeLink(auth, fileId);
    const b = await makeLink(auth, fileId);
    const order = [null, a, b, a, null, b, b];
    for (const link of order) {
      const path = link ? pathOf(link) : new URL(shareUrl).pathname;
      expect((await visit(`${path}/download`)).response.status).toBe(200);
      // Distinct milliseconds, so the expected order is the visits' own.
      await new Promise((resolve) => setTimeout(resolve, 3));
    }
    const events = await wholeLog(auth, `/files/${fileId}`, 2);
    expect(events.map((event) => event.linkId)).toEqual(order.reverse().map((link) => link?.id ?? null));
  });

  it('pages through events of one millisecond in several logs without losing or repeating one', async () => {
    const { auth, fileId } = await owner();
    const links = [await makeLink(auth, fileId), await makeLink(auth, fileId)];
    const at = Date.now() - 1000;
    await appendTo(`file:${fileId}`, [entry(at, 'd1'), entry(at, 'd2'), entry(at - 1, 'd3')]);
    for (const [i, link] of links.entries()) {
      await appendTo(link.id, [entry(at, `l${i}a`), entry(at, `l${i}b`), entry(at + 1, `l${i}c`)]);
    }
    const all = await wholeLog(auth, `/files/${fileId}`, 100);
    expect(all).toHaveLength(9);
    for (const limit of [1, 2, 4]) {
      const paged = await wholeLog(auth, `/files/${fileId}`, limit);
      expect(paged.map((event) => event.visitor)).toEqual(all.map((event) => event.visitor));
    }
    expect(all.map((event) => Date.parse(event.at))).toEqual(
      [...all.map((event) => Date.parse(event.at))].sort((x, y) => y - x),
    );
  });

  it('answers another account’s file with 404 FILE_NOT_FOUND', async () => {
    const { fileId } = await owner();
    const other = await createKey('other');
    const response = await call(`/api/v2/files/${fileId}/access`, { headers: other.auth });
    expect(response.status).toBe(404);
    expect(((await response.json()) as { code: string }).code).toBe('FILE_NOT_FOUND');
  });
});
