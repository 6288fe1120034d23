// The raw client address appears nowhere: not in events, answers, link records or log lines, and
// the per-address guard is reached by a hash of it, so its object holds no name (local state
// keeps an object's name in plain text: see test/access-log/access-log.e2e.test.ts for the state on disk).
import { env, runInDurableObject } from 'cloudflare:test';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { guardOf } from '../../src/limiter/auth-guard-client';
import { consoleDuring } from '../helpers/console';
import { basic, makeLink, owner, pathOf } from '../helpers/links';
import { makeRequest, newOwner } from '../helpers/requests';
import { call } from '../helpers/worker';
import { accessLog, visit } from './access-helpers';

// A documentation address (RFC 5737), and the /64 an IPv6 client is grouped by.
const ADDRESS = '198.51.100.173';
const IPV6 = '2001:db8:4242:17::9';
const NEEDLES = [ADDRESS, '2001:db8:4242:17', '2001:0db8:4242:0017'];

afterEach(() => {
  vi.restoreAllMocks();
});

const expectNoAddress = (text: string, where: string) => {
  for (const needle of NEEDLES) expect(text.includes(needle), `${needle} in ${where}`).toBe(false);
};

describe('the client address', () => {
  it('is in no event, answer, record or log line, whatever the visit', async () => {
    const { auth, fileId, shareUrl } = await owner({ content: 'private address test' });
    const link = await makeLink(auth, fileId, { password: 'pw', maxDownloads: 1 });
    const requestOwner = await newOwner();
    const request = await makeRequest(requestOwner.auth);
    const answers: string[] = [];
    const keep = async (response: Response, body: Uint8Array) => {
      answers.push(JSON.stringify([...response.headers]), new TextDecoder().decode(body));
    };
    const logged = await consoleDuring(async () => {
      for (const address of [ADDRESS, IPV6]) {
        const from = { 'CF-Connecting-IP': address };
        for (const [path, init] of [
          [new URL(shareUrl).pathname, { headers: from }],
          [`${new URL(shareUrl).pathname}/download`, { headers: from }],
          [pathOf(link), { headers: { ...from, Accept: 'text/html' } }],
          [`${pathOf(link)}/download`, { headers: { ...from, ...basic('wrong') } }],
          [`${pathOf(link)}/download`, { headers: { ...from, ...basic('pw') } }],
          [`${pathOf(link)}/download`, { headers: { ...from, ...basic('pw') } }],
          ['/api/v2/files', { headers: { ...from, Authorization: 'Bearer esk_wrong' } }],
        ] as const) {
          const { response, body } = await visit(path, init);
          await keep(response, body);
        }
        const data = new FormData();
        data.append('file', new File(['x'], 'x.txt', { type: 'text/plain' }));
        const sent = await visit(request.uploadUrl, { method: 'POST', body: data, headers: from });
        expect(sent.response.status).toBe(201);
        await keep(sent.response, sent.body);
      }
    });
    expectNoAddress(logged, 'the log lines');
    expectNoAddress(answers.join('\n'), 'the answers');
    for (const [who, path] of [
      [auth, `/files/${fileId}`],
      [auth, `/links/${link.id}`],
      [requestOwner.auth, `/requests/${request.id}`],
    ] as const) {
      const log = await accessLog(who, path, '?limit=100');
      expect(log.events.length).toBeGreaterThan(0);
      expectNoAddress(JSON.stringify(log), `the access log of ${path}`);
    }
    const record = await call(`/api/v2/links/${link.id}`, { headers: auth });
    expectNoAddress(await record.text(), 'the link record');
  });

  it('names no guard object: the guard is reached by a keyed hash of the address', async () => {
    const guard = guardOf(env.AUTH_GUARD, ADDRESS);
    await guard.hit({ scope: 'link-download', limit: 100, windowSeconds: 60 });
    const name = await runInDurableObject(guard, (_, state) => state.id.name ?? null);
    expect(name).toBeNull();
    expect(guard.id.toString()).not.toContain(ADDRESS);
    // The same object as before the change (the id of the name), so every window counted still counts.
    expect(guard.id.toString()).toBe(env.AUTH_GUARD.idFromName(ADDRESS).toString());
  });
});
