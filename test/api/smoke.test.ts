import { describe, expect, it } from 'vitest';
import type { Success } from '../helpers/records';
import { api, readJson, VERSIONS } from '../helpers/responses';
import { upload } from '../helpers/upload';
import { call, createKey } from '../helpers/worker';

describe.each(VERSIONS)('smoke (%s)', (version) => {
  it('uploads, lists, gets, downloads and deletes a file', async () => {
    const { auth } = await createKey();
    const { response, body } = await upload(version, auth, {});
    expect(response.status).toBe(201);
    expect(body.success).toBe(true);
    const id = body.data.id;
    const list = await call(api(version, '/files'), { headers: auth });
    expect(list.status).toBe(200);
    const listed = await readJson<Success<{ files: { id: string }[] }>>(version, list);
    expect(listed.data.files[0]?.id).toBe(id);
    const download = await call(api(version, `/files/${id}/download`), { headers: auth });
    expect(download.status).toBe(200);
    expect(await download.text()).toBe('hello world');
    const removed = await call(api(version, `/files/${id}`), { method: 'DELETE', headers: auth });
    expect(removed.status).toBe(200);
    await readJson(version, removed);
    const gone = await call(api(version, `/files/${id}`), { headers: auth });
    expect(gone.status).toBe(404);
    await readJson(version, gone);
  });
});
