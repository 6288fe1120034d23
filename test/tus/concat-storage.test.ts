// Files stored in segments (tus final uploads) through the scheduled sweep: its drift step never
// takes a final's row (no object at its r2_key) or its segments (outside files/) for orphans,
// the expiry step deletes an expired final's segments, the digest backfill hashes a final whose
// digest was lost, and bulk delete frees segments like any file.
import { env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { backfillDigests } from '../../src/maintenance/digest-backfill';
import { sha256Hex } from '../helpers/digests';
import type { Success } from '../helpers/records';
import { json } from '../helpers/responses';
import { GRACE_MS, sweepUntilQuiet } from '../helpers/storage';
import { type Auth, binaryBytes, createFinal, joined, MIB, newKey, partialOf, usage } from '../helpers/tus';
import { call } from '../helpers/worker';

async function finalOf(auth: Auth, parts: Uint8Array[], meta?: Record<string, string>) {
  const partials = [];
  for (const part of parts) partials.push(await partialOf(auth, part));
  const response = await createFinal(
    auth,
    partials.map((partial) => partial.path),
    meta,
  );
  expect(response.status).toBe(201);
  return { id: response.headers.get('x-file-id') ?? '', partials, whole: joined(parts) };
}

const segmentObjects = async (accountId: string) =>
  (await env.FILES.list({ prefix: `segments/${accountId}/` })).objects.map((object) => object.key);

describe('files stored in segments and the sweep', () => {
  it('the drift step keeps a final and its segments, days later', async () => {
    const key = await newKey('segments-drift');
    const final = await finalOf(key.auth, [binaryBytes(9 * MIB, 1), binaryBytes(2000, 2)]);
    await sweepUntilQuiet(Date.now() + GRACE_MS + 3 * 86_400_000);
    expect(await segmentObjects(key.id)).toHaveLength(2);
    const response = await call(`/api/v2/files/${final.id}/download`, { headers: key.auth });
    expect(response.status).toBe(200);
    expect(await sha256Hex(await response.arrayBuffer())).toBe(await sha256Hex(final.whole));
  });

  it('deletes segment objects older than any upload that no file names, never a file’s', async () => {
    const key = await newKey('segments-stray');
    const final = await finalOf(key.auth, [binaryBytes(4000, 10), binaryBytes(3000, 11)]);
    const stray = `segments/${key.id}/stray-partial-object0`;
    await env.FILES.put(stray, binaryBytes(100, 12));
    const reports = await sweepUntilQuiet(Date.now() + 8 * 86_400_000);
    expect(reports.reduce((sum, report) => sum + report.straySegments, 0)).toBe(1);
    expect(await env.FILES.head(stray)).toBeNull();
    expect(await segmentObjects(key.id)).toHaveLength(2);
    const response = await call(`/api/v2/files/${final.id}/download`, { headers: key.auth });
    expect(await sha256Hex(await response.arrayBuffer())).toBe(await sha256Hex(final.whole));
  });

  it('the expiry step deletes an expired final and its segments', async () => {
    const key = await newKey('segments-expiry');
    const final = await finalOf(key.auth, [binaryBytes(1000, 3), binaryBytes(1000, 4)], { expiresIn: '60' });
    const record = await json<Success<{ expiresAt: string }>>(
      await call(`/api/v2/files/${final.id}`, { headers: key.auth }),
    );
    expect(record.data.expiresAt).not.toBeNull();
    await sweepUntilQuiet(Date.now() + 120_000);
    expect(await segmentObjects(key.id)).toEqual([]);
    expect((await call(`/api/v2/files/${final.id}`, { headers: key.auth })).status).toBe(404);
    const queued = await env.DB.prepare('SELECT COUNT(*) AS n FROM blob_deletions').first<{ n: number }>();
    expect(queued?.n).toBe(0);
  });

  it('the digest backfill hashes a final whose digest was lost', async () => {
    const key = await newKey('segments-backfill');
    const final = await finalOf(key.auth, [binaryBytes(3000, 5), binaryBytes(5000, 6)]);
    await env.DB.prepare('UPDATE files SET sha256 = NULL WHERE id = ?1').bind(final.id).run();
    await env.DB.prepare("DELETE FROM sweep_state WHERE name = 'digest_after'").run();
    const report = await backfillDigests({ db: env.DB, bucket: env.FILES });
    expect(report.hashed).toBeGreaterThanOrEqual(1);
    const record = await json<Success<{ sha256: string | null }>>(
      await call(`/api/v2/files/${final.id}`, { headers: key.auth }),
    );
    expect(record.data.sha256).toBe(await sha256Hex(final.whole));
  });

  it('bulk delete frees a final’s segments and quota beside ordinary files', async () => {
    const key = await newKey('segments-bulk');
    const final = await finalOf(key.auth, [binaryBytes(1500, 7), binaryBytes(2500, 8)]);
    const form = new FormData();
    form.append('file', new File([binaryBytes(777, 9)], 'plain.bin'));
    const plain = await call('/api/v2/upload', { method: 'POST', headers: key.auth, body: form });
    expect(plain.status).toBe(201);
    const plainId = (await json<Success<{ id: string }>>(plain)).data.id;
    expect(await usage(key.id)).toMatchObject({ usedBytes: 4000 + 777, files: 2 });
    const deleted = await call('/api/v2/files/bulk', {
      method: 'DELETE',
      headers: { ...key.auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ ids: [final.id, plainId] }),
    });
    expect(deleted.status).toBe(200);
    expect(await segmentObjects(key.id)).toEqual([]);
    expect((await env.FILES.list({ prefix: `files/${key.id}/` })).objects).toEqual([]);
    expect(await usage(key.id)).toEqual({ usedBytes: 0, files: 0, heldBytes: 0, heldFiles: 0 });
  });

  it('the share page previews a text final from its first segment on', async () => {
    const key = await newKey('segments-preview');
    const text = new TextEncoder();
    const final = await finalOf(key.auth, [text.encode('hello, '), text.encode('concatenated world')], {
      filename: 'greeting.txt',
      isPublic: 'true',
    });
    const record = await json<Success<{ shareUrl: string }>>(
      await call(`/api/v2/files/${final.id}`, { headers: key.auth }),
    );
    const page = await call(new URL(record.data.shareUrl).pathname);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('hello, concatenated world');
  });
});
