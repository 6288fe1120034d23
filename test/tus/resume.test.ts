// Large uploads in chunks of any size: fixed-size R2 parts with the unaligned rest kept in a
// temporary object, resumption from the offset HEAD reports after a body broke off or a client
// went away, and two clients racing on one upload.
import { createExecutionContext, env, runInDurableObject, waitOnExecutionContext } from 'cloudflare:test';
import { describe, expect, it, vi } from 'vitest';
import worker from '../../src/index';
import { LEASE_TTL_MS } from '../../src/tus/tus-upload-contract';
import { sha256Hex } from '../helpers/digests';
import { getRecord } from '../helpers/files';
import { expectError } from '../helpers/responses';
import {
  binaryBytes,
  breakingBody,
  created,
  leaseHeld,
  MIB,
  newKey,
  OCTETS,
  offsetOf,
  patch,
  patchOk,
  pausedBody,
  TUS,
  tailObjects,
  terminate,
  uploadAll,
  uploadStub,
  usage,
} from '../helpers/tus';
import { call, ORIGIN, someAddress } from '../helpers/worker';

async function downloadSha(auth: Record<string, string>, id: string): Promise<string> {
  const response = await call(`/api/v2/files/${id}/download`, { headers: auth });
  expect(response.status).toBe(200);
  return sha256Hex(await response.arrayBuffer());
}

