// The whole file's SHA-256 of a tus upload: its hash state is saved in the upload's object at the
// end of every PATCH and continued by the next one, on any isolate and after the object restarted.
import { env, evictDurableObject, runInDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import type { Sha256State } from '../../src/lib/sha256';
import { sha256Hex } from '../helpers/digests';
import { expectError } from '../helpers/responses';
import {
  binaryBytes,
  breakingBody,
  created,
  MIB,
  newKey,
  patch,
  patchOk,
  tailObjects,
  uploadStub,
  usage,
} from '../helpers/tus';
import { call } from '../helpers/worker';

type Stored = { offset: number; hash: Sha256State | null };
const storedState = (id: string) =>
  runInDurableObject(uploadStub(id), (_instance, state) => state.storage.kv.get<Stored>('upload'));

/** Restarts the upload's object, and proves it: a mark left on the old instance is gone. */
async function restart(id: string): Promise<void> {
  const stub = uploadStub(id);
  await runInDurableObject(stub, (instance) => {
    (instance as unknown as { mark?: number }).mark = 1;
  });
  await evictDurableObject(stub);
  const marked = await runInDurableObject(stub, (instance) => (instance as unknown as { mark?: number }).mark);
  expect(marked).toBeUndefined();
}

describe('tus uploads', () => {
  it('get the whole file’s SHA-256 across PATCHes, a broken-off body and restarts of the upload’s object', async () => {
    const { id: keyId, auth } = await newKey('tus-digest');
    const bytes = binaryBytes(19 * MIB + 12_345, 7);
    const { path, id } = await created(auth, bytes.length, { filename: 'video.bin' });
    const initial = await storedState(id);
    expect(initial?.hash?.length).toBe(0);

    // Unaligned PATCHes (each leaves a tail), with a restart of the object between them.
    let offset = await patchOk(auth, path, 0, bytes.slice(0, 3 * MIB + 7));
    expect((await storedState(id))?.hash?.length).toBe(offset);
    expect(await tailObjects(id)).toHaveLength(1);
    await restart(id);
    offset = await patchOk(auth, path, offset, bytes.slice(offset, 9 * MIB + 1));
    await restart(id);

    // A body that breaks off: what arrived is kept, and hashed exactly that far.
    const cut = await patch(auth, path, offset, breakingBody(bytes.slice(offset, 14 * MIB), 2 * MIB + 3), {}, {});
    expect(cut.status).toBeGreaterThanOrEqual(200);
    const afterCut = await storedState(id);
    expect(afterCut?.hash?.length).toBe(afterCut?.offset);
    offset = afterCut?.offset ?? 0;
    await restart(id);

    const last = await patch(auth, path, offset, bytes.slice(offset));
    expect(last.status).toBe(204);
    const fileId = last.headers.get('x-file-id') ?? '';
    const expected = await sha256Hex(bytes);

    const record = await call(`/api/v2/uploads/${id}`, { headers: auth });
    expect(record.status).toBe(200);
    expect(((await record.json()) as { data: { sha256: string } }).data.sha256).toBe(expected);
    const file = await call(`/api/v2/files/${fileId}`, { headers: auth });
    expect(((await file.json()) as { data: { sha256: string } }).data.sha256).toBe(expected);
    const object = await env.FILES.get(`files/${keyId}/${fileId}`);
    expect(await sha256Hex(await (object as R2ObjectBody).arrayBuffer())).toBe(expected);
    const download = await call(`/api/v2/files/${fileId}/download`, { method: 'HEAD', headers: auth });
    expect(download.headers.get('repr-digest')).toBe(
      `sha-256=:${btoa(String.fromCharCode(...new Uint8Array(await crypto.subtle.digest('SHA-256', bytes))))}:`,
    );
  });

  it('hash a small upload sent whole at creation', async () => {
    const { auth } = await newKey('tus-digest-small');
    const bytes = binaryBytes(1000, 3);
    const response = await call('/api/v2/uploads', {
      method: 'POST',
      headers: {
        ...auth,
        'Tus-Resumable': '1.0.0',
        'Upload-Length': String(bytes.length),
        'Upload-Metadata': `filename ${btoa('a.bin')}`,
        'Content-Type': 'application/offset+octet-stream',
      },
      body: bytes,
    });
    expect(response.status).toBe(201);
    const id = response.headers.get('x-file-id') ?? '';
    const file = await call(`/api/v2/files/${id}`, { headers: auth });
    expect(((await file.json()) as { data: { sha256: string } }).data.sha256).toBe(await sha256Hex(bytes));
  });

  it('refuse a file whose bytes do not match the sha256 in Upload-Metadata: 400 DIGEST_MISMATCH, nothing kept', async () => {
    const { id: keyId, auth } = await newKey('tus-digest-mismatch');
    const bytes = binaryBytes(9 * MIB + 5, 4);
    const wrong = await sha256Hex(binaryBytes(10, 1));
    const { path, id } = await created(auth, bytes.length, { filename: 'x.bin', sha256: wrong });
    const offset = await patchOk(auth, path, 0, bytes.slice(0, 8 * MIB + 1));
    const refused = await patch(auth, path, offset, bytes.slice(offset));
    await expectError(refused, 400, 'DIGEST_MISMATCH');
    expect((await env.FILES.list({ prefix: `files/${keyId}/` })).objects).toEqual([]);
    expect(await tailObjects(id)).toEqual([]);
    const rows = await env.DB.prepare('SELECT COUNT(*) AS n FROM files WHERE account_id = ?1')
      .bind(keyId)
      .first<{ n: number }>();
    expect(rows?.n).toBe(0);
    expect(await usage(keyId)).toMatchObject({ usedBytes: 0, files: 0, heldBytes: 0, heldFiles: 0 });
  });

  it('accept a matching sha256 in Upload-Metadata', async () => {
    const { auth } = await newKey('tus-digest-match');
    const bytes = binaryBytes(5000, 9);
    const { path } = await created(auth, bytes.length, { filename: 'y.bin', sha256: await sha256Hex(bytes) });
    const response = await patch(auth, path, 0, bytes);
    expect(response.status).toBe(204);
  });
});
