// A file request made with `e2e: true` takes only age files: a plain upload is 422 E2E_REQUIRED on
// each of its upload paths (its form, its raw PUT, its tus) with nothing kept, and an age upload is
// kept as an encrypted file of the owner (header apart, payload stored, meta as sent). And the
// account's identity: GET before and after, the first PUT 201, the same again 200, another
// recipient 409 E2E_IDENTITY_EXISTS unless `replace`, the passphrase backup kept and restorable.
import { env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { setIdentity } from '../../src/e2e/identity';
import { openIdentityBackup, sealIdentityBackup } from '../../src/lib/age/index';
import { ageFile, newIdentity, openWith, sha256Hex } from '../helpers/age-files';
import { json } from '../helpers/links';
import { makeRequest, newOwner, receivedRows } from '../helpers/requests';
import { expectAccountSettled } from '../helpers/storage';
import { metadata, TUS } from '../helpers/tus';
import { form } from '../helpers/upload';
import { call } from '../helpers/worker';

// biome-ignore lint/suspicious/noExplicitAny: records are read field by field
type Json = any;

type Send = (request: { uploadUrl: string; tusUrl: string }, bytes: Uint8Array, age: boolean) => Promise<Response>;

/** A request's three ways in, sending `bytes` as an age file (with its meta) or as a plain file. */
const WAYS: Record<string, Send> = {
  form: (request, bytes, age) =>
    call(request.uploadUrl, {
      method: 'POST',
      body: form([{ filename: 'f.age', content: bytes }], age ? { encryption: 'age' } : {}),
    }),
  'raw PUT': (request, bytes, age) =>
    call(`${request.uploadUrl}/f.age${age ? '?encryption=age' : ''}`, { method: 'PUT', body: bytes }),
  tus: async (request, bytes, age) => {
    const created = await call(request.tusUrl, {
      method: 'POST',
      headers: {
        ...TUS,
        'Upload-Length': String(bytes.length),
        'Upload-Metadata': metadata(age ? { filename: 'f.age', encryption: 'age' } : { filename: 'f.bin' }),
      },
    });
    if (created.status !== 201) return created;
    const location = new URL(created.headers.get('location') ?? '').pathname;
    return call(location, {
      method: 'PATCH',
      headers: { ...TUS, 'Content-Type': 'application/offset+octet-stream', 'Upload-Offset': '0' },
      body: bytes,
    });
  },
};

describe('a file request with e2e: true', () => {
  for (const [way, send] of Object.entries(WAYS)) {
    it(`${way}: a plain upload is 422 E2E_REQUIRED and nothing is kept; an age file is kept encrypted`, async () => {
      const owner = await newOwner();
      const request = await makeRequest(owner.auth, { e2e: true, maxFiles: 10 });
      expect(request).toMatchObject({ e2e: true });
      const sender = await newIdentity();
      const file = await ageFile(sender, 5000, 41);

      // Plain bytes, and even an age file not declared as one: both refused.
      for (const bytes of [new TextEncoder().encode('a plain note'), file.bytes]) {
        const refused = await send(request, bytes, false);
        const body: Json = await refused.json();
        expect(refused.status, JSON.stringify(body)).toBe(422);
        expect(body.code).toBe('E2E_REQUIRED');
        expect(body.details).toEqual([{ field: 'encryption', message: expect.any(String) }]);
      }
      expect(await receivedRows(request.id)).toEqual([]);
      await expectAccountSettled(owner.id, 0);

      const kept = await send(request, file.bytes, true);
      expect(kept.status).toBeLessThan(300);
      const rows = await receivedRows(request.id);
      expect(rows).toHaveLength(1);
      const id = (rows[0] as { id: string }).id;
      const record: Json = await (await call(`/api/v2/files/${id}`, { headers: owner.auth })).json();
      expect(record.data).toMatchObject({
        encryption: 'age',
        size: file.payload.length,
        sha256: await sha256Hex(file.payload),
        e2eHeader: file.header,
      });
      const download = await call(`/api/v2/files/${id}/download`, { headers: owner.auth });
      expect(await openWith(new Uint8Array(await download.arrayBuffer()), sender.identity)).toEqual(file.plaintext);
      await expectAccountSettled(owner.id, file.payload.length);
    });
  }

  it('a plain request takes an age file too (it is the sender’s choice there)', async () => {
    const owner = await newOwner();
    const request = await makeRequest(owner.auth);
    const file = await ageFile(await newIdentity(), 100, 42);
    const response = await WAYS['raw PUT']?.(request, file.bytes, true);
    expect(response?.status).toBe(201);
    expect(await receivedRows(request.id)).toHaveLength(1);
  });
});

describe('the account’s identity', () => {
  it('none, then the first (201), the same again (200), another refused (409) unless replace', async () => {
    const owner = await newOwner();
    const path = '/api/v2/e2e/identity';
    const empty: Json = await (await call(path, { headers: owner.auth })).json();
    expect(empty.data).toEqual({ recipient: null, backup: null, createdAt: null, updatedAt: null });

    const first = await newIdentity();
    const backup = await sealIdentityBackup(first.identity, 'correct horse battery staple', 10);
    const created = await call(path, json({ recipient: first.recipient, backup }, owner.auth, 'PUT'));
    expect(created.status).toBe(201);
    const again = await call(path, json({ recipient: first.recipient }, owner.auth, 'PUT'));
    expect(again.status).toBe(200);
    // The backup stays (absent keeps it) and a second device opens it with the passphrase.
    const read: Json = await (await call(path, { headers: owner.auth })).json();
    expect(read.data).toMatchObject({ recipient: first.recipient, backup });
    expect(await openIdentityBackup(read.data.backup, 'correct horse battery staple')).toBe(first.identity);

    const second = await newIdentity();
    const refused = await call(path, json({ recipient: second.recipient }, owner.auth, 'PUT'));
    expect(refused.status).toBe(409);
    expect(((await refused.json()) as Json).code).toBe('E2E_IDENTITY_EXISTS');
    expect(((await (await call(path, { headers: owner.auth })).json()) as Json).data.recipient).toBe(first.recipient);
    const replaced = await call(path, json({ recipient: second.recipient, replace: true }, owner.auth, 'PUT'));
    expect(replaced.status).toBe(200);
    const now: Json = await (await call(path, { headers: owner.auth })).json();
    // The old backup was the old identity's: it does not stay with the new recipient.
    expect(now.data).toMatchObject({ recipient: second.recipient, backup: null });
  });

  it('a PUT in the same millisecond as the first is 200, not a second 201', async () => {
    // Whether a PUT made the identity is read, not guessed from created_at = updated_at = now.
    const accountId = `acc_same_ms_${crypto.randomUUID()}`;
    const { recipient } = await newIdentity();
    const at = Date.parse('2026-11-29T06:00:00.000Z');
    expect((await setIdentity(env.DB, accountId, { recipient }, at)).created).toBe(true);
    const again = await setIdentity(env.DB, accountId, { recipient }, at);
    expect(again.created).toBe(false);
    expect(again.identity).toMatchObject({ recipient, createdAt: '2026-11-29T06:00:00.000Z' });
  });

  it('a recipient that is not age1… is 400; a backup that is not a passphrase age file is 422 E2E_INVALID', async () => {
    const owner = await newOwner();
    const path = '/api/v2/e2e/identity';
    const identity = await newIdentity();
    const bad = await call(path, json({ recipient: 'age1notbech32' }, owner.auth, 'PUT'));
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as Json).details[0].field).toBe('recipient');
    // Armored, but to a recipient (X25519), not a passphrase.
    const file = await ageFile(identity, 10, 43);
    const base64 = btoa(String.fromCharCode(...file.bytes));
    const armored = `-----BEGIN AGE ENCRYPTED FILE-----\n${base64.match(/.{1,64}/g)?.join('\n')}\n-----END AGE ENCRYPTED FILE-----\n`;
    for (const backup of ['plain words', armored]) {
      const refused = await call(path, json({ recipient: identity.recipient, backup }, owner.auth, 'PUT'));
      const body: Json = await refused.json();
      expect(refused.status, JSON.stringify(body)).toBe(422);
      expect(body.code).toBe('E2E_INVALID');
      expect(body.details[0].field).toBe('backup');
    }
    expect(((await (await call(path, { headers: owner.auth })).json()) as Json).data.recipient).toBeNull();
  });
});
