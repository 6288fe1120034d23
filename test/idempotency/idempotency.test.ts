// Idempotency-Key on POST, PATCH and DELETE under /api/v2: a retry gets the first answer again
// and stores nothing twice; another request with the key is 422; a retry while the first runs
// is 409; keys are per account and expire; 5xx answers are not kept; a request without the
// header never reaches the store.
import { createExecutionContext, env, waitOnExecutionContext } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { entryNameOf, fingerprintOf } from '../../src/idempotency/idempotency-store-client';
import { IDEMPOTENCY_TTL_MS } from '../../src/idempotency/idempotency-store-contract';
import worker from '../../src/index';
import { expectError } from '../helpers/responses';
import {
  blobKeys,
  eventually,
  failingPutBucket,
  gatedBody,
  newKey,
  rowIds,
  textBytes,
  usage,
} from '../helpers/storage';
import { filePartHeaders, MULTIPART, rawMultipart } from '../helpers/upload';
import { call, countingNamespace, ORIGIN, someAddress } from '../helpers/worker';

type Auth = Record<string, string>;

const fileBody = (size = 1_000, name = 'report.txt') =>
  rawMultipart([{ headers: filePartHeaders(name, 'text/plain'), content: textBytes(size, name) }]);

function uploadWith(auth: Auth, idem: string | undefined, body = fileBody(), overrides = {}) {
  const headers: Record<string, string> = { ...MULTIPART, ...auth, 'Content-Length': String(body.length) };
  if (idem !== undefined) headers['Idempotency-Key'] = idem;
  return call('/api/v2/upload', { method: 'POST', headers, body }, overrides);
}

