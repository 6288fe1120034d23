// The checksum extension: Upload-Checksum verified over the PATCH's bytes as they stream
// (crypto.DigestStream); a mismatch is 460 and none of the PATCH's bytes count.
import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../helpers/digests';
import { expectError } from '../helpers/responses';
import {
  binaryBytes,
  created,
  createUpload,
  digestBase64,
  MIB,
  newKey,
  offsetOf,
  patch,
  tailObjects,
} from '../helpers/tus';
import { call } from '../helpers/worker';

const text = (value: string) => new TextEncoder().encode(value);

describe('Upload-Checksum', () => {
  it.each([
    ['sha1', 'SHA-1'],
    ['sha256', 'SHA-256'],
    ['sha384', 'SHA-384'],
    ['sha512', 'SHA-512'],
    ['md5', 'MD5'],
  ])('accepts a PATCH whose %s matches (every algorithm advertised)', async (algorithm, webCrypto) => {
    const { auth } = await newKey(`checksum ${algorithm}`);
    const bytes = text('hello world');
    const { path } = await created(auth, 20, { filename: 'a.txt' });
    const digest = await digestBase64(webCrypto, bytes);
    const response = await patch(auth, path, 0, bytes, { 'Upload-Checksum': `${algorithm} ${digest}` });
    expect(response.status).toBe(204);
    expect(response.headers.get('upload-offset')).toBe('11');
  });

  it('matches the spec’s own example (sha1 of "hello world")', async () => {
    const { auth } = await newKey('spec example');
    const { path } = await created(auth, 11, { filename: 'a.txt' });
    const response = await patch(auth, path, 0, 'hello world', {
      'Upload-Checksum': 'sha1 Kq5sNclPz7QV2+lfQIuc6R7oRu0=',
    });
    expect(response.status).toBe(204);
  });

  it('answers 460 on a mismatch and keeps none of the bytes: offset unchanged, no tail', async () => {
    const { auth } = await newKey('mismatch');
    const { path, id } = await created(auth, 20, { filename: 'a.txt' });
    const wrong = await digestBase64('SHA-256', text('something else'));
    const response = await patch(auth, path, 0, text('hello world'), { 'Upload-Checksum': `sha256 ${wrong}` });
    await expectError(response, 460, 'CHECKSUM_MISMATCH');
    expect(await offsetOf(auth, path)).toBe(0);
    expect(await tailObjects(id)).toEqual([]);
    // The same bytes with the right checksum go through.
    const right = await digestBase64('SHA-256', text('hello world'));
    expect((await patch(auth, path, 0, text('hello world'), { 'Upload-Checksum': `sha256 ${right}` })).status).toBe(
      204,
    );
  });

  it('discards a mismatched PATCH even after it filled whole parts, and the file is right once resent', async () => {
    const { auth } = await newKey('mismatch after parts');
    const bytes = binaryBytes(20 * MIB, 31);
    const { path, id } = await created(auth, bytes.length, { filename: 'big.bin' });
    const first = bytes.slice(0, 17 * MIB);
    // A checksum of other bytes: the two 8 MiB parts this PATCH uploads must not count.
    const wrong = await digestBase64('SHA-256', binaryBytes(17 * MIB, 32));
    await expectError(
      await patch(auth, path, 0, first, { 'Upload-Checksum': `sha256 ${wrong}` }),
      460,
      'CHECKSUM_MISMATCH',
    );
    expect(await offsetOf(auth, path)).toBe(0);

    const right = await digestBase64('SHA-256', first);
    expect((await patch(auth, path, 0, first, { 'Upload-Checksum': `sha256 ${right}` })).status).toBe(204);
    const last = await patch(auth, path, 17 * MIB, bytes.slice(17 * MIB));
    expect(last.headers.get('x-file-id')).toBe(id);
    const download = await call(`/api/v2/files/${id}/download`, { headers: auth });
    expect(await sha256Hex(await download.arrayBuffer())).toBe(await sha256Hex(bytes));
  });

  it('checks a checksum sent with creation-with-upload', async () => {
    const { auth } = await newKey('checksum at creation');
    const wrong = await digestBase64('SHA-1', text('nope'));
    const { response } = await createUpload(
      auth,
      5,
      { filename: 'a.txt' },
      {
        body: 'hello',
        headers: { 'Upload-Checksum': `sha1 ${wrong}` },
      },
    );
    await expectError(response, 460, 'CHECKSUM_MISMATCH');
    // The upload exists (its Location says where) and is still at offset 0.
    const location = new URL(response.headers.get('location') ?? '').pathname;
    expect(await offsetOf(auth, location)).toBe(0);
  });

  it.each([
    ['an unsupported algorithm', 'crc32 AAAAAA=='],
    ['an uppercase name', 'SHA1 Kq5sNclPz7QV2+lfQIuc6R7oRu0='],
    ['no digest', 'sha1'],
    ['a digest that is not Base64', 'sha1 not*base64'],
  ])('answers 400 for %s, keeping nothing', async (_name, header) => {
    const { auth } = await newKey('bad checksum header');
    const { path } = await created(auth, 11, { filename: 'a.txt' });
    const response = await patch(auth, path, 0, 'hello world', { 'Upload-Checksum': header });
    const body = await expectError(response, 400, 'VALIDATION_ERROR');
    expect(body.details?.[0]?.field).toBe('Upload-Checksum');
    expect(await offsetOf(auth, path)).toBe(0);
  });
});
