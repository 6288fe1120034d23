import { describe, expect, it } from 'vitest';
import { bulkDelete, bulkUpload, expectPerfValue, serverTiming } from '../helpers/files';
import type { BulkDeleteBody, BulkUploadBody, FileRecordV2 } from '../helpers/records';
import { json } from '../helpers/responses';
import { filesForm, HTML_AS_PNG, textFile } from '../helpers/upload';
import { call, createKey } from '../helpers/worker';

describe('v2 smoke', () => {
  it('bulk uploads, lists with _perf and Server-Timing, and bulk deletes', async () => {
    const { auth } = await createKey();
    const form = filesForm(
      [{ ...textFile('a.txt', 'aaa'), name: 'files' }, HTML_AS_PNG, { ...textFile('c.txt', 'ccc'), name: 'files[]' }],
      { isPublic: 'false' },
    );
    const uploaded = await bulkUpload(auth, form);
    const result = await json<BulkUploadBody>(uploaded);
    expect(uploaded.status).toBe(201);
    expect(result.data).toMatchObject({ total: 3, successful: 2, failed: 1 });
    expect(result.data.results[1]).toMatchObject({ success: false, filename: 'photo.png', code: 'INVALID_FILE_TYPE' });
    expectPerfValue(result);
    const spans = serverTiming(uploaded);
    for (const name of ['total', 'r2', 'd1']) expect(spans.has(name), name).toBe(true);
    const ids = result.data.results.flatMap((item) => (item.success ? [item.data.id] : []));
    expect(result.data.results.flatMap((item) => (item.success ? [item.data.isPublic] : []))).toEqual([false, false]);

    const list = await json<{ data: { files: FileRecordV2[] } }>(await call('/api/v2/files', { headers: auth }));
    expect(list.data.files.map((file) => file.id).sort()).toEqual([...ids].sort());
    expect(list.data.files.every((file) => !file.isPublic && file.downloadUrl.includes('/api/v2/files/'))).toBe(true);

    const removed = await bulkDelete(auth, { ids: [...ids, 'unknown', ids[0]] });
    const deleted = await json<BulkDeleteBody>(removed);
    expect(removed.status).toBe(200);
    expect(deleted.data).toMatchObject({ total: 3, deleted: 2, failed: 1 });
    expectPerfValue(deleted);

    expectPerfValue(await json(await call('/api/v2/files')));
    expect(await json(await call('/api/v1/files', { headers: auth }))).not.toHaveProperty('_perf');
  });
});