function jsonCall(method: string, path: string, auth: Auth, idem: string, body?: unknown) {
  const headers: Record<string, string> = { ...auth, 'Idempotency-Key': idem };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  return call(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
}

/** Status, body text and Location of an answer, for comparing a replay with the first. */
async function answerOf(response: Response) {
  return { status: response.status, location: response.headers.get('location'), body: await response.text() };
}

describe('Idempotency-Key on an upload', () => {
  it('replays the first answer (status, body, headers) and stores one file, counted once', async () => {
    const key = await newKey('replay');
    const first = await uploadWith(key.auth, 'upload-1');
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotency-replayed')).toBeNull();
    const firstAnswer = await answerOf(first);

    const again = await uploadWith(key.auth, 'upload-1');
    expect(again.headers.get('idempotency-replayed')).toBe('true');
    expect(again.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await answerOf(again)).toEqual(firstAnswer);

    expect(await rowIds(key.id)).toHaveLength(1);
    expect(await blobKeys(key.id)).toHaveLength(1);
    expect((await usage(key.id)).files).toBe(1);
    expect((await usage(key.id)).usedBytes).toBe(1_000);
    // The storage held for the replay's announced length was given back at once.
    expect(await usage(key.id)).toMatchObject({ heldBytes: 0, heldFiles: 0 });
  });

  it('covers the raw-body PUT /upload/{filename}: a replay gets the first 201, one file stored; another name is 422', async () => {
    const key = await newKey('raw-put');
    const bytes = textBytes(1_000, 'raw.txt');
    const put = (idem: string, body = bytes) =>
      call('/api/v2/upload/raw.txt', {
        method: 'PUT',
        headers: {
          ...key.auth,
          'Content-Type': 'text/plain',
          'Content-Length': String(body.length),
          'Idempotency-Key': idem,
        },
        body,
      });
    const first = await put('raw-1');
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotency-replayed')).toBeNull();
    const firstAnswer = await answerOf(first);

    const again = await put('raw-1');
    expect(again.headers.get('idempotency-replayed')).toBe('true');
    expect(await answerOf(again)).toEqual(firstAnswer);
    expect(await rowIds(key.id)).toHaveLength(1);
    expect(await blobKeys(key.id)).toHaveLength(1);
    expect(await usage(key.id)).toMatchObject({ files: 1, usedBytes: 1_000, heldBytes: 0, heldFiles: 0 });

    // An upload's body is not fingerprinted (it is never buffered); its path, query and type are.
    const other = await call('/api/v2/upload/other.txt', {
      method: 'PUT',
      headers: { ...key.auth, 'Content-Type': 'text/plain', 'Content-Length': '1000', 'Idempotency-Key': 'raw-1' },
      body: bytes,
    });
    await expectError(other, 422, 'IDEMPOTENCY_KEY_REUSED');
    expect(await rowIds(key.id)).toHaveLength(1);
  });

  it('replays a multipart retry with the same bytes under another boundary (curl picks one per send)', async () => {
    const key = await newKey('boundaries');
    const part = { headers: filePartHeaders('same.txt', 'text/plain'), content: textBytes(1_500, 'same') };
    const send = (boundary: string) => {
      const body = rawMultipart([part], { boundary });
      const headers = {
        ...key.auth,
        'Content-Type': `multipart/form-data; boundary=${boundary}`,
        'Idempotency-Key': 'boundary-blind',
      };
      return call('/api/v2/upload', { method: 'POST', headers, body });
    };
    const first = await send('------------------------a1b2c3d4e5f60718');
    expect(first.status).toBe(201);
    const again = await send('------------------------ffeeddccbbaa9988');
    expect(again.headers.get('idempotency-replayed')).toBe('true');
    expect(await again.text()).toBe(await first.text());
    expect(await rowIds(key.id)).toHaveLength(1);
  });

  it('answers 422 to other bytes of the same length under the key, and stores nothing of them', async () => {
    const key = await newKey('same length');
    const put = (content: string) =>
      call('/api/v2/upload/note.txt', {
        method: 'PUT',
        headers: { ...key.auth, 'Content-Type': 'text/plain', 'Idempotency-Key': 'same-length' },
        body: content,
      });
    const first = await put('aaaaaaaaaa');
    expect(first.status).toBe(201);
    await expectError(await put('bbbbbbbbbb'), 422, 'IDEMPOTENCY_KEY_REUSED');
    const multipart = (content: string) =>
      uploadWith(
        key.auth,
        'same-length-form',
        rawMultipart([{ headers: filePartHeaders('f.txt', 'text/plain'), content }]),
      );
    expect((await multipart('xxxxxxxxxx')).status).toBe(201);
    await expectError(await multipart('yyyyyyyyyy'), 422, 'IDEMPOTENCY_KEY_REUSED');
    expect(await rowIds(key.id)).toHaveLength(2);
    expect(await blobKeys(key.id)).toHaveLength(2);
    expect((await usage(key.id)).files).toBe(2);
    // The same bytes again still get the first answer.
    expect((await put('aaaaaaaaaa')).headers.get('idempotency-replayed')).toBe('true');
  });

  it('takes the quoted form and the bare form as one key', async () => {
    const key = await newKey('forms');
    const first = await uploadWith(key.auth, '"8e03978e-40d5-43e8-bc93-6894a57f9324"');
    expect(first.status).toBe(201);
    const body = await first.text();
    const bare = await uploadWith(key.auth, '8e03978e-40d5-43e8-bc93-6894a57f9324');
    expect(bare.headers.get('idempotency-replayed')).toBe('true');
    expect(await bare.text()).toBe(body);
    expect(await rowIds(key.id)).toHaveLength(1);
  });

  it('refuses a malformed key with 400 VALIDATION_ERROR and stores nothing', async () => {
    const key = await newKey('malformed');
    for (const bad of ['', '""', 'a'.repeat(256), 'has space', 'tab\there', '"unterminated']) {
      const response = await uploadWith(key.auth, bad);
      await expectError(response, 400, 'VALIDATION_ERROR');
    }
    expect(await rowIds(key.id)).toEqual([]);
    expect((await uploadWith(key.auth, 'a'.repeat(255))).status).toBe(201);
  });

  it('answers 422 IDEMPOTENCY_KEY_REUSED for another request with the same key', async () => {
    const key = await newKey('reuse');
    expect((await uploadWith(key.auth, 'reused')).status).toBe(201);
    // Another file (another length), another path, another method: each a different request.
    await expectError(await uploadWith(key.auth, 'reused', fileBody(2_000)), 422, 'IDEMPOTENCY_KEY_REUSED');
    await expectError(
      await call('/api/v2/files/bulk', {
        method: 'DELETE',
        headers: { ...key.auth, 'Content-Type': 'application/json', 'Idempotency-Key': 'reused' },
        body: JSON.stringify({ ids: [] }),
      }),
      422,
      'IDEMPOTENCY_KEY_REUSED',
    );
    expect(await rowIds(key.id)).toHaveLength(1);
  });

  it('answers 409 IDEMPOTENCY_IN_PROGRESS while the first is still running, then replays it', async () => {
    const key = await newKey('in progress');
    const body = fileBody(3_000);
    const { stream, open } = gatedBody(body, 'lorem');
    const headers = { ...MULTIPART, ...key.auth, 'Idempotency-Key': 'slow-one' };
    const pending = call('/api/v2/upload', { method: 'POST', headers, body: stream });
    // The first holds the key while its body is held open.
    await eventually(async () => {
      const retry = await call('/api/v2/upload', { method: 'POST', headers, body: streamOfBytes(body) });
      if (retry.status !== 409) return false;
      await expectError(retry, 409, 'IDEMPOTENCY_IN_PROGRESS');
      return true;
    });
    open();
    const first = await pending;
    expect(first.status).toBe(201);
    const firstBody = await first.text();
    const replay = await call('/api/v2/upload', { method: 'POST', headers, body: streamOfBytes(body) });
    expect(replay.status).toBe(201);
    expect(await replay.text()).toBe(firstBody);
    expect(await rowIds(key.id)).toHaveLength(1);
    expect(await blobKeys(key.id)).toHaveLength(1);
  });

  it('keeps keys per account: one value in two accounts names two requests', async () => {
    const one = await newKey('account one');
    const two = await newKey('account two');
    const a = await uploadWith(one.auth, 'shared-value');
    const b = await uploadWith(two.auth, 'shared-value');
    expect(a.status).toBe(201);
    expect(b.status).toBe(201);
    expect(b.headers.get('idempotency-replayed')).toBeNull();
    expect(await rowIds(one.id)).toHaveLength(1);
    expect(await rowIds(two.id)).toHaveLength(1);
  });

  it('stores one file when the answer was lost after the commit, and replays it on the retry', async () => {
    const key = await newKey('lost answer');
    const body = fileBody(2_000);
    const controller = new AbortController();
    const request = new Request(`${ORIGIN}/api/v2/upload`, {
      method: 'POST',
      headers: {
        ...MULTIPART,
        ...key.auth,
        'Content-Length': String(body.length),
        'Idempotency-Key': 'lost',
        'CF-Connecting-IP': someAddress(),
      },
      body,
      signal: controller.signal,
    });
    const ctx = createExecutionContext();
    const pending = worker.fetch(request, env, ctx);
    // The file is committed; the client goes away before reading the answer.
    await eventually(async () => (await rowIds(key.id)).length === 1);
    controller.abort();
    await Promise.resolve(pending).catch(() => undefined);
    await waitOnExecutionContext(ctx);

    const retry = await uploadWith(key.auth, 'lost', body);
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotency-replayed')).toBe('true');
    const { data } = await retry.json<{ data: { id: string } }>();
    expect(await rowIds(key.id)).toEqual([data.id]);
    expect(await blobKeys(key.id)).toHaveLength(1);
    expect((await usage(key.id)).files).toBe(1);
  });

  it('keeps no 5xx answer: a retry after a failed upload runs again and stores one file', async () => {
    const key = await newKey('5xx');
    const { bucket } = failingPutBucket(env.FILES, 1);
    const failed = await uploadWith(key.auth, 'after-failure', fileBody(), { FILES: bucket });
    expect(failed.status).toBeGreaterThanOrEqual(500);
    expect(await rowIds(key.id)).toEqual([]);
    const retry = await uploadWith(key.auth, 'after-failure');
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotency-replayed')).toBeNull();
    expect(await rowIds(key.id)).toHaveLength(1);
  });

  it('answers 503 and stores nothing when the store cannot be reached', async () => {
    const key = await newKey('store down');
    const broken = {
      getByName: () => ({
        begin: () => Promise.reject(new Error('injected: store unreachable')),
      }),
    };
    const response = await uploadWith(key.auth, 'no-store', fileBody(), { IDEMPOTENCY: broken });
    await expectError(response, 503, 'SERVICE_UNAVAILABLE');
    expect(await rowIds(key.id)).toEqual([]);
    expect(await blobKeys(key.id)).toEqual([]);
  });

  it('never calls the store without the header, nor for a GET with it', async () => {
    const key = await newKey('no header');
    const counts = { calls: 0 };
    const IDEMPOTENCY = countingNamespace(env.IDEMPOTENCY, () => counts.calls++);
    expect((await uploadWith(key.auth, undefined, fileBody(), { IDEMPOTENCY })).status).toBe(201);
    const list = await call(
      '/api/v2/files',
      { headers: { ...key.auth, 'Idempotency-Key': 'ignored' } },
      { IDEMPOTENCY },
    );
    expect(list.status).toBe(200);
    expect(counts.calls).toBe(0);
    // The counter counts: a request with the header calls the store.
    expect((await uploadWith(key.auth, 'counted', fileBody(), { IDEMPOTENCY })).status).toBe(201);
    expect(counts.calls).toBeGreaterThan(0);
  });
});

describe('the store', () => {
  it('keeps an entry at least 24 hours, and forgets it after its time', async () => {
    const key = await newKey('expiry');
    expect((await uploadWith(key.auth, 'ages')).status).toBe(201);
    const store = env.IDEMPOTENCY.getByName(key.id);
    const entry = await entryNameOf('ages');
    const other = await fingerprintOf(new Request(`${ORIGIN}/api/v2/other`, { method: 'POST' }), true, key.id);
    const now = Date.now();
    expect(IDEMPOTENCY_TTL_MS).toBeGreaterThanOrEqual(24 * 3600 * 1000);
    // A day later it still names the upload: another request is refused.
    const dayLater = await store.begin({ key: entry, fingerprint: other, leaseMs: 1_000, now: now + 24 * 3600 * 1000 });
    expect(dayLater.state).toBe('mismatch');
    // Past its time it is gone (removed), and the key is free again.
    expect(await store.size(now + IDEMPOTENCY_TTL_MS + 1_000)).toBe(0);
    const later = await store.begin({
      key: entry,
      fingerprint: other,
      leaseMs: 1_000,
      now: now + IDEMPOTENCY_TTL_MS + 1_000,
    });
    expect(later.state).toBe('started');
  });

  it('lets a running entry go once its lease ends (a request that died)', async () => {
    const store = env.IDEMPOTENCY.getByName(`lease-${crypto.randomUUID()}`);
    const now = Date.now();
    const first = await store.begin({ key: 'k', fingerprint: 'f', leaseMs: 60_000, now });
    expect(first.state).toBe('started');
    expect((await store.begin({ key: 'k', fingerprint: 'f', leaseMs: 60_000, now: now + 59_000 })).state).toBe(
      'running',
    );
    expect((await store.begin({ key: 'k', fingerprint: 'f', leaseMs: 60_000, now: now + 61_000 })).state).toBe(
      'started',
    );
  });

  it('holds neither the key value nor a readable body (a new API key’s secret)', async () => {
    const key = await newKey('sealed');
    const response = await jsonCall('POST', '/api/v2/keys', key.auth, 'make-key', { name: 'second' });
    expect(response.status).toBe(201);
    const { data } = await response.json<{ data: { key: string } }>();
    const rows = await runInStore(key.id);
    expect(rows).toHaveLength(1);
    expect(rows[0]?.key).not.toContain('make-key');
    expect(new TextDecoder().decode(rows[0]?.body)).not.toContain(data.key);
  });
});

describe('Idempotency-Key on the other write routes', () => {
  it('DELETE /files/{id}: the retry gets the first 200, not a 404', async () => {
    const key = await newKey('delete');
    const upload = await uploadWith(key.auth, undefined);
    const { data } = await upload.json<{ data: { id: string } }>();
    const first = await answerOf(await jsonCall('DELETE', `/api/v2/files/${data.id}`, key.auth, 'del'));
    expect(first.status).toBe(200);
    const again = await jsonCall('DELETE', `/api/v2/files/${data.id}`, key.auth, 'del');
    expect(again.headers.get('idempotency-replayed')).toBe('true');
    expect(await answerOf(again)).toEqual(first);
    const plain = await call(`/api/v2/files/${data.id}`, { method: 'DELETE', headers: key.auth });
    expect(plain.status).toBe(404);
  });

  it('PATCH /files/{id}: replays; another body with the key is 422', async () => {
    const key = await newKey('patch');
    const { data } = await (await uploadWith(key.auth, undefined)).json<{ data: { id: string } }>();
    const path = `/api/v2/files/${data.id}`;
    const first = await answerOf(await jsonCall('PATCH', path, key.auth, 'rename', { originalName: 'a.txt' }));
    expect(first.status).toBe(200);
    expect(await answerOf(await jsonCall('PATCH', path, key.auth, 'rename', { originalName: 'a.txt' }))).toEqual(first);
    await expectError(
      await jsonCall('PATCH', path, key.auth, 'rename', { originalName: 'b.txt' }),
      422,
      'IDEMPOTENCY_KEY_REUSED',
    );
  });

  it('bulk upload and bulk delete: replayed, nothing stored or deleted twice', async () => {
    const key = await newKey('bulk');
    const body = rawMultipart([
      { headers: filePartHeaders('a.txt', 'text/plain', 'files'), content: textBytes(500, 'a') },
      { headers: filePartHeaders('b.txt', 'text/plain', 'files'), content: textBytes(600, 'b') },
    ]);
    const headers = { ...MULTIPART, ...key.auth, 'Content-Length': String(body.length), 'Idempotency-Key': 'bulk-up' };
    const first = await answerOf(await call('/api/v2/upload/bulk', { method: 'POST', headers, body }));
    expect(first.status).toBe(201);
    expect(await answerOf(await call('/api/v2/upload/bulk', { method: 'POST', headers, body }))).toEqual(first);
    const ids = await rowIds(key.id);
    expect(ids).toHaveLength(2);
    expect((await usage(key.id)).usedBytes).toBe(1_100);

    const removal = await answerOf(await jsonCall('DELETE', '/api/v2/files/bulk', key.auth, 'bulk-del', { ids }));
    expect(removal.status).toBe(200);
    expect(await answerOf(await jsonCall('DELETE', '/api/v2/files/bulk', key.auth, 'bulk-del', { ids }))).toEqual(
      removal,
    );
    expect(await rowIds(key.id)).toEqual([]);
  });

  it('tus creation: the retry gets the same Location, and one upload is made', async () => {
    const key = await newKey('tus');
    const headers = { ...key.auth, 'Tus-Resumable': '1.0.0', 'Upload-Length': '100', 'Idempotency-Key': 'tus-1' };
    const first = await call('/api/v2/uploads', { method: 'POST', headers });
    expect(first.status).toBe(201);
    const location = first.headers.get('location');
    expect(location).toBeTruthy();
    const again = await call('/api/v2/uploads', { method: 'POST', headers });
    expect(again.status).toBe(201);
    expect(again.headers.get('location')).toBe(location);
    expect(again.headers.get('tus-resumable')).toBe('1.0.0');
    const other = await call('/api/v2/uploads', {
      method: 'POST',
      headers: { ...headers, 'Upload-Length': '200' },
    });
    await expectError(other, 422, 'IDEMPOTENCY_KEY_REUSED');
  });

  it('keys: create, rename and revoke are each replayed; one key is made', async () => {
    const key = await newKey('keys');
    const created = await jsonCall('POST', '/api/v2/keys', key.auth, 'new-key', { name: 'laptop' });
    expect(created.status).toBe(201);
    const createdAnswer = await answerOf(created);
    expect(await answerOf(await jsonCall('POST', '/api/v2/keys', key.auth, 'new-key', { name: 'laptop' }))).toEqual(
      createdAnswer,
    );
    const made = (JSON.parse(createdAnswer.body) as { data: { id: string } }).data.id;
    const listed = await call('/api/v2/keys', { headers: key.auth });
    const { data } = await listed.json<{ data: { keys: { name: string }[] } }>();
    expect(data.keys.filter((k) => k.name === 'laptop')).toHaveLength(1);

    const renamed = await answerOf(await jsonCall('PATCH', `/api/v2/keys/${made}`, key.auth, 'ren', { name: 'phone' }));
    expect(renamed.status).toBe(200);
    expect(await answerOf(await jsonCall('PATCH', `/api/v2/keys/${made}`, key.auth, 'ren', { name: 'phone' }))).toEqual(
      renamed,
    );
    const revoked = await answerOf(await jsonCall('DELETE', `/api/v2/keys/${made}`, key.auth, 'rev'));
    expect(revoked.status).toBe(200);
    expect(await answerOf(await jsonCall('DELETE', `/api/v2/keys/${made}`, key.auth, 'rev'))).toEqual(revoked);
  });
});

function streamOfBytes(bytes: Uint8Array): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      controller.enqueue(bytes);
      controller.close();
    },
  });
}

