// The operator's review of reports (GET /admin/reports, POST /admin/reports/{id}/resolve): open
// or resolved reports newest first, a page at a time, each with its target and the distinct
// visitors who reported it; a decision applied to the target resolves every open report of it.
// Reports are stored here as POST /api/v2/reports will store them (insertReport).
import { env } from 'cloudflare:test';
import { beforeAll, describe, expect, it } from 'vitest';
import { randomBase64Url } from '../../src/lib/crypto';
import { insertReport, type ReportReason, type ReportTargetType } from '../../src/storage/reports-repo';
import { json, makeCollection } from '../collections/collection-helpers';
import { makeLink, pathOf } from '../helpers/links';
import { ADMIN, act, adminPost, expect451 } from '../helpers/moderation';
import { makeRequest } from '../helpers/requests';
import { expectError } from '../helpers/responses';
import { uploadOk } from '../helpers/upload';
import { call, createKey } from '../helpers/worker';

type Report = {
  id: string;
  status: 'open' | 'resolved';
  target: { type: string; id: string; accountId: string | null } | null;
  reason: string;
  reporters: number;
  createdAt: string;
  resolution: { action: string; statement: string } | null;
};

let at = Date.now() - 3_600_000;

/** Stores a report, one millisecond after the one before (newest first is the reverse of this order). */
async function report(
  target: { type: ReportTargetType; id: string; accountId: string } | null,
  visitor: string,
  reason: ReportReason = 'phishing',
): Promise<string> {
  const id = `rpt_${randomBase64Url(16)}`;
  await insertReport(env.DB, {
    id,
    target_type: target?.type ?? null,
    target_id: target?.id ?? null,
    target_account_id: target?.accountId ?? null,
    reason,
    details: `details of ${id}`,
    contact: null,
    visitor,
    link_with_key: null,
    created_at: new Date(at++).toISOString(),
  });
  return id;
}

async function review(query = ''): Promise<{ reports: Report[]; nextCursor: string | null }> {
  const response = await call(`/admin/reports${query}`, { headers: ADMIN });
  const text = await response.text();
  expect(response.status, text).toBe(200);
  return (JSON.parse(text) as { data: { reports: Report[]; nextCursor: string | null } }).data;
}

let owner: Awaited<ReturnType<typeof createKey>>;
let file: { id: string; shareUrl: string };

beforeAll(async () => {
  owner = await createKey('reported owner');
  file = await uploadOk('v2', owner.auth, { filename: 'reported.txt', content: 'reported three times' });
});

