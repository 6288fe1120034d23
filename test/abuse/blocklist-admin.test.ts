// The hash blocklist's admin routes (/admin/blocklist, ADMIN_TOKEN): block a hash with a reason
// (idempotent, any case, stored lowercase), look it up, unblock it, page through the list newest
// first, and import 10,000 hashes in one text/plain request, all or nothing.
import { env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { ADMIN } from '../helpers/moderation';
import { expectError } from '../helpers/responses';
import { call } from '../helpers/worker';

type Entry = { sha256: string; reason: string | null; createdAt: string };
type Page = { hashes: Entry[]; nextCursor: string | null };
type Imported = { received: number; added: number; alreadyBlocked: number };

const randomHash = () =>
  [...crypto.getRandomValues(new Uint8Array(32))].map((byte) => byte.toString(16).padStart(2, '0')).join('');

const admin = (path: string, init: RequestInit = {}) =>
  call(`/admin/blocklist${path}`, { ...init, headers: { ...ADMIN, ...init.headers } });

const put = (sha256: string, body: unknown) =>
  admin(`/${sha256}`, { method: 'PUT', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });

const importList = (text: string, query = '', type = 'text/plain; charset=utf-8') =>
  admin(query, { method: 'POST', headers: { 'Content-Type': type }, body: text });

async function data<T>(response: Response, status = 200): Promise<T> {
  const text = await response.text();
  expect(response.status, text).toBe(status);
  return (JSON.parse(text) as { data: T }).data;
}

const isBlocked = async (sha256: string) =>
  (await env.DB.prepare('SELECT 1 AS one FROM blocklist WHERE sha256 = ?1').bind(sha256).first()) !== null;

describe('PUT, GET and DELETE /admin/blocklist/{sha256}', () => {
  it('blocks a hash given in any case, stored lowercase: 201, then 200 with the new reason and the first time', async () => {
    const hash = randomHash();
    const first = await data<Entry>(await put(hash.toUpperCase(), { reason: '  Known malware.  ' }), 201);
    expect(first).toEqual({ sha256: hash, reason: 'Known malware.', createdAt: expect.any(String) });
    const again = await data<Entry>(await put(hash, { reason: 'Known malware (MalwareBazaar).' }), 200);
    expect(again).toEqual({ ...first, reason: 'Known malware (MalwareBazaar).' });
    expect(await data<Entry>(await admin(`/${hash.toUpperCase()}`))).toEqual(again);
  });

  it('refuses a malformed hash, a missing, empty or over-long reason, and a request without the admin token', async () => {
    for (const bad of ['abc', `${randomHash()}0`, `${randomHash().slice(1)}g`]) {
      const body = await expectError(await put(bad, { reason: 'x' }), 400, 'VALIDATION_ERROR');
      expect(body.details).toEqual([expect.objectContaining({ field: 'sha256' })]);
    }
    const hash = randomHash();
    for (const body of [{}, { reason: '' }, { reason: '   ' }, { reason: 'x'.repeat(501) }]) {
      await expectError(await put(hash, body), 400, 'VALIDATION_ERROR');
    }
    expect((await put(hash, { reason: 'x'.repeat(500) })).status).toBe(201);
    const anonymous = await call(`/admin/blocklist/${hash}`, { method: 'DELETE' });
    await expectError(anonymous, 401, 'UNAUTHORIZED');
    expect(await isBlocked(hash)).toBe(true);
  });

  it('unblocks a hash: 200 with the entry it had, then 404 for it (and for a hash never blocked)', async () => {
    const hash = randomHash();
    const entry = await data<Entry>(await put(hash, { reason: 'A mistake.' }), 201);
    expect(await data<Entry>(await admin(`/${hash}`, { method: 'DELETE' }))).toEqual(entry);
    expect(await isBlocked(hash)).toBe(false);
    await expectError(await admin(`/${hash}`, { method: 'DELETE' }), 404, 'NOT_FOUND');
    await expectError(await admin(`/${hash}`), 404, 'NOT_FOUND');
    await expectError(await admin('/not-a-hash', { method: 'DELETE' }), 400, 'VALIDATION_ERROR');
  });
});

describe('GET /admin/blocklist', () => {
  it('pages through every entry newest first with an opaque cursor, each once, null after the last', async () => {
    const mine = [randomHash(), randomHash(), randomHash(), randomHash(), randomHash()];
    for (const hash of mine) await data(await put(hash, { reason: 'paged' }), 201);
    const seen: Entry[] = [];
    let cursor: string | null = '';
    while (cursor !== null) {
      const query: string = cursor ? `?limit=2&cursor=${encodeURIComponent(cursor)}` : '?limit=2';
      const page: Page = await data<Page>(await admin(query));
      expect(page.hashes.length).toBeLessThanOrEqual(2);
      seen.push(...page.hashes);
      cursor = page.nextCursor;
    }
    const count = await env.DB.prepare('SELECT COUNT(*) AS n FROM blocklist').first<{ n: number }>();
    expect(seen).toHaveLength(count?.n ?? -1);
    expect(new Set(seen.map((entry) => entry.sha256)).size).toBe(seen.length);
    const order = seen.map((entry) => `${entry.createdAt} ${entry.sha256}`);
    expect(order).toEqual([...order].sort().reverse());
    // The newest first: the last one blocked here leads (nothing was blocked after it).
    expect(seen.map((entry) => entry.sha256).slice(0, 1)).toEqual([mine.at(-1)]);
    expect(seen.filter((entry) => mine.includes(entry.sha256))).toHaveLength(mine.length);
  });

  it('refuses a cursor it never gave and a limit out of range', async () => {
    await expectError(await admin('?cursor=bm90LWEtY3Vyc29y'), 400, 'VALIDATION_ERROR');
    await expectError(await admin('?limit=0'), 400, 'VALIDATION_ERROR');
    await expectError(await admin('?limit=101'), 400, 'VALIDATION_ERROR');
  });
});

describe('POST /admin/blocklist (import)', () => {
  it('imports 10,000 hashes in one request: any case, CRLF, comments and blank lines; counts what was new', async () => {
    const known = randomHash();
    await data(await put(known, { reason: 'blocked before' }), 201);
    const hashes = Array.from({ length: 9_998 }, randomHash);
    const lines = [
      '# a list of known-bad files',
      '',
      known.toUpperCase(),
      ...hashes.map((hash, index) => (index % 3 === 0 ? hash.toUpperCase() : hash)),
      `  ${hashes[0]}  `,
      '',
    ];
    const started = Date.now();
    const response = await importList(lines.join('\r\n'), '?reason=Imported%20list');
    const ms = Date.now() - started;
    expect(await data<Imported>(response)).toEqual({ received: 10_000, added: 9_998, alreadyBlocked: 1 });
    console.info(`import of 10,000 hashes: ${ms} ms in the test runtime`);
    const entry = await data<Entry>(await admin(`/${hashes[5]}`));
    expect(entry).toMatchObject({ sha256: hashes[5], reason: 'Imported list' });
    // A hash blocked before keeps its own entry.
    expect(await data<Entry>(await admin(`/${known}`))).toMatchObject({ reason: 'blocked before' });

    const again = await importList(hashes.slice(0, 3).join('\n'));
    expect(await data<Imported>(again)).toEqual({ received: 3, added: 0, alreadyBlocked: 3 });
  });

  it('refuses a list with any line that is no SHA-256, naming the lines, and imports nothing of it', async () => {
    const good = [randomHash(), randomHash()];
    const text = [good[0], 'not a hash', `${good[1]}`, `${randomHash()} file.bin`, `${randomHash().slice(2)}`].join(
      '\n',
    );
    const body = await expectError(await importList(text), 400, 'VALIDATION_ERROR');
    expect(body.error).toContain('Lines 2, 4, 5');
    expect(body.details?.map((detail) => (detail as { field: string }).field)).toEqual(['line 2', 'line 4', 'line 5']);
    for (const hash of good) expect(await isBlocked(hash as string)).toBe(false);
  });

  it('refuses more than 10,000 hashes, more than 1 MiB, no hash at all, and another content type', async () => {
    const many = Array.from({ length: 10_001 }, randomHash);
    await expectError(await importList(many.join('\n')), 400, 'VALIDATION_ERROR');
    expect(await isBlocked(many[0] as string)).toBe(false);
    const padded = `# ${'x'.repeat(1024 * 1024)}\n${randomHash()}\n`;
    await expectError(await importList(padded), 400, 'VALIDATION_ERROR');
    await expectError(await importList('# nothing here\n\n'), 400, 'VALIDATION_ERROR');
    await expectError(
      await importList(randomHash(), '', 'application/x-www-form-urlencoded'),
      415,
      'UNSUPPORTED_MEDIA_TYPE',
    );
    await expectError(await importList(randomHash(), '?reason='), 400, 'VALIDATION_ERROR');
  });
});
