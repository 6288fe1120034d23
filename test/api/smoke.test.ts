import { describe, expect, it } from 'vitest';
import { call, createKey, upload } from '../helpers';

describe('smoke', () => {
  it('uploads, lists, gets, downloads and deletes a file', async () => {
    const { auth } = await createKey();
    const { response, body } = await upload(auth);
    expect(response.status).toBe(201);
    expect(body.success).toBe(true);
    const id = body.data.id;
    const list = await call('/api/v1/files', { headers: auth });
    expect(list.status).toBe(200);
    const listed = (await list.json()) as any;
    expect(listed.data.files[0].id).toBe(id);
    const download = await call(`/api/v1/files/${id}/download`, { headers: auth });
    expect(download.status).toBe(200);
    expect(await download.text()).toBe('hello world');
    const removed = await call(`/api/v1/files/${id}`, { method: 'DELETE', headers: auth });
    expect(removed.status).toBe(200);
    const gone = await call(`/api/v1/files/${id}`, { headers: auth });
    expect(gone.status).toBe(404);
  });
});