describe('the review of reports', () => {
  it('lists open reports newest first, a page at a time, with their targets and distinct reporters', async () => {
    const target = { type: 'file' as const, id: file.id, accountId: owner.id };
    const ids = [
      await report(target, 'visitor-a'),
      await report(target, 'visitor-b', 'malware'),
      await report(target, 'visitor-a'),
      await report(null, 'visitor-c', 'other'),
    ];
    const first = await review('?limit=3');
    expect(first.reports.map((r) => r.id)).toEqual([ids[3], ids[2], ids[1]]);
    expect(first.reports[0]).toMatchObject({ target: null, reporters: 1, reason: 'other', status: 'open' });
    expect(first.reports[1]).toMatchObject({ target, reporters: 2, resolution: null });
    const second = await review(`?limit=3&cursor=${encodeURIComponent(first.nextCursor ?? '')}`);
    expect(second.reports.map((r) => r.id)).toContain(ids[0]);
    expect(second.nextCursor).toBeNull();
    await expectError(await call('/admin/reports?cursor=nope', { headers: ADMIN }), 400, 'VALIDATION_ERROR');
    await expectError(await call('/admin/reports?status=all', { headers: ADMIN }), 400, 'VALIDATION_ERROR');
    await expectError(await call('/admin/reports'), 401, 'UNAUTHORIZED');

    // One decision resolves every open report of the file; the one that named nothing stays open.
    const statement = 'Quarantined: phishing confirmed.';
    const resolved = await act<{ report: Report; resolved: string[] }>(`/reports/${ids[1]}/resolve`, {
      action: 'quarantine',
      statement,
    });
    expect(resolved.report).toMatchObject({ status: 'resolved', resolution: { action: 'quarantine', statement } });
    expect(resolved.resolved.sort()).toEqual([ids[0], ids[1], ids[2]].sort());
    await expect451(await call(`${new URL(file.shareUrl).pathname}/download`), statement);
    expect((await review()).reports.map((r) => r.id)).toEqual([ids[3]]);
    const done = await review('?status=resolved');
    expect(done.reports.map((r) => r.id)).toEqual([ids[2], ids[1], ids[0]]);
    await expectError(
      await adminPost(`/reports/${ids[0]}/resolve`, { action: 'dismiss', statement: 'again' }),
      409,
      'MODERATION_CONFLICT',
    );
    // A report that named nothing can only be dismissed.
    await expectError(
      await adminPost(`/reports/${ids[3]}/resolve`, { action: 'suspend', statement: 'who?' }),
      400,
      'VALIDATION_ERROR',
    );
    expect(await act(`/reports/${ids[3]}/resolve`, { action: 'dismiss', statement: 'Nothing there.' })).toMatchObject({
      report: { resolution: { action: 'dismiss' } },
      resolved: [ids[3]],
    });
    await expectError(
      await adminPost('/reports/rpt_none/resolve', { action: 'dismiss', statement: 'x' }),
      404,
      'NOT_FOUND',
    );
    await expectError(
      await adminPost(`/reports/${ids[3]}/resolve`, { action: 'delete', statement: 'x' }),
      400,
      'VALIDATION_ERROR',
    );
  });

  it('applies each action to its kind of target: a link disabled, a collection’s links disabled, an account suspended', async () => {
    const key = await createKey('targets');
    const shared = await uploadOk('v2', key.auth, { filename: 'linked.txt', content: 'linked' });
    const link = await makeLink(key.auth, shared.id);
    const collection = await makeCollection(key.auth, { name: 'Reported', fileIds: [shared.id] });
    const made = await call(`/api/v2/collections/${collection.id}/links`, json({}, key.auth));
    const collectionLink = new URL(((await made.json()) as { data: { url: string } }).data.url).pathname;
    const request = await makeRequest(key.auth);

    const onLink = await report({ type: 'link', id: link.id, accountId: key.id }, 'v1');
    await act(`/reports/${onLink}/resolve`, { action: 'quarantine', statement: 'Link disabled.' });
    await expect451(await call(`${pathOf(link)}/download`), 'Link disabled.');
    expect((await call(`/api/v2/files/${shared.id}/download`, { headers: key.auth })).status).toBe(200);

    const onCollection = await report({ type: 'collection', id: collection.id, accountId: key.id }, 'v2');
    await expectError(
      await adminPost(`/reports/${onCollection}/resolve`, { action: 'remove', statement: 'x' }),
      400,
      'VALIDATION_ERROR',
    );
    await act(`/reports/${onCollection}/resolve`, { action: 'quarantine', statement: 'Collection disabled.' });
    await expect451(await call(`${collectionLink}/archive.zip`), 'Collection disabled.');

    const onRequest = await report({ type: 'request', id: request.id, accountId: key.id }, 'v3');
    await expectError(
      await adminPost(`/reports/${onRequest}/resolve`, { action: 'quarantine', statement: 'x' }),
      400,
      'VALIDATION_ERROR',
    );
    await act(`/reports/${onRequest}/resolve`, { action: 'suspend', statement: 'Account suspended.' });
    await expect451(await call(request.uploadUrl.replace(/\/upload$/, '')), 'Account suspended.');
    await expectError(await call('/api/v2/files', { headers: key.auth }), 403, 'ACCOUNT_SUSPENDED');
  });
});