/** The raw rows of an account's store (what an operator with storage access would see). */
async function runInStore(accountId: string): Promise<{ key: string; body: ArrayBuffer }[]> {
  const { runInDurableObject } = await import('cloudflare:test');
  return runInDurableObject(env.IDEMPOTENCY.getByName(accountId), async (_instance, state) =>
    state.storage.sql.exec<{ key: string; body: ArrayBuffer }>('SELECT key, body FROM entries').toArray(),
  );
}

describe('Idempotency-Key on routes merged after it (no change to them)', () => {
  it('webhooks: a retried create makes one webhook and replays its secret; delete replays', async () => {
    const key = await newKey('webhooks');
    const body = { url: 'https://example.com/hooks', events: ['file.uploaded'] };
    const first = await answerOf(await jsonCall('POST', '/api/v2/webhooks', key.auth, 'hook-1', body));
    expect(first.status).toBe(201);
    const again = await jsonCall('POST', '/api/v2/webhooks', key.auth, 'hook-1', body);
    expect(again.headers.get('idempotency-replayed')).toBe('true');
    expect(await answerOf(again)).toEqual(first);
    const list = await call('/api/v2/webhooks', { headers: key.auth });
    const { data } = await list.json<{ data: { webhooks: { id: string }[] } }>();
    expect(data.webhooks).toHaveLength(1);
    const id = data.webhooks[0]?.id;
    const removed = await answerOf(await jsonCall('DELETE', `/api/v2/webhooks/${id}`, key.auth, 'hook-del'));
    expect(removed.status).toBe(200);
    expect(await answerOf(await jsonCall('DELETE', `/api/v2/webhooks/${id}`, key.auth, 'hook-del'))).toEqual(removed);
  });
});

