// PATCH /api/v2/files/{id}: visibility, name and expiry of a file its owner keeps.
import { env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { expectPerfValue, getRecord, tokenOf, unknownId } from '../helpers/files';
import type { FileRecordV2 } from '../helpers/records';
import { expectError, json } from '../helpers/responses';
import { liveRows, sweepAt, usage } from '../helpers/storage';
import { type Auth, textFile, uploadOk } from '../helpers/upload';
import { call, createKey, ORIGIN } from '../helpers/worker';

const HOUR = 60 * 60 * 1000;

function patch(auth: Auth, id: string, body: unknown, headers: Record<string, string> = {}, version = 'v2') {
  return call(`/api/${version}/files/${id}`, {
    method: 'PATCH',
    headers: { ...auth, 'Content-Type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/** PATCHes and returns the record; fails the test unless 200. */
async function patchOk(auth: Auth, id: string, body: unknown): Promise<FileRecordV2> {
  const response = await patch(auth, id, body);
  const result = await json<{ success: boolean; data: FileRecordV2 }>(response);
  expect(response.status, JSON.stringify(result)).toBe(200);
  expectPerfValue(result);
  expect(result.success).toBe(true);
  return result.data;
}

async function keyAndFile(fields: Record<string, string> = {}, name = 'notes.txt') {
  const key = await createKey('patch', { rateLimitRequests: 10_000 });
  const file = await uploadOk('v2', key.auth, textFile(name), { fields: fields });
  return { ...key, file };
}

/** The fields fixed at upload: a PATCH never changes them. */
const fixed = (record: FileRecordV2) => {
  const { isPublic: _p, originalName: _n, expiresAt: _e, updatedAt: _u, ...rest } = record;
  return rest;
};

const shareDownload = (shareUrl: string) => call(`/share/${tokenOf(shareUrl)}/download`);

describe('PATCH /api/v2/files/{id}', () => {
  it('makes a file private: its share link (page and download) answers 404 at once; the owner still downloads', async () => {
    const { auth, file } = await keyAndFile();
    expect((await shareDownload(file.shareUrl)).status).toBe(200);
    const before = await getRecord(auth, file.id, 'v2');

    const record = await patchOk(auth, file.id, { isPublic: false });
    expect(record.isPublic).toBe(false);
    expect(fixed(record)).toEqual(fixed(before));
    expect((await shareDownload(file.shareUrl)).status).toBe(404);
    expect((await call(`/share/${tokenOf(file.shareUrl)}`)).status).toBe(404);
    expect((await call(`/api/v2/files/${file.id}/download`, { headers: auth })).status).toBe(200);

    expect((await patchOk(auth, file.id, { isPublic: true })).isPublic).toBe(true);
    expect((await shareDownload(file.shareUrl)).status).toBe(200);
  });

  it('returns the v2 record exactly as GET then shows it, with a later updatedAt and the same uploadedAt', async () => {
    const { auth, file } = await keyAndFile();
    const before = await getRecord(auth, file.id, 'v2');
    await new Promise((resolve) => setTimeout(resolve, 5));
    const record = await patchOk(auth, file.id, { isPublic: true });
    expect(record).toEqual(await getRecord(auth, file.id, 'v2'));
    expect(Date.parse(record.updatedAt)).toBeGreaterThan(Date.parse(before.updatedAt));
    expect(record.uploadedAt).toBe(before.uploadedAt);
    expect(record.downloadUrl).toBe(`${ORIGIN}/api/v2/files/${file.id}/download`);
  });

  it('renames a file: downloads carry the new name, the stored filename stays', async () => {
    const { auth, file } = await keyAndFile();
    const record = await patchOk(auth, file.id, { originalName: 'Résumé 2026.txt' });
    expect(record.originalName).toBe('Résumé 2026.txt');
    expect(record.filename).toBe(file.filename);
    const download = await call(`/api/v2/files/${file.id}/download`, { headers: auth });
    expect(download.headers.get('content-disposition')).toBe(
      `attachment; filename="Resume 2026.txt"; filename*=UTF-8''R%C3%A9sum%C3%A9%202026.txt`,
    );
    await download.arrayBuffer();
    const share = await shareDownload(file.shareUrl);
    expect(share.headers.get('content-disposition')).toContain("filename*=UTF-8''R%C3%A9sum%C3%A9%202026.txt");
    await share.arrayBuffer();
  });

  it('cleans a new name as an upload does: path parts and control characters go, 255 bytes at most', async () => {
    const { auth, file } = await keyAndFile();
    expect((await patchOk(auth, file.id, { originalName: 'C:\\temp\\..\\a\u0000b\u202e.txt ' })).originalName).toBe(
      'ab.txt',
    );
    const long = `${'é'.repeat(200)}.txt`;
    const shortened = (await patchOk(auth, file.id, { originalName: long })).originalName;
    expect(new TextEncoder().encode(shortened).length).toBeLessThanOrEqual(255);
    expect(shortened.endsWith('.txt')).toBe(true);
  });

  it.each([
    ['an empty name', ''],
    ['only a path', 'dir/'],
    ['only control characters', '\u0001\u0002'],
    ['a dot-dot', '..'],
  ])('answers 400 VALIDATION_ERROR naming originalName for %s', async (_case, originalName) => {
    const { auth, file } = await keyAndFile();
    const body = await expectError(await patch(auth, file.id, { originalName }), 400, 'VALIDATION_ERROR');
    expect(body.details?.map((detail) => detail.field)).toEqual(['originalName']);
    expect((await getRecord(auth, file.id, 'v2')).originalName).toBe('notes.txt');
  });

  it('refuses a name that runs when opened, as an upload would: 415 INVALID_FILE_TYPE, nothing changed', async () => {
    const { auth, file } = await keyAndFile();
    for (const originalName of ['invoice.pdf.exe', 'setup.MSI', 'run.sh. ']) {
      await expectError(await patch(auth, file.id, { originalName, isPublic: false }), 415, 'INVALID_FILE_TYPE');
    }
    const record = await getRecord(auth, file.id, 'v2');
    expect({ name: record.originalName, isPublic: record.isPublic }).toEqual({ name: 'notes.txt', isPublic: true });
  });

  it('sets the expiry from expiresIn (seconds from now), as an upload does', async () => {
    const { auth, file } = await keyAndFile();
    const before = Date.now();
    const record = await patchOk(auth, file.id, { expiresIn: 3600 });
    const expiresAt = Date.parse(record.expiresAt ?? '');
    expect(expiresAt).toBeGreaterThanOrEqual(before + 3600_000);
    expect(expiresAt).toBeLessThanOrEqual(Date.now() + 3600_000);
  });

  it('sets the expiry from expiresAt (any time zone), stored as UTC with milliseconds', async () => {
    const { auth, file } = await keyAndFile();
    const at = new Date(Date.now() + 2 * HOUR);
    at.setUTCMilliseconds(0);
    // The same instant, written two hours ahead of UTC.
    const local = new Date(at.getTime() + 2 * HOUR).toISOString().replace('.000Z', '+02:00');
    const record = await patchOk(auth, file.id, { expiresAt: local });
    expect(record.expiresAt).toBe(at.toISOString());
  });

  it.each([
    ['expiresAt', null],
    ['expiresIn', null],
  ])('clears the expiry with %s: null', async (field, value) => {
    const { auth, file } = await keyAndFile({ expiresIn: '3600' });
    expect((await getRecord(auth, file.id, 'v2')).expiresAt).not.toBeNull();
    expect((await patchOk(auth, file.id, { [field]: value })).expiresAt).toBeNull();
    expect((await getRecord(auth, file.id, 'v2')).expiresAt).toBeNull();
  });

  it.each([
    ['an expiry in the past', { expiresAt: new Date(Date.now() - 1000).toISOString() }, 'expiresAt'],
    ['a date long past', { expiresAt: '2020-01-01T00:00:00Z' }, 'expiresAt'],
    ['an expiry over a year ahead', { expiresAt: new Date(Date.now() + 367 * 24 * HOUR).toISOString() }, 'expiresAt'],
    ['a date without a time zone', { expiresAt: '2030-01-01T00:00:00' }, 'expiresAt'],
    ['a date that is not one', { expiresAt: 'tomorrow' }, 'expiresAt'],
    ['expiresIn under 60', { expiresIn: 59 }, 'expiresIn'],
    ['expiresIn over a year', { expiresIn: 31_536_001 }, 'expiresIn'],
    ['a fractional expiresIn', { expiresIn: 60.5 }, 'expiresIn'],
    ['expiresIn as a string', { expiresIn: '3600' }, 'expiresIn'],
    ['both expiresAt and expiresIn', { expiresAt: null, expiresIn: 3600 }, 'expiresIn'],
    ['isPublic as a string', { isPublic: 'false' }, 'isPublic'],
    ['originalName as a number', { originalName: 7 }, 'originalName'],
    ['an unknown field', { isPublic: true, filename: 'x.txt' }, 'body'],
    ['nothing to change', {}, 'body'],
    ['an array', [], 'body'],
    ['null', null, 'body'],
  ])('answers 400 VALIDATION_ERROR for %s, naming the field, and changes nothing', async (_case, body, field) => {
    const { auth, file } = await keyAndFile();
    const before = await getRecord(auth, file.id, 'v2');
    const error = await expectError(await patch(auth, file.id, body), 400, 'VALIDATION_ERROR');
    expect(error.details?.map((detail) => detail.field)).toContain(field);
    expect(await getRecord(auth, file.id, 'v2')).toEqual(before);
  });

  it('answers 400 VALIDATION_ERROR for malformed JSON, a body of another type, and a body over 64 KiB', async () => {
    const { auth, file } = await keyAndFile();
    await expectError(await patch(auth, file.id, '{"isPublic": fal'), 400, 'VALIDATION_ERROR');
    await expectError(
      await patch(auth, file.id, '{"isPublic":false}', { 'Content-Type': 'text/plain' }),
      400,
      'VALIDATION_ERROR',
    );
    const huge = JSON.stringify({ originalName: 'x'.repeat(70_000) });
    await expectError(await patch(auth, file.id, huge), 400, 'VALIDATION_ERROR');
    expect((await getRecord(auth, file.id, 'v2')).isPublic).toBe(true);
  });

  it("answers 404 FILE_NOT_FOUND for another key's file, and leaves it alone", async () => {
    const { auth, file } = await keyAndFile();
    const other = await createKey('other');
    await expectError(await patch(other.auth, file.id, { isPublic: false }), 404, 'FILE_NOT_FOUND');
    expect((await getRecord(auth, file.id, 'v2')).isPublic).toBe(true);
    expect((await shareDownload(file.shareUrl)).status).toBe(200);
  });

  it('answers 404 FILE_NOT_FOUND for an unknown, a malformed and an expired id', async () => {
    const { auth, file } = await keyAndFile({ expiresIn: '60' });
    await expectError(await patch(auth, unknownId(), { isPublic: false }), 404, 'FILE_NOT_FOUND');
    await expectError(await patch(auth, 'nope', { isPublic: false }), 404, 'FILE_NOT_FOUND');
    await env.DB.prepare('UPDATE files SET expires_at = ?2 WHERE id = ?1')
      .bind(file.id, new Date(Date.now() - 1000).toISOString())
      .run();
    // An expired file cannot be brought back by clearing its expiry.
    await expectError(await patch(auth, file.id, { expiresAt: null }), 404, 'FILE_NOT_FOUND');
  });

  it('is v2 only: v1 answers 405 with Allow, and /files/bulk is never taken for an id', async () => {
    const { auth, file } = await keyAndFile();
    const v1 = await patch(auth, file.id, { isPublic: false }, {}, 'v1');
    await expectError(v1, 405, 'METHOD_NOT_ALLOWED');
    expect(v1.headers.get('allow')).toBe('GET, HEAD, DELETE');
    const bulk = await patch(auth, 'bulk', { isPublic: false });
    await expectError(bulk, 405, 'METHOD_NOT_ALLOWED');
    expect(bulk.headers.get('allow')).toBe('DELETE');
    const other = await call(`/api/v2/files/${file.id}`, { method: 'PUT', headers: auth });
    expect(other.headers.get('allow')).toBe('GET, HEAD, PATCH, DELETE');
    expect((await getRecord(auth, file.id, 'v2')).isPublic).toBe(true);
  });

  it('lets a browser send PATCH across origins (CORS preflight)', async () => {
    const response = await call('/api/v2/files/x', {
      method: 'OPTIONS',
      headers: {
        Origin: 'https://app.example',
        'Access-Control-Request-Method': 'PATCH',
        'Access-Control-Request-Headers': 'authorization, content-type',
      },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-methods') ?? '').toContain('PATCH');
  });
});

describe('an expiry change and the key’s account', () => {
  it('keeps counting a file whose expiry was cleared, past the time it would have expired', async () => {
    const { id, auth, file } = await keyAndFile({ expiresIn: '3600' });
    await patchOk(auth, file.id, { expiresAt: null });
    const later = Date.now() + 2 * HOUR;
    expect(await usage(id, later)).toMatchObject({ usedBytes: file.size, files: 1 });
    expect(await liveRows(id, later)).toEqual({ bytes: file.size, files: 1 });
  });

  it('lets a file go when its new expiry comes, not at its old one', async () => {
    const { id, auth, file } = await keyAndFile({ expiresIn: '7200' });
    await patchOk(auth, file.id, { expiresIn: 600 });
    const between = Date.now() + HOUR;
    expect(await liveRows(id, between)).toEqual({ bytes: 0, files: 0 });
    expect(await usage(id, between)).toMatchObject({ usedBytes: 0, files: 0 });
  });

  it('keeps the account equal to the live rows through several changes, and through the sweep', async () => {
    const key = await createKey('account', { rateLimitRequests: 10_000 });
    const kept = await uploadOk('v2', key.auth, textFile('kept.txt', 'k'.repeat(300)));
    const going = await uploadOk('v2', key.auth, textFile('going.txt', 'g'.repeat(500)));
    const changes: [string, unknown][] = [
      [kept.id, { expiresIn: 600 }],
      [kept.id, { expiresAt: new Date(Date.now() + 3 * HOUR).toISOString() }],
      [kept.id, { expiresIn: null }],
      [going.id, { expiresIn: 3600 }],
      [going.id, { expiresAt: new Date(Date.now() + 1800_000).toISOString() }],
    ];
    for (const [id, body] of changes) {
      await patchOk(key.auth, id, body);
      const live = await liveRows(key.id);
      expect(await usage(key.id)).toMatchObject({ usedBytes: live.bytes, files: live.files });
    }
    const later = Date.now() + 2 * HOUR;
    expect(await usage(key.id, later)).toMatchObject({ usedBytes: 300, files: 1 });
    // The sweep removes the expired row (it reads expires_at from D1) and takes nothing off twice.
    await sweepAt(later);
    expect((await env.DB.prepare('SELECT id FROM files WHERE account_id = ?1').bind(key.id).all()).results).toEqual([
      { id: kept.id },
    ]);
    expect(await usage(key.id, later)).toMatchObject({ usedBytes: 300, files: 1 });
  });
});