describe('chunks of any size become fixed-size parts', () => {
  it('stores 20 MiB sent in unaligned 7 MiB chunks: 8 MiB parts, the rest in a tail object between PATCHes', async () => {
    const { id: keyId, auth } = await newKey('unaligned');
    const bytes = binaryBytes(20 * MIB, 11);
    const { path, id } = await created(auth, bytes.length, { filename: 'video.bin' });

    expect(await patchOk(auth, path, 0, bytes.slice(0, 7 * MIB))).toBe(7 * MIB);
    // Less than a part: all of it waits in the tail object; nothing is in files/ yet.
    const [firstTail] = await tailObjects(id);
    expect((await env.FILES.head(firstTail ?? ''))?.size).toBe(7 * MIB);
    expect((await env.FILES.list({ prefix: `files/${keyId}/` })).objects).toEqual([]);

    expect(await patchOk(auth, path, 7 * MIB, bytes.slice(7 * MIB, 14 * MIB))).toBe(14 * MIB);
    // One 8 MiB part uploaded; the 6 MiB past it are the new tail, the old tail is gone.
    const tails = await tailObjects(id);
    expect(tails).toHaveLength(1);
    expect(tails[0]).not.toBe(firstTail);
    expect((await env.FILES.head(tails[0] ?? ''))?.size).toBe(6 * MIB);

    const last = await patch(auth, path, 14 * MIB, bytes.slice(14 * MIB));
    expect(last.status).toBe(204);
    expect(last.headers.get('x-file-id')).toBe(id);
    expect(await tailObjects(id)).toEqual([]);

    const object = await env.FILES.head(`files/${keyId}/${id}`);
    expect(object?.size).toBe(20 * MIB);
    // An R2 multipart object's ETag ends in -<parts>: 8 + 8 + 4 MiB.
    expect(object?.httpEtag).toMatch(/-3"$/);
    expect(await downloadSha(auth, id)).toBe(await sha256Hex(bytes));
    expect((await getRecord(auth, id, 'v2')).size).toBe(20 * MIB);
    // The reservation became the file.
    expect(await usage(keyId)).toEqual({ usedBytes: 20 * MIB, files: 1, heldBytes: 0, heldFiles: 0 });
  });

  it('stores one PATCH of a whole 17 MiB file (tus-js-client’s default of one chunk)', async () => {
    const { auth } = await newKey('one chunk');
    const bytes = binaryBytes(17 * MIB, 12);
    const { path, id } = await created(auth, bytes.length, { filename: 'one.bin' });
    const last = await patch(auth, path, 0, bytes);
    expect(last.headers.get('x-file-id')).toBe(id);
    expect(await downloadSha(auth, id)).toBe(await sha256Hex(bytes));
  });

  it('stores many small chunks (1 MiB) that straddle part boundaries', async () => {
    const { auth } = await newKey('small chunks');
    const bytes = binaryBytes(10 * MIB + 123, 13);
    const { path, id } = await created(auth, bytes.length, { filename: 'small.bin' });
    const last = await uploadAll(auth, path, bytes, MIB);
    expect(last.headers.get('x-file-id')).toBe(id);
    expect(await downloadSha(auth, id)).toBe(await sha256Hex(bytes));
  });
});

describe('resuming', () => {
  it('keeps what arrived before a PATCH broke off, and resumes from the offset HEAD reports', async () => {
    const { auth } = await newKey('broken patch');
    const bytes = binaryBytes(12 * MIB, 21);
    const { path, id } = await created(auth, bytes.length, { filename: 'broken.bin' });
    const breakAt = 9 * MIB + 512 * 1024;
    const broken = await call(path, {
      method: 'PATCH',
      headers: { ...TUS, ...auth, ...OCTETS, 'Upload-Offset': '0' },
      body: breakingBody(bytes, breakAt),
    });
    // The server kept every byte it received: one full part and the rest as a tail.
    expect(broken.status).toBe(204);
    expect(await offsetOf(auth, path)).toBe(breakAt);
    expect(await tailObjects(id)).toHaveLength(1);

    const last = await patch(auth, path, breakAt, bytes.slice(breakAt));
    expect(last.headers.get('x-file-id')).toBe(id);
    expect(await downloadSha(auth, id)).toBe(await sha256Hex(bytes));
  });

  it('keeps what arrived when the client goes away mid-PATCH, from waitUntil, and frees the upload for the next PATCH', async () => {
    const { auth } = await newKey('client gone');
    const bytes = binaryBytes(3 * MIB, 22);
    const { path, id } = await created(auth, bytes.length, { filename: 'gone.bin' });
    const { stream, paused } = pausedBody(bytes, MIB);
    const controller = new AbortController();
    const request = new Request(`${ORIGIN}${path}`, {
      method: 'PATCH',
      headers: { ...TUS, ...auth, ...OCTETS, 'Upload-Offset': '0', 'CF-Connecting-IP': someAddress() },
      body: stream,
      signal: controller.signal,
    });
    const ctx = createExecutionContext();
    const pending = worker.fetch(request, env, ctx);
    // The first MiB is in (the PATCH holds the lease): another PATCH is refused meanwhile.
    await Promise.all([leaseHeld(id), paused]);
    await expectError(await patch(auth, path, 0, bytes), 409, 'UPLOAD_CONFLICT');

    controller.abort();
    await Promise.resolve(pending).catch(() => undefined);
    await waitOnExecutionContext(ctx);
    expect(await offsetOf(auth, path)).toBe(MIB);
    const last = await patch(auth, path, MIB, bytes.slice(MIB));
    expect(last.headers.get('x-file-id')).toBe(id);
    expect(await downloadSha(auth, id)).toBe(await sha256Hex(bytes));
  });

  it('logs a PATCH whose client went away as a client abort (info), not as an error', async () => {
    const { auth } = await newKey('abort logged');
    const bytes = binaryBytes(2 * MIB, 24);
    const { path, id } = await created(auth, bytes.length, { filename: 'abort.bin' });
    const { stream, paused } = pausedBody(bytes, MIB);
    const controller = new AbortController();
    // With a checksum nothing of a cut-off body is kept: the answer is a 4xx nobody reads.
    const digest = await crypto.subtle.digest('SHA-256', bytes);
    const checksum = `sha256 ${btoa(String.fromCharCode(...new Uint8Array(digest)))}`;
    const request = new Request(`${ORIGIN}${path}`, {
      method: 'PATCH',
      headers: { ...TUS, ...auth, ...OCTETS, 'Upload-Offset': '0', 'Upload-Checksum': checksum },
      body: stream,
      signal: controller.signal,
    });
    const errors = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const infos = vi.spyOn(console, 'log').mockImplementation(() => undefined);
    try {
      const ctx = createExecutionContext();
      const pending = worker.fetch(request, env, ctx);
      await Promise.all([leaseHeld(id), paused]);
      controller.abort();
      await Promise.resolve(pending).catch(() => undefined);
      await waitOnExecutionContext(ctx);
      const lines = (spy: typeof errors) => spy.mock.calls.map((call) => String(call[0]));
      expect(lines(errors).filter((line) => line.includes(path.split('/').pop() ?? '-'))).toEqual([]);
      expect(lines(errors).filter((line) => line.includes('"method":"PATCH"'))).toEqual([]);
      const logged = lines(infos).find((line) => line.includes('"method":"PATCH"'));
      expect(JSON.parse(logged ?? '{}')).toMatchObject({ level: 'info', msg: 'request', clientAborted: true });
      expect(JSON.parse(logged ?? '{}')).toMatchObject({ status: 400 });
    } finally {
      errors.mockRestore();
      infos.mockRestore();
    }
    expect(await offsetOf(auth, path)).toBe(0);
  });

  it('answers a checksummed PATCH whose body breaks off with 400 (the client’s doing), logged at info, keeping nothing', async () => {
    const { auth } = await newKey('checksum cut');
    const bytes = binaryBytes(3 * MIB, 26);
    const { path, id } = await created(auth, bytes.length, { filename: 'cut.bin' });
    const digest = await crypto.subtle.digest('SHA-256', bytes);
    const checksum = `sha256 ${btoa(String.fromCharCode(...new Uint8Array(digest)))}`;
    const errors = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const infos = vi.spyOn(console, 'log').mockImplementation(() => undefined);
    let response: Response;
    try {
      // The connection resets mid-body (no abort signal: the body's read fails).
      response = await call(path, {
        method: 'PATCH',
        headers: { ...TUS, ...auth, ...OCTETS, 'Upload-Offset': '0', 'Upload-Checksum': checksum },
        body: breakingBody(bytes, 2 * MIB),
      });
      const lines = (spy: typeof errors) => spy.mock.calls.map((call) => String(call[0]));
      expect(lines(errors)).toEqual([]);
      const logged = lines(infos).find((line) => line.includes('"method":"PATCH"'));
      expect(JSON.parse(logged ?? '{}')).toMatchObject({ level: 'info', msg: 'request', status: 400 });
    } finally {
      errors.mockRestore();
      infos.mockRestore();
    }
    const body = await expectError(response, 400, 'VALIDATION_ERROR');
    expect(body.details?.[0]?.field).toBe('body');
    expect(await offsetOf(auth, path)).toBe(0);
    expect(await tailObjects(id)).toEqual([]);
  });

  it('lets only one of two PATCHes racing at one offset write; the other gets 409', async () => {
    const { auth } = await newKey('race');
    const bytes = binaryBytes(2 * MIB, 23);
    const { path, id } = await created(auth, bytes.length, { filename: 'race.bin' });
    const first = pausedBody(bytes, MIB);
    const pending = call(path, {
      method: 'PATCH',
      headers: { ...TUS, ...auth, ...OCTETS, 'Upload-Offset': '0' },
      body: first.stream,
    });
    await leaseHeld(id);
    const second = await patch(auth, path, 0, binaryBytes(2 * MIB, 99));
    await expectError(second, 409, 'UPLOAD_CONFLICT');
    first.open();
    const done = await pending;
    expect(done.status).toBe(204);
    expect(done.headers.get('x-file-id')).toBe(id);
    // The file is the first client's bytes, untouched by the second.
    expect(await downloadSha(auth, id)).toBe(await sha256Hex(bytes));
  });

  it('answers racing PATCHes at one offset with exactly one 204 and 409 for the rest', async () => {
    const { auth } = await newKey('burst');
    const bytes = binaryBytes(64 * 1024, 24);
    const { path } = await created(auth, 2 * bytes.length, { filename: 'burst.bin' });
    const responses = await Promise.all(Array.from({ length: 6 }, () => patch(auth, path, 0, bytes)));
    const statuses = responses.map((response) => response.status).sort();
    expect(statuses).toEqual([204, 409, 409, 409, 409, 409]);
    expect(await offsetOf(auth, path)).toBe(bytes.length);
  });
});

/** Polls `read` until it returns `want` or `ms` pass; returns what it read last. */
async function eventually<T>(read: () => Promise<T>, want: T, ms = 30_000): Promise<T> {
  const until = Date.now() + ms;
  let value = await read();
  while (value !== want && Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    value = await read();
  }
  return value;
}

type LeasedState = { lease: { token: string; until: number } | null };

/** Moves the upload's lease back in time: as if its PATCH had said nothing for `ms` more. */
async function ageLease(id: string, ms: number): Promise<void> {
  await runInDurableObject(uploadStub(id), (_instance, state) => {
    const stored = state.storage.kv.get<LeasedState>('upload');
    if (!stored?.lease) throw new Error('no lease');
    state.storage.kv.put('upload', { ...stored, lease: { ...stored.lease, until: stored.lease.until - ms } });
  });
}

describe('a PATCH whose Worker dies mid-body', () => {
  it('keeps each part recorded as it landed: HEAD offers the last part boundary, a new PATCH takes over within seconds, and the file is exact', async () => {
    const { auth } = await newKey('crash');
    const bytes = binaryBytes(20 * MIB, 25);
    const { path, id } = await created(auth, bytes.length, { filename: 'crash.bin' });
    // 9 MiB arrive, then nothing: the PATCH neither reads, renews nor reports any more, as if its
    // Worker had died with one 8 MiB part in R2 and 1 MiB in memory.
    const stuck = pausedBody(bytes, 9 * MIB);
    const pending = call(path, {
      method: 'PATCH',
      headers: { ...TUS, ...auth, ...OCTETS, 'Upload-Offset': '0' },
      body: stuck.stream,
    });
    expect(await eventually(() => offsetOf(auth, path), 8 * MIB)).toBe(8 * MIB);
    // Its lease still stands a moment after its last sign of life…
    await expectError(await patch(auth, path, 8 * MIB, bytes.slice(8 * MIB)), 409, 'UPLOAD_CONFLICT');
    // …but not 20 seconds after it: a new PATCH at the recorded offset takes over.
    await ageLease(id, 20_000);
    const last = await patch(auth, path, 8 * MIB, bytes.slice(8 * MIB));
    expect(last.status).toBe(204);
    expect(last.headers.get('x-file-id')).toBe(id);
    const expected = await sha256Hex(bytes);
    expect(await downloadSha(auth, id)).toBe(expected);
    // The digest went on from the hash state recorded at the part boundary.
    expect(((await getRecord(auth, id, 'v2')) as { sha256?: string }).sha256).toBe(expected);

    // Should the stuck PATCH come back to life, it writes nothing more: it lost its lease.
    stuck.open();
    await expectError(await pending, 409, 'UPLOAD_CONFLICT');
    expect(await downloadSha(auth, id)).toBe(expected);
    expect(await tailObjects(id)).toEqual([]);
  });

  it('frees a lease LEASE_TTL_MS after its last sign of life, never sooner, and the old PATCH then records nothing', async () => {
    // A key made alone founds its own account, named by the key's id.
    const { id: accountId, auth } = await newKey('takeover');
    const { path, id } = await created(auth, 20 * MIB, { filename: 'takeover.bin' });
    const stub = uploadStub(id);
    const now = Date.now();
    const first = await stub.begin({ accountId, offset: 0, now });
    if (first.status !== 'ok') throw new Error(`begin: ${first.status}`);
    const part = { partNumber: 1, etag: 'etag-1' };
    const progress = { part, offset: 8 * MIB, partSize: 8 * MIB, mimeType: 'application/octet-stream', hash: null };
    expect(await stub.recordPart({ lease: first.lease, ...progress, expiresAt: now + 60_000, now: now + 1_000 })).toBe(
      true,
    );
    // The recorded part is the upload's, whatever happens to the PATCH.
    expect(await stub.view({ accountId })).toMatchObject({ offset: 8 * MIB });
    const later = (ms: number) => stub.begin({ accountId, offset: 8 * MIB, now: now + 1_000 + ms });
    expect(await later(LEASE_TTL_MS - 1)).toMatchObject({ status: 'busy', offset: 8 * MIB });
    const second = await later(LEASE_TTL_MS);
    expect(second.status).toBe('ok');
    expect(LEASE_TTL_MS).toBeLessThanOrEqual(15_000);
    // The first PATCH can neither renew, record nor end any more.
    expect(await stub.renew({ lease: first.lease })).toBe(false);
    const next = { ...progress, part: { partNumber: 2, etag: 'etag-2' }, offset: 16 * MIB };
    expect(await stub.recordPart({ lease: first.lease, ...next, expiresAt: now + 60_000 })).toBe(false);
    expect(await stub.view({ accountId })).toMatchObject({ offset: 8 * MIB });
    expect((await terminate(auth, path)).status).toBe(204);
  });
});