describe('Idempotency-Key on share links (merged after it)', () => {
  it('a retried create makes one link; change and revoke replay', async () => {
    const key = await newKey('links');
    const { data: file } = await (await uploadWith(key.auth, undefined)).json<{ data: { id: string } }>();
    const path = `/api/v2/files/${file.id}/links`;
    const first = await answerOf(await jsonCall('POST', path, key.auth, 'link-1', { label: 'team' }));
    expect(first.status).toBe(201);
    expect(await answerOf(await jsonCall('POST', path, key.auth, 'link-1', { label: 'team' }))).toEqual(first);
    const listed = await call(path, { headers: key.auth });
    const { data } = await listed.json<{ data: { links: { id: string }[] } }>();
    expect(data.links).toHaveLength(1);
    const link = `/api/v2/links/${data.links[0]?.id}`;
    const changed = await answerOf(await jsonCall('PATCH', link, key.auth, 'link-ch', { label: 'other' }));
    expect(changed.status).toBe(200);
    expect(await answerOf(await jsonCall('PATCH', link, key.auth, 'link-ch', { label: 'other' }))).toEqual(changed);
    const revoked = await answerOf(await jsonCall('DELETE', link, key.auth, 'link-rev'));
    expect(revoked.status).toBe(200);
    expect(await answerOf(await jsonCall('DELETE', link, key.auth, 'link-rev'))).toEqual(revoked);
  });
});

