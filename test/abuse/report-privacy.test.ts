// A reporter's address is never stored: not in any D1 table, not as the name of the per-address
// guard that throttles reports, not in the answers, not in a log line. The access log's visitor
// id stands for it (and nothing at all for a report whose URL named nothing).
import { env, runInDurableObject } from 'cloudflare:test';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { clientAddress, guardOf } from '../../src/limiter/auth-guard-client';
import { consoleDuring } from '../helpers/console';
import { uploadOk } from '../helpers/upload';
import { interceptReceivers } from '../helpers/webhooks';
import { call, createKey } from '../helpers/worker';

// Documentation addresses (RFC 5737, RFC 3849), and the forms an IPv6 client's /64 may be written in.
const ADDRESS = '198.51.100.219';
const IPV6 = '2001:db8:5151:9::77';
const NEEDLES = [ADDRESS, '2001:db8:5151:9', '2001:0db8:5151:0009'];

afterEach(() => {
  vi.restoreAllMocks();
  interceptReceivers();
});

beforeAll(() => interceptReceivers());

const expectNoAddress = (text: string, where: string) => {
  for (const needle of NEEDLES) expect(text.includes(needle), `${needle} in ${where}`).toBe(false);
};

/** Every row of every table of the local D1 database, as text. */
async function everyTable(): Promise<string> {
  const { results: tables } = await env.DB.prepare(
    "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%' AND name NOT LIKE 'd1_%'",
  ).all<{ name: string }>();
  expect(tables.map((table) => table.name)).toContain('reports');
  const dumps = await Promise.all(
    tables.map(async ({ name }) => JSON.stringify((await env.DB.prepare(`SELECT * FROM "${name}"`).all()).results)),
  );
  return dumps.join('\n');
}

describe('a reporter’s address', () => {
  it('is in no table, no guard’s name, no answer and no log line; the visitor id stands for it', async () => {
    const owner = await createKey('privacy');
    const file = await uploadOk('v2', owner.auth, { filename: 'private.txt', content: 'reported privately' });
    const answers: string[] = [];
    const logged = await consoleDuring(async () => {
      for (const address of [ADDRESS, IPV6]) {
        for (const [url, contentType, body] of [
          [file.shareUrl, 'application/json', JSON.stringify({ url: file.shareUrl, reason: 'malware' })],
          ['nothing', 'application/x-www-form-urlencoded', 'url=nothing&reason=other'],
        ] as const) {
          const response = await call(
            '/api/v2/reports',
            {
              method: 'POST',
              headers: { 'Content-Type': contentType, 'CF-Connecting-IP': address, Accept: 'text/html' },
              body,
            },
            { REPORT_QUARANTINE_THRESHOLD: '2' },
          );
          expect(response.status, url).toBe(202);
          answers.push(JSON.stringify([...response.headers]), await response.text());
        }
      }
    });
    expectNoAddress(logged, 'the log lines');
    expectNoAddress(answers.join('\n'), 'the answers');
    const state = await everyTable();
    expectNoAddress(state, 'the database');

    // The reports of the file name two visitors (two addresses), the others none; the two put the hold on.
    const { results } = await env.DB.prepare(
      'SELECT target_id, visitor FROM reports WHERE target_id IS ? OR target_id IS NULL',
    )
      .bind(file.id)
      .all<{ target_id: string | null; visitor: string | null }>();
    const named = results.filter((row) => row.target_id === file.id);
    expect(new Set(named.map((row) => row.visitor)).size).toBe(2);
    expect(results.filter((row) => row.target_id === null).every((row) => row.visitor === null)).toBe(true);

    // The throttle's object is reached by a keyed hash of the address: it has no name, and keeps only its windows.
    for (const address of [ADDRESS, IPV6]) {
      const guard = guardOf(env.AUTH_GUARD, clientAddress(new Headers({ 'CF-Connecting-IP': address })));
      const kept = await runInDurableObject(guard, (_, state) => ({
        name: state.id.name ?? null,
        keys: [...state.storage.kv.list()].map(([key]) => key),
      }));
      expect(kept.name).toBeNull();
      expect(kept.keys).toContain('report');
      expectNoAddress(JSON.stringify(kept), 'the guard');
    }
  });
});
