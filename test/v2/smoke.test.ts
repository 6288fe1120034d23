import { describe, expect, it } from 'vitest';
import { call, createKey, form } from '../helpers';

describe('v2 smoke', () => {
  it('bulk uploads, reads with _perf and Server-Timing, and bulk deletes', async () => {
    const { auth } = await createKey();
    const body = form(
      [
        { name: 'files', filename: 'a.txt', type: 'text/plain', content: 'aaa' },
        { name: 'files', filename: 'evil.png', type: 'image/png', content: '<html><script>x</script></html>' },
        { name: 'files[]', filename: 'c.txt', type: 'text/plain', content: 'ccc' },
      ],
      { isPublic: 'false' },
    );
    const response = await call('/api/v2/upload/bulk', { method: 'POST', headers: auth, body });
    const json = (await response.json()) as any;
    expect(response.status).toBe(201);
    expect(json.data).toMatchObject({ total: 3, successful: 2, failed: 1 });
    expect(json.data.results[1]).toMatchObject({ success: false, filename: 'evil.png', code: 'INVALID_FILE_TYPE' });
    expect(json.data.results[0].data.isPublic).toBe(false);
    expect(Number.isInteger(json._perf)).toBe(true);
    expect(response.headers.get('server-timing')).toMatch(/total;dur=/);
    expect(response.headers.get('server-timing')).toMatch(/r2;dur=/);
    expect(response.headers.get('server-timing')).toMatch(/d1;dur=/);

    const list = await call('/api/v2/files', { headers: auth });
    const listed = (await list.json()) as any;
    expect(listed.data.files).toHaveLength(2);
    expect(listed.data.files[0].isPublic).toBe(false);
    expect(listed.data.files[0].downloadUrl).toContain('/api/v2/files/');

    const ids = [json.data.results[0].data.id, json.data.results[2].data.id, 'unknown', json.data.results[0].data.id];
    const removed = await call('/api/v2/files/bulk', {
      method: 'DELETE',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ ids }),
    });
    const result = (await removed.json()) as any;
    expect(removed.status).toBe(200);
    expect(result.data).toMatchObject({ total: 3, deleted: 2, failed: 1 });
    expect(Number.isInteger(result._perf)).toBe(true);

    const unauthorized = await call('/api/v2/files');
    expect(((await unauthorized.json()) as any)._perf).toBeTypeOf('number');
    const v1 = await call('/api/v1/files', { headers: auth });
    expect(((await v1.json()) as any)._perf).toBeUndefined();
  });
});