describe('Idempotency-Key on file requests (merged after it)', () => {
  it('a retried create makes one request; closing replays', async () => {
    const key = await newKey('requests');
    const first = await answerOf(await jsonCall('POST', '/api/v2/requests', key.auth, 'req-1', { maxFiles: 3 }));
    expect(first.status).toBe(201);
    expect(await answerOf(await jsonCall('POST', '/api/v2/requests', key.auth, 'req-1', { maxFiles: 3 }))).toEqual(
      first,
    );
    const listed = await call('/api/v2/requests', { headers: key.auth });
    const { data } = await listed.json<{ data: { requests: { id: string }[] } }>();
    expect(data.requests).toHaveLength(1);
    const path = `/api/v2/requests/${data.requests[0]?.id}`;
    const closed = await answerOf(await jsonCall('DELETE', path, key.auth, 'req-close'));
    expect(closed.status).toBe(200);
    expect(await answerOf(await jsonCall('DELETE', path, key.auth, 'req-close'))).toEqual(closed);
  });
});

describe('Idempotency-Key around the API', () => {
  it('is allowed by CORS, and Idempotency-Replayed is exposed', async () => {
    const preflight = await call('/api/v2/upload', {
      method: 'OPTIONS',
      headers: {
        Origin: 'https://app.example',
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'authorization, idempotency-key',
      },
    });
    expect((preflight.headers.get('access-control-allow-headers') ?? '').toLowerCase()).toContain('idempotency-key');
    const key = await newKey('cors');
    const response = await call('/api/v2/upload', {
      method: 'POST',
      headers: { ...MULTIPART, ...key.auth, Origin: 'https://app.example', 'Idempotency-Key': 'cors-1' },
      body: fileBody(),
    });
    expect((response.headers.get('access-control-expose-headers') ?? '').toLowerCase()).toContain(
      'idempotency-replayed',
    );
  });

  it('belongs to the API key that sent it: another key of the account gets 422 and nothing is stored', async () => {
    const first = await newKey('rotation');
    const made = await jsonCall('POST', '/api/v2/keys', first.auth, 'make-second', { name: 'second' });
    expect(made.status).toBe(201);
    const second = { Authorization: `Bearer ${(await made.json<{ data: { key: string } }>()).data.key}` };
    const upload = await uploadWith(first.auth, 'rotated');
    expect(upload.status).toBe(201);
    const body = await upload.text();
    await expectError(await uploadWith(second, 'rotated'), 422, 'IDEMPOTENCY_KEY_REUSED');
    // The key that sent it still gets its answer; nothing was stored twice.
    const again = await uploadWith(first.auth, 'rotated');
    expect(again.headers.get('idempotency-replayed')).toBe('true');
    expect(await again.text()).toBe(body);
    expect(await rowIds(first.id)).toHaveLength(1);
  });

  it('never replays a new key’s secret to a narrower key of the account that repeats the request', async () => {
    const full = await newKey('full');
    const made = await jsonCall('POST', '/api/v2/keys', full.auth, 'narrow', {
      name: 'narrow',
      scopes: ['files:read', 'keys:write'],
    });
    expect(made.status).toBe(201);
    const narrow = { Authorization: `Bearer ${(await made.json<{ data: { key: string } }>()).data.key}` };
    const body = { name: 'every scope' };
    const original = await jsonCall('POST', '/api/v2/keys', full.auth, 'mint', body);
    expect(original.status).toBe(201);
    const secret = (await original.json<{ data: { key: string } }>()).data.key;
    const stolen = await jsonCall('POST', '/api/v2/keys', narrow, 'mint', body);
    expect(stolen.status).toBe(422);
    expect(await stolen.text()).not.toContain(secret);
  });

  it('refuses an over-long JSON body before reading more of it (400, as the route would)', async () => {
    const key = await newKey('long json');
    const response = await jsonCall('DELETE', '/api/v2/files/bulk', key.auth, 'long', {
      ids: Array.from({ length: 5_000 }, (_, i) => `id-${i}-${'x'.repeat(20)}`),
    });
    await expectError(response, 400, 'VALIDATION_ERROR');
    expect(await env.IDEMPOTENCY.getByName(key.id).size()).toBe(0);
  });
});

describe('the v2 OpenAPI document', () => {
  it('offers Idempotency-Key on every POST, PATCH and DELETE, with its 409, 422 and 503', async () => {
    const response = await call('/api/v2/openapi.json');
    const document = await response.json<{ paths: Record<string, Record<string, OperationDoc>> }>();
    let writes = 0;
    for (const [path, item] of Object.entries(document.paths)) {
      for (const method of ['post', 'patch', 'delete']) {
        const operation = item[method];
        if (!operation || operation.security?.length === 0) continue;
        writes++;
        const names = (operation.parameters ?? []).map((parameter) => parameter.name);
        expect(names, `${method} ${path}`).toContain('Idempotency-Key');
        for (const status of ['409', '422', '503'])
          expect(operation.responses, `${method} ${path}`).toHaveProperty(status);
      }
    }
    expect(writes).toBeGreaterThanOrEqual(8);
  });
});

type OperationDoc = { parameters?: { name: string }[]; responses: Record<string, unknown>; security?: unknown[] };
