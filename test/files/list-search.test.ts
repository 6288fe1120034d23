// GET /api/v2/files with q (name search), sort and order; v1 keeps its list as it was.
import { env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { listSql } from '../../src/storage/files-repo';
import type { FileRecordV2 } from '../helpers/records';
import { expectError, json } from '../helpers/responses';
import { seedFiles } from '../helpers/storage';
import type { Auth } from '../helpers/upload';
import { call, createKey } from '../helpers/worker';

type Page = { files: FileRecordV2[]; pagination: { page: number; limit: number; total: number; totalPages: number } };

async function list(auth: Auth, query: string, version = 'v2'): Promise<Page> {
  const response = await call(`/api/${version}/files?${query}`, { headers: auth });
  const body = await json<{ data: Page }>(response);
  expect(response.status, JSON.stringify(body)).toBe(200);
  return body.data;
}

const names = (page: Page) => page.files.map((file) => file.originalName);

type Spec = { name: string; size: number; minutesAgo: number; expired?: boolean };

/** Files with chosen names, sizes and upload times, written straight into D1 and R2. */
async function keyWith(specs: Spec[]) {
  const key = await createKey('list', { rateLimitRequests: 10_000 });
  const now = Date.now();
  const rows = await seedFiles(
    key.id,
    specs.map((spec) => ({
      size: spec.size,
      uploadedAt: new Date(now - spec.minutesAgo * 60_000).toISOString(),
      expiresAt: spec.expired ? new Date(now - 1000).toISOString() : null,
    })),
  );
  for (const [index, row] of rows.entries()) {
    await env.DB.prepare('UPDATE files SET original_name = ?2 WHERE id = ?1').bind(row.id, specs[index]?.name).run();
  }
  return { ...key, ids: rows.map((row) => row.id) };
}

const FILES: Spec[] = [
  { name: 'Report-2026.pdf', size: 300, minutesAgo: 5 },
  { name: 'b-notes.txt', size: 100, minutesAgo: 4 },
  { name: 'annual REPORT.txt', size: 200, minutesAgo: 3 },
  { name: 'c.txt', size: 200, minutesAgo: 2 },
  { name: 'old report.txt', size: 50, minutesAgo: 1, expired: true },
];

describe('GET /api/v2/files sort and order', () => {
  it('keeps newest first by default, and oldest first with order=asc', async () => {
    const { auth } = await keyWith(FILES);
    expect(names(await list(auth, ''))).toEqual(['c.txt', 'annual REPORT.txt', 'b-notes.txt', 'Report-2026.pdf']);
    expect(names(await list(auth, 'sort=uploadedAt&order=asc'))).toEqual([
      'Report-2026.pdf',
      'b-notes.txt',
      'annual REPORT.txt',
      'c.txt',
    ]);
  });

  it('sorts by size, largest first by default, ties by id in the same direction', async () => {
    const { auth, ids } = await keyWith(FILES);
    const [big, small, tieA, tieB] = [ids[0], ids[1], ids[2], ids[3]];
    const ties = [tieA, tieB].sort();
    const desc = await list(auth, 'sort=size');
    expect(desc.files.map((file) => file.id)).toEqual([big, ...[...ties].reverse(), small]);
    const asc = await list(auth, 'sort=size&order=asc');
    expect(asc.files.map((file) => file.id)).toEqual([small, ...ties, big]);
  });

  it('sorts by name from A by default, ignoring the case of ASCII letters', async () => {
    const { auth } = await keyWith(FILES);
    const ascending = ['annual REPORT.txt', 'b-notes.txt', 'c.txt', 'Report-2026.pdf'];
    expect(names(await list(auth, 'sort=name'))).toEqual(ascending);
    expect(names(await list(auth, 'sort=name&order=desc'))).toEqual([...ascending].reverse());
  });

  it('pages through a sorted list without losing or repeating a file', async () => {
    const { auth } = await keyWith(FILES);
    const seen: string[] = [];
    for (let page = 1; page <= 4; page++) {
      const data = await list(auth, `sort=size&order=asc&limit=1&page=${page}`);
      expect(data.pagination).toMatchObject({ total: 4, totalPages: 4 });
      seen.push(...names(data));
    }
    expect(seen).toEqual(names(await list(auth, 'sort=size&order=asc')));
  });
});

describe('GET /api/v2/files?q=', () => {
  it('finds names containing the text, ignoring case, and counts only those', async () => {
    const { auth } = await keyWith(FILES);
    const found = await list(auth, 'q=report');
    // The expired "old report.txt" is gone for the search too.
    expect(names(found)).toEqual(['annual REPORT.txt', 'Report-2026.pdf']);
    expect(found.pagination).toMatchObject({ total: 2, totalPages: 1 });
    expect(names(await list(auth, 'q=REPORT&sort=size'))).toEqual(['Report-2026.pdf', 'annual REPORT.txt']);
  });

  it('pages through the matches, with their count as the total', async () => {
    const { auth } = await keyWith(FILES);
    const second = await list(auth, 'q=.txt&sort=name&limit=2&page=2');
    expect(names(second)).toEqual(['c.txt']);
    expect(second.pagination).toMatchObject({ page: 2, total: 3, totalPages: 2 });
  });

  it('takes the text literally: % and _ are not wildcards; no match is an empty page', async () => {
    const { auth } = await keyWith([
      { name: '100% done.txt', size: 1, minutesAgo: 2 },
      { name: 'a_b.txt', size: 1, minutesAgo: 1 },
      { name: 'axb.txt', size: 1, minutesAgo: 0 },
    ]);
    expect(names(await list(auth, `q=${encodeURIComponent('%')}`))).toEqual(['100% done.txt']);
    expect(names(await list(auth, 'q=a_b'))).toEqual(['a_b.txt']);
    const none = await list(auth, 'q=zzz');
    expect(none.files).toEqual([]);
    expect(none.pagination).toMatchObject({ total: 0, totalPages: 0 });
  });

  it("never shows another key's files", async () => {
    await keyWith(FILES);
    const { auth } = await keyWith([{ name: 'mine.txt', size: 1, minutesAgo: 0 }]);
    expect(names(await list(auth, 'q=report'))).toEqual([]);
  });
});

describe('GET /api/v2/files validation', () => {
  it.each([
    ['sort', 'sort=date'],
    ['sort', 'sort='],
    ['order', 'order=up'],
    ['order', 'order=ASC'],
    ['q', 'q='],
    ['q', `q=${'x'.repeat(256)}`],
    ['sort', 'sort=size&sort=name'],
    ['q', 'q=a&q=b'],
  ])('answers 400 VALIDATION_ERROR naming %s for %s', async (field, query) => {
    const { auth } = await createKey();
    const body = await expectError(await call(`/api/v2/files?${query}`, { headers: auth }), 400, 'VALIDATION_ERROR');
    expect(body.details?.map((detail) => detail.field)).toContain(field);
  });

  it('says when a parameter was given more than once', async () => {
    const { auth } = await createKey();
    const body = await expectError(
      await call('/api/v2/files?order=asc&order=desc', { headers: auth }),
      400,
      'VALIDATION_ERROR',
    );
    expect(body.details).toEqual([{ field: 'order', message: 'order was given more than once' }]);
  });

  it('accepts a 255-character search', async () => {
    const { auth } = await createKey();
    expect((await list(auth, `q=${'x'.repeat(255)}`)).files).toEqual([]);
  });

  it('leaves v1 as it was: q, sort and order are ignored there, like any unknown parameter', async () => {
    const { auth } = await keyWith(FILES);
    const v1 = await list(auth, 'q=report&sort=size&order=asc', 'v1');
    expect(names(v1)).toEqual(['c.txt', 'annual REPORT.txt', 'b-notes.txt', 'Report-2026.pdf']);
    expect(v1.pagination.total).toBe(4);
    expect((await call('/api/v1/files?sort=nonsense', { headers: auth })).status).toBe(200);
  });
});

describe('the cost of a list page', () => {
  const plan = async (query: Parameters<typeof listSql>[0]) => {
    const statement = env.DB.prepare(`EXPLAIN QUERY PLAN ${listSql(query)}`);
    const bound = query.q === undefined ? statement.bind('k', 'now', 10, 0) : statement.bind('k', 'now', 10, 0, 'x');
    return (await bound.all<{ detail: string }>()).results.map((row) => row.detail);
  };
  const INDEX = { uploadedAt: 'files_by_key_newest', size: 'files_by_key_size', name: 'files_by_key_name' } as const;

  it.each([
    ['uploadedAt', 'desc'],
    ['uploadedAt', 'asc'],
    ['size', 'desc'],
    ['size', 'asc'],
    ['name', 'asc'],
    ['name', 'desc'],
  ] as const)(
    'sort=%s order=%s finds its page in its own index alone, never scanning the table',
    async (sort, order) => {
      const steps = await plan({ sort, order });
      expect(steps).toContain(`SEARCH files USING COVERING INDEX ${INDEX[sort]} (account_id=?)`);
      // The total is read from key_stats, less the expired rows found through their own index.
      expect(steps).toContain('SEARCH key_stats USING INDEX sqlite_autoindex_key_stats_1 (account_id=?)');
      expect(steps.filter((step) => step.startsWith('SCAN files'))).toEqual([]);
    },
  );

  it.each(['uploadedAt', 'size', 'name'] as const)(
    'q with sort=%s reads only the key’s entries: its total from the name index, never a table scan',
    async (sort) => {
      const steps = await plan({ sort, order: 'desc', q: 'x' });
      expect(steps).toContain('SEARCH files USING COVERING INDEX files_by_key_name (account_id=?)');
      expect(steps.filter((step) => step.startsWith('SCAN files'))).toEqual([]);
    },
  );
});
