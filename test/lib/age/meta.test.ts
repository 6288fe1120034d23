// edgeshare's `meta`: sealed under HKDF(file key, "", "edgeshare/v1/meta") with ChaCha20-Poly1305,
// base64url; opens with the file key only, refuses anything altered, stays within 4 KiB.
import { chacha20poly1305 } from '@noble/ciphers/chacha.js';
import { base64urlnopad } from '@scure/base';
import { describe, expect, it } from 'vitest';
import { type FileMeta, META_MAX_LENGTH, newFileKey, openMeta, sealMeta } from '../../../src/lib/age/index';

const meta: FileMeta = {
  name: 'Relevé de compte — 2026 🧾.pdf',
  type: 'application/pdf',
  size: 123_456_789,
  sha256: 'ab'.repeat(32),
};

describe('sealMeta and openMeta', () => {
  it('open with the file key to what was sealed, a different string each time', () => {
    const fileKey = newFileKey();
    const [a, b] = [sealMeta(fileKey, meta), sealMeta(fileKey, meta)];
    expect(a).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(a).not.toBe(b);
    expect(openMeta(fileKey, a)).toEqual(meta);
    expect(openMeta(fileKey, b)).toEqual(meta);
  });

  it('is the documented construction: Web Crypto’s HKDF key opens it to the JSON of the four fields', async () => {
    const fileKey = newFileKey();
    const bytes = base64urlnopad.decode(sealMeta(fileKey, meta));
    const ikm = await crypto.subtle.importKey('raw', fileKey, 'HKDF', false, ['deriveBits']);
    const info = new TextEncoder().encode('edgeshare/v1/meta');
    const bits = await crypto.subtle.deriveBits(
      { name: 'HKDF', hash: 'SHA-256', salt: new Uint8Array(0), info },
      ikm,
      256,
    );
    const json = chacha20poly1305(new Uint8Array(bits), bytes.subarray(0, 12)).decrypt(bytes.subarray(12));
    expect(new TextDecoder().decode(json)).toBe(JSON.stringify(meta));
  });

  it('refuses another file’s key, an altered byte, and what is not base64url', () => {
    const fileKey = newFileKey();
    const sealed = sealMeta(fileKey, meta);
    expect(() => openMeta(newFileKey(), sealed)).toThrow(expect.objectContaining({ kind: 'meta' }));
    const bytes = base64urlnopad.decode(sealed);
    bytes[20] = (bytes[20] ?? 0) ^ 1;
    expect(() => openMeta(fileKey, base64urlnopad.encode(bytes))).toThrow(/does not open/);
    expect(() => openMeta(fileKey, `${sealed}=`)).toThrow(/base64url/);
    expect(() => openMeta(fileKey, 'AAAA')).toThrow(/shorter/);
  });

  it('refuses a sealed value that is not the four fields', () => {
    const fileKey = newFileKey();
    expect(() => sealMeta(fileKey, { ...meta, size: -1 })).toThrow(RangeError);
    expect(() => sealMeta(fileKey, { ...meta, sha256: 'AB'.repeat(32) })).toThrow(RangeError);
  });

  it(`stays within ${META_MAX_LENGTH} characters, refusing a name that would not`, () => {
    const fileKey = newFileKey();
    const long = sealMeta(fileKey, { ...meta, name: 'n'.repeat(2800) });
    expect(long.length).toBeLessThanOrEqual(META_MAX_LENGTH);
    expect(() => sealMeta(fileKey, { ...meta, name: 'n'.repeat(3100) })).toThrow(/at most 4096/);
    expect(() => openMeta(fileKey, 'A'.repeat(META_MAX_LENGTH + 4))).toThrow(/at most 4096/);
  });
});
