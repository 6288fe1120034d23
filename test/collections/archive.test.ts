// The owner's ZIP of a collection through the Worker: an exact Content-Length, ranges equal to
// the same slices of the whole, validators (ETag, If-Range, If-None-Match), HEAD, resuming, the
// empty archive, data descriptors while a CRC-32 is unknown, and streamed reads (never built
// ahead: R2 is read only as the client reads, and only for the members a range touches).
import { env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { crc32 } from '../../src/lib/crc32';
import { expectError } from '../helpers/responses';
import { call } from '../helpers/worker';
import { sameBytes, seeded } from '../helpers/zip-fixtures';
import { readArchive } from '../helpers/zip-reader';
import {
  account,
  addFiles,
  archive,
  bytesOf,
  expireFile,
  json,
  makeCollection,
  setCrc,
  sha256Hex,
  uploadFile,
} from './collection-helpers';

/** Deterministic bytes of `size` that no type signature claims (they start with `DATA`). */
function content(seed: number, size: number): Uint8Array {
  const next = seeded(seed);
  const bytes = new Uint8Array(size);
  for (let i = 0; i < size; i++) bytes[i] = Math.floor(next() * 256);
  bytes.set([0x44, 0x41, 0x54, 0x41].slice(0, size));
  return bytes;
}

type Member = { id: string; name: string; bytes: Uint8Array };

/** An account with a collection of these files (each given its CRC-32 unless `crc` is false). */
async function collectionOf(files: { name: string; size: number; crc?: boolean }[], name = 'Holiday photos') {
  const owner = await account('archive', { rateLimitRequests: 10_000 });
  const members: Member[] = [];
  for (const [index, file] of files.entries()) {
    const uploaded = await uploadFile(owner.auth, file.name, content(index + 1, file.size), {
      type: 'application/octet-stream',
      crc: file.crc,
    });
    members.push({ id: uploaded.id, name: file.name, bytes: uploaded.bytes });
  }
  const made = await makeCollection(owner.auth, { name, fileIds: members.map((member) => member.id) });
  return { ...owner, collection: made, members };
}

/**
 * Every member of a whole archive, checked against the files' own bytes, names and CRC-32s: in
 * its local header, or (`descriptors`, by member index) in a data descriptor after its bytes.
 */
function expectMembers(body: Uint8Array, members: { name: string; bytes: Uint8Array }[], descriptors: number[] = []) {
  const parsed = readArchive(body);
  expect(parsed.entries.map((entry) => entry.name)).toEqual(members.map((member) => member.name));
  for (const [index, member] of parsed.members.entries()) {
    const expected = members[index] as { bytes: Uint8Array };
    expect(sameBytes(member.data, expected.bytes), member.entry.name).toBe(true);
    expect(member.entry.method).toBe(0);
    expect(member.entry.crc32).toBe(crc32(expected.bytes));
    if (descriptors.includes(index)) {
      expect(member.local.flags & 0x0008).toBe(0x0008);
      expect(member.descriptor?.crc32).toBe(crc32(expected.bytes));
    } else {
      expect(member.local.crc32).toBe(crc32(expected.bytes));
      expect(member.descriptor).toBeNull();
    }
  }
  return parsed;
}

const FILES = [
  { name: 'beach.jpg', size: 40_000 },
  { name: 'notes.txt', size: 5_000 },
  { name: 'empty.bin', size: 0 },
  { name: 'Ünïcödé name.bin', size: 70_001 },
];

describe('GET /api/v2/collections/{id}/archive', () => {
  it('answers the whole archive: every member byte-exact, exact Content-Length, the download headers', async () => {
    const { auth, collection, members } = await collectionOf(FILES);
    const response = await archive(auth, collection.id, { 'Accept-Encoding': 'gzip, br' });
    expect(response.status).toBe(200);
    const body = await bytesOf(response);
    const headers = Object.fromEntries(response.headers);
    expect(headers).toMatchObject({
      'content-type': 'application/zip',
      'content-length': String(body.length),
      'accept-ranges': 'bytes',
      'cache-control': 'private, no-transform',
      'x-content-type-options': 'nosniff',
      'content-disposition': `attachment; filename="Holiday photos.zip"; filename*=UTF-8''Holiday%20photos.zip`,
    });
    expect(headers['content-encoding'] ?? 'identity').toBe('identity');
    expect(headers.etag).toMatch(/^"[0-9a-f]{64}"$/);
    expect(Date.parse(headers['last-modified'] ?? '')).toBeGreaterThan(0);
    expectMembers(body, members);
  });

  it('names the archive after the collection: an ASCII fallback and the UTF-8 name', async () => {
    const { auth, collection } = await collectionOf([{ name: 'a.txt', size: 3 }], 'Überblick / 2026');
    const response = await archive(auth, collection.id, {}, 'HEAD');
    expect(response.headers.get('content-disposition')).toBe(
      `attachment; filename="Uberblick  2026.zip"; filename*=UTF-8''%C3%9Cberblick%20%202026.zip`,
    );
  });

  it('answers 20 random ranges with exactly those bytes of the whole archive (206, Content-Range)', async () => {
    const { auth, collection } = await collectionOf(FILES);
    const whole = await bytesOf(await archive(auth, collection.id));
    const next = seeded(31);
    for (let n = 0; n < 20; n++) {
      const a = Math.floor(next() * whole.length);
      const b = Math.min(whole.length - 1, a + Math.floor(next() * 60_000));
      const response = await archive(auth, collection.id, { Range: `bytes=${a}-${b}` });
      expect(response.status, `bytes=${a}-${b}`).toBe(206);
      expect(response.headers.get('content-range')).toBe(`bytes ${a}-${b}/${whole.length}`);
      expect(response.headers.get('content-length')).toBe(String(b - a + 1));
      expect(sameBytes(await bytesOf(response), whole.subarray(a, b + 1)), `bytes=${a}-${b}`).toBe(true);
    }
    const suffix = await archive(auth, collection.id, { Range: 'bytes=-100' });
    expect(sameBytes(await bytesOf(suffix), whole.subarray(whole.length - 100))).toBe(true);
    const open = await archive(auth, collection.id, { Range: 'bytes=12345-' });
    expect(sameBytes(await bytesOf(open), whole.subarray(12345))).toBe(true);
  });

  it('answers 416 with Content-Range for a range past the end', async () => {
    const { auth, collection } = await collectionOf([{ name: 'a.bin', size: 10 }]);
    const length = Number((await archive(auth, collection.id, {}, 'HEAD')).headers.get('content-length'));
    const response = await archive(auth, collection.id, { Range: `bytes=${length}-` });
    await expectError(response, 416, 'RANGE_NOT_SATISFIABLE', 'v2');
    expect(response.headers.get('content-range')).toBe(`bytes */${length}`);
  });

  it('honours If-Range: the current ETag gives the range, a stale one the whole archive', async () => {
    const { auth, collection, members } = await collectionOf(FILES.slice(0, 2));
    const whole = await archive(auth, collection.id);
    const etag = whole.headers.get('etag') ?? '';
    const bytes = await bytesOf(whole);
    const current = await archive(auth, collection.id, { Range: 'bytes=100-199', 'If-Range': etag });
    expect(current.status).toBe(206);
    expect(sameBytes(await bytesOf(current), bytes.subarray(100, 200))).toBe(true);
    const stale = await archive(auth, collection.id, { Range: 'bytes=100-199', 'If-Range': '"stale"' });
    expect(stale.status).toBe(200);
    expect(sameBytes(await bytesOf(stale), bytes)).toBe(true);
    // After a change, the ETag a client kept is stale too.
    await call(`/api/v2/collections/${collection.id}/files/${members[0]?.id}`, { method: 'DELETE', headers: auth });
    const changed = await archive(auth, collection.id, { Range: 'bytes=0-9', 'If-Range': etag });
    expect(changed.status).toBe(200);
    expectMembers(await bytesOf(changed), members.slice(1));
  });

  it('answers 304 to If-None-Match with the ETag (also weak or in a list), without a body', async () => {
    const { auth, collection } = await collectionOf(FILES.slice(0, 2));
    const etag = (await archive(auth, collection.id, {}, 'HEAD')).headers.get('etag') ?? '';
    for (const header of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const response = await archive(auth, collection.id, { 'If-None-Match': header });
      expect(response.status, header).toBe(304);
      expect(response.headers.get('etag')).toBe(etag);
      expect(await response.text()).toBe('');
    }
    expect((await archive(auth, collection.id, { 'If-None-Match': '"other"' })).status).toBe(200);
  });

  it('answers HEAD with the GET’s headers and no body', async () => {
    const { auth, collection } = await collectionOf(FILES.slice(0, 2));
    const get = await archive(auth, collection.id);
    const length = (await bytesOf(get)).length;
    const head = await archive(auth, collection.id, {}, 'HEAD');
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    for (const name of ['content-type', 'content-disposition', 'etag', 'last-modified', 'accept-ranges']) {
      expect(head.headers.get(name), name).toBe(get.headers.get(name));
    }
    expect(head.headers.get('content-length')).toBe(String(length));
  });

  it('resumes a download cut in half: the two parts hash to the unbroken archive’s SHA-256', async () => {
    const { auth, collection } = await collectionOf(FILES);
    const unbroken = await bytesOf(await archive(auth, collection.id));
    const first = await archive(auth, collection.id);
    const etag = first.headers.get('etag') ?? '';
    const reader = (first.body as ReadableStream<Uint8Array>).getReader();
    const parts: Uint8Array[] = [];
    let received = 0;
    while (received < unbroken.length / 2) {
      const { value, done } = await reader.read();
      if (done) break;
      parts.push(value);
      received += value.byteLength;
    }
    await reader.cancel();
    expect(received).toBeLessThan(unbroken.length);
    // What curl -C - (or a browser) sends to resume.
    const rest = await archive(auth, collection.id, { Range: `bytes=${received}-`, 'If-Range': etag });
    expect(rest.status).toBe(206);
    parts.push(await bytesOf(rest));
    const joined = new Uint8Array(parts.reduce((sum, part) => sum + part.byteLength, 0));
    let at = 0;
    for (const part of parts) {
      joined.set(part, at);
      at += part.byteLength;
    }
    expect(await sha256Hex(joined)).toBe(await sha256Hex(unbroken));
  });

  it('answers an empty collection with a valid empty archive', async () => {
    const owner = await account();
    const made = await makeCollection(owner.auth, { name: 'nothing yet' });
    const response = await archive(owner.auth, made.id);
    expect(response.status).toBe(200);
    const body = await bytesOf(response);
    expect(body.length).toBe(22);
    expect(response.headers.get('content-length')).toBe('22');
    expect(response.headers.get('accept-ranges')).toBe('bytes');
    expect(readArchive(body).entries).toEqual([]);
  });

  it('answers 404 COLLECTION_NOT_FOUND for an unknown or malformed id', async () => {
    const { auth } = await account();
    for (const id of [`col_${'B'.repeat(22)}`, 'x']) {
      await expectError(await archive(auth, id), 404, 'COLLECTION_NOT_FOUND', 'v2');
    }
  });
});

describe('the archive’s ETag', () => {
  it('changes exactly when the archive’s bytes would: a member added, removed, renamed, deleted or expired', async () => {
    const { auth, collection, members } = await collectionOf(FILES.slice(0, 3));
    const extra = await uploadFile(auth, 'extra.txt', 'extra bytes');
    const seen = new Map<string, string>();
    const state = async (step: string) => {
      const response = await archive(auth, collection.id);
      const etag = response.headers.get('etag') ?? '';
      const digest = await sha256Hex(await bytesOf(response));
      // The same ETag always means the same bytes, and the same bytes the same ETag.
      for (const [other, otherDigest] of seen) expect(other === etag, step).toBe(otherDigest === digest);
      seen.set(etag, digest);
      return etag;
    };
    const patch = (path: string, body: unknown) => call(path, json(body, auth, 'PATCH'));
    const start = await state('start');
    // Neither the collection's name or note, nor a member's other fields, is in the bytes.
    await patch(`/api/v2/collections/${collection.id}`, { name: 'renamed', note: 'a note' });
    await patch(`/api/v2/files/${members[0]?.id}`, { isPublic: false });
    expect(await state('collection renamed')).toBe(start);
    await addFiles(auth, collection.id, [extra.id]);
    const added = await state('added');
    expect(added).not.toBe(start);
    await call(`/api/v2/collections/${collection.id}/files/${extra.id}`, { method: 'DELETE', headers: auth });
    expect(await state('removed')).toBe(start);
    await patch(`/api/v2/files/${members[1]?.id}`, { originalName: 'renamed.txt' });
    const renamed = await state('member renamed');
    expect(renamed).not.toBe(start);
    await call(`/api/v2/files/${members[1]?.id}`, { method: 'DELETE', headers: auth });
    const deleted = await state('member deleted');
    expect(deleted).not.toBe(renamed);
    await expireFile(members[0]?.id ?? '');
    const expired = await state('member expired');
    expect(expired).not.toBe(deleted);
    expect(seen.size).toBe(5);
  });

  it('moves Last-Modified when a member joins or leaves', async () => {
    const { auth, collection, members } = await collectionOf(FILES.slice(0, 2));
    const before = Date.parse((await archive(auth, collection.id, {}, 'HEAD')).headers.get('last-modified') ?? '');
    await new Promise((resolve) => setTimeout(resolve, 1100));
    await call(`/api/v2/files/${members[0]?.id}`, { method: 'DELETE', headers: auth });
    const after = Date.parse((await archive(auth, collection.id, {}, 'HEAD')).headers.get('last-modified') ?? '');
    expect(after).toBeGreaterThan(before);
  });
});

describe('while a member’s CRC-32 is unknown', () => {
  it('streams with data descriptors: exact Content-Length, Accept-Ranges: none, a weak ETag, a valid archive', async () => {
    const { auth, collection, members } = await collectionOf([
      { name: 'known.bin', size: 3000 },
      { name: 'unknown.bin', size: 9000, crc: false },
      { name: 'empty-unknown.bin', size: 0, crc: false },
    ]);
    const response = await archive(auth, collection.id);
    expect(response.status).toBe(200);
    const body = await bytesOf(response);
    expect(response.headers.get('content-length')).toBe(String(body.length));
    expect(response.headers.get('accept-ranges')).toBe('none');
    const etag = response.headers.get('etag') ?? '';
    expect(etag).toMatch(/^W\/"[0-9a-f]{64}"$/);
    expectMembers(body, members, [1, 2]);
    // A range is not served (its bytes would depend on reading what comes before): the whole archive.
    const ranged = await archive(auth, collection.id, { Range: 'bytes=0-99', 'If-Range': etag });
    expect(ranged.status).toBe(200);
    expect(sameBytes(await bytesOf(ranged), body)).toBe(true);
    expect((await archive(auth, collection.id, { 'If-None-Match': etag })).status).toBe(304);
    // Once maintenance gives it its CRC-32, the archive becomes rangeable (and its ETag strong).
    await setCrc(members[1]?.id ?? '', crc32(members[1]?.bytes ?? new Uint8Array()));
    await setCrc(members[2]?.id ?? '', 0);
    const known = await archive(auth, collection.id, {}, 'HEAD');
    expect(known.headers.get('accept-ranges')).toBe('bytes');
    expect(known.headers.get('etag')).toMatch(/^"/);
  });
});

describe('reading from R2', () => {
  /** An R2 bucket that logs every get (the member reads), and otherwise is the real one. */
  function loggingBucket() {
    const gets: { key: string; range?: unknown }[] = [];
    const bucket = new Proxy(env.FILES, {
      get(target, property) {
        const value = Reflect.get(target, property, target);
        if (property !== 'get' || typeof value !== 'function') {
          return typeof value === 'function' ? value.bind(target) : value;
        }
        return (key: string, options?: R2GetOptions) => {
          gets.push({ key, range: options?.range });
          return value.call(target, key, options);
        };
      },
    });
    return { bucket, gets };
  }

  it('streams: nothing is read before the client reads, and each member once, in order', async () => {
    const { auth, collection, members } = await collectionOf(FILES);
    const { bucket, gets } = loggingBucket();
    // HEAD reads nothing at all.
    expect((await archive(auth, collection.id, {}, 'HEAD', { FILES: bucket })).status).toBe(200);
    const response = await archive(auth, collection.id, {}, 'GET', { FILES: bucket });
    expect(response.status).toBe(200);
    expect(gets).toEqual([]);
    expectMembers(await bytesOf(response), members);
    // The empty member is never read.
    expect(gets).toHaveLength(3);
    const rows = await env.DB.prepare(`SELECT id, r2_key FROM files WHERE id IN (${members.map(() => '?').join(', ')})`)
      .bind(...members.map((member) => member.id))
      .all<{ id: string; r2_key: string }>();
    const keyOf = new Map(rows.results.map((row) => [row.id, row.r2_key]));
    expect(gets.map((get) => get.key)).toEqual(
      members.filter((member) => member.bytes.length > 0).map((member) => keyOf.get(member.id)),
    );
  });

  it('reads only the members a range touches, and only their touched bytes', async () => {
    const { auth, collection, members } = await collectionOf(FILES);
    const whole = await bytesOf(await archive(auth, collection.id));
    const second = readArchive(whole).members[1];
    const dataAt = (second?.entry.headerOffset ?? 0) + (second?.local.length ?? 0);
    const { bucket, gets } = loggingBucket();
    const response = await archive(auth, collection.id, { Range: `bytes=${dataAt + 10}-${dataAt + 19}` }, 'GET', {
      FILES: bucket,
    });
    expect(response.status).toBe(206);
    expect(sameBytes(await bytesOf(response), (members[1]?.bytes ?? new Uint8Array()).subarray(10, 20))).toBe(true);
    expect(gets).toHaveLength(1);
    expect(gets[0]?.range).toEqual({ offset: 10, length: 10 });
  });

  it('refuses, before any read, an archive or range that would pass SUBREQUEST_BUDGET: 400 TOO_MANY_FILES', async () => {
    const { auth, collection } = await collectionOf(FILES);
    const { bucket, gets } = loggingBucket();
    // 3 member reads + 10 for the request itself: 12 is one short.
    const budget = { FILES: bucket, SUBREQUEST_BUDGET: '12' };
    const refused = await archive(auth, collection.id, {}, 'GET', budget);
    const error = await expectError(refused, 400, 'TOO_MANY_FILES', 'v2');
    expect(error.error).toContain('SUBREQUEST_BUDGET');
    expect((await archive(auth, collection.id, {}, 'HEAD', budget)).status).toBe(400);
    expect(gets).toEqual([]);
    // A range touching fewer members fits; so does the whole archive under a budget of 13.
    const range = await archive(auth, collection.id, { Range: 'bytes=0-99' }, 'GET', budget);
    expect(range.status).toBe(206);
    await range.arrayBuffer();
    const fits = await archive(auth, collection.id, {}, 'GET', { SUBREQUEST_BUDGET: '13' });
    expect(fits.status).toBe(200);
    await fits.arrayBuffer();
  });

  it('reads a member stored in segments (a tus concatenation) one segment after another', async () => {
    const owner = await account('segments');
    const plain = await uploadFile(owner.auth, 'plain.txt', 'plain bytes');
    const parts = [content(7, 3000), content(8, 5000), content(9, 1)];
    const whole = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
    let at = 0;
    for (const part of parts) {
      whole.set(part, at);
      at += part.length;
    }
    const fileId = 'SegmentedFileAAAAAAAAA';
    const now = new Date().toISOString();
    const statements = [
      env.DB.prepare(
        `INSERT INTO files (id, account_id, filename, original_name, size, mime_type, r2_key, etag, share_token,
           is_public, download_count, uploaded_at, updated_at, expires_at, crc32)
         VALUES (?1, ?2, 'joined.bin', 'joined.bin', ?3, 'application/octet-stream', ?4, '"x"', ?5, 1, 0, ?6, ?6, NULL, ?7)`,
      ).bind(fileId, owner.id, whole.length, `concat/${owner.id}/${fileId}`, 'S'.repeat(32), now, crc32(whole)),
    ];
    for (const [seq, part] of parts.entries()) {
      const key = `segments/${owner.id}/upload-${seq}`;
      await env.FILES.put(key, part);
      statements.push(
        env.DB.prepare(
          'INSERT INTO file_segments (file_id, seq, r2_key, size, upload_id, upload_url) VALUES (?1, ?2, ?3, ?4, ?5, ?6)',
        ).bind(fileId, seq, key, part.length, `upload-${seq}`, `/api/v2/uploads/upload-${seq}`),
      );
    }
    await env.DB.batch(statements);
    const made = await makeCollection(owner.auth, { name: 'joined', fileIds: [plain.id, fileId] });
    const members = [
      { name: 'plain.txt', bytes: plain.bytes },
      { name: 'joined.bin', bytes: whole },
    ];
    const body = await bytesOf(await archive(owner.auth, made.id));
    const parsed = expectMembers(body, members);
    // A range across the segment boundary, and the budget counting each segment as one read.
    const joined = parsed.members[1];
    const dataAt = (joined?.entry.headerOffset ?? 0) + (joined?.local.length ?? 0);
    const span = await archive(owner.auth, made.id, { Range: `bytes=${dataAt + 2990}-${dataAt + 3009}` });
    expect(sameBytes(await bytesOf(span), whole.subarray(2990, 3010))).toBe(true);
    await expectError(
      await archive(owner.auth, made.id, {}, 'GET', { SUBREQUEST_BUDGET: '13' }),
      400,
      'TOO_MANY_FILES',
    );
    const fits = await archive(owner.auth, made.id, {}, 'GET', { SUBREQUEST_BUDGET: '14' });
    expect(fits.status).toBe(200);
    await fits.arrayBuffer();
  });

  it('breaks the stream off (never a wrong archive) when a member’s bytes are missing', async () => {
    const { auth, collection, members } = await collectionOf(FILES.slice(0, 2));
    const row = await env.DB.prepare('SELECT r2_key FROM files WHERE id = ?1')
      .bind(members[1]?.id)
      .first<{ r2_key: string }>();
    await env.FILES.delete(row?.r2_key ?? '');
    const response = await archive(auth, collection.id);
    expect(response.status).toBe(200);
    await expect(response.arrayBuffer()).rejects.toThrow();
  });
});
