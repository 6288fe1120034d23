// Key rotation (a second key for the account, the first revoked) leaves digests working: files
// stored with the old key keep their Repr-Digest for the account and the public, the new key's
// raw and tus uploads are hashed and checked, and a tus upload begun with the old key finishes
// under the new one with the whole file's digest.
import { describe, expect, it } from 'vitest';
import { type Auth, created, putRaw, sha256Field, sha256Hex, storedBytes, textOf } from '../helpers/digests';
import { expectError } from '../helpers/responses';
import { binaryBytes, patchOk, created as tusCreated } from '../helpers/tus';
import { call, createKey } from '../helpers/worker';

async function rotate(auth: Auth): Promise<Auth> {
  const response = await call('/api/v2/keys', {
    method: 'POST',
    headers: { ...auth, 'Content-Type': 'application/json' },
    body: JSON.stringify({ name: 'rotated' }),
  });
  expect(response.status).toBe(201);
  const { data } = (await response.json()) as { data: { key: string } };
  return { Authorization: `Bearer ${data.key}` };
}

/** `withAuth` revokes the key `revoked` (id `keyId`), which is refused from then on. */
async function revoke(withAuth: Auth, keyId: string, revoked: Auth): Promise<void> {
  const response = await call(`/api/v2/keys/${keyId}`, { method: 'DELETE', headers: withAuth });
  expect(response.status).toBe(200);
  expect((await call('/api/v2/files', { headers: revoked })).status).toBe(401);
}

describe('digests across a key rotation', () => {
  it('keep serving, storing and checking SHA-256 for the account and the public', async () => {
    const { id: accountId, auth: first } = await createKey('digest-rotation');
    const oldBytes = textOf(4000, 3);
    const old = await created(await putRaw(first, 'before.txt', oldBytes));
    const tusBytes = binaryBytes(6 * 1024 * 1024 + 99, 5);
    const upload = await tusCreated(first, tusBytes.length, { filename: 'half.bin' });
    const half = await patchOk(first, upload.path, 0, tusBytes.slice(0, 3 * 1024 * 1024 + 1));

    const second = await rotate(first);
    await revoke(second, accountId, first);

    // The old file, for the account (new key) and the public share link.
    const expected = await sha256Field(oldBytes);
    const download = await call(`/api/v2/files/${old.id}/download`, { headers: second });
    expect(download.status).toBe(200);
    expect(download.headers.get('repr-digest')).toBe(expected);
    await download.arrayBuffer();
    const share = `/share/${new URL(old.shareUrl).pathname.split('/').pop()}/download`;
    const shared = await call(share, { method: 'HEAD' });
    expect(shared.status).toBe(200);
    expect(shared.headers.get('repr-digest')).toBe(expected);

    // A raw upload with the new key: hashed, checked against Repr-Digest, kept in the account.
    const newBytes = textOf(7000, 4);
    const stored = await created(
      await putRaw(second, 'after.txt', newBytes, { 'Repr-Digest': await sha256Field(newBytes) }),
    );
    expect(stored.sha256).toBe(await sha256Hex(newBytes));
    expect(await storedBytes(accountId, stored.id)).toEqual(newBytes);
    const refused = await putRaw(second, 'wrong.txt', newBytes, { 'Repr-Digest': expected });
    await expectError(refused, 400, 'DIGEST_MISMATCH');

    // The tus upload begun with the revoked key finishes under the new one, whole-file digest.
    const offset = await patchOk(second, upload.path, half, tusBytes.slice(half));
    expect(offset).toBe(tusBytes.length);
    const record = await call(`/api/v2/files/${upload.id}`, { headers: second });
    expect(record.status).toBe(200);
    const { data } = (await record.json()) as { data: { sha256: string } };
    expect(data.sha256).toBe(await sha256Hex(tusBytes));
  });
});
