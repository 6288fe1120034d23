import { describe, expect, it } from 'vitest';
import { fromHex, toBase64, toHex } from '../../src/lib/encoding';
import { Sha256 } from '../../src/lib/sha256';

const encoder = new TextEncoder();

async function webCrypto(bytes: Uint8Array): Promise<string> {
  return toHex(new Uint8Array(await crypto.subtle.digest('SHA-256', bytes)));
}

/** Deterministic bytes (no two runs differ, every byte value appears). */
function pattern(length: number, seed = 7): Uint8Array {
  const out = new Uint8Array(length);
  let x = seed;
  for (let i = 0; i < length; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    out[i] = x >>> 24;
  }
  return out;
}

describe('Sha256', () => {
  it('matches the FIPS 180-4 vectors, the empty input included', () => {
    const hex = (text: string) => toHex(new Sha256().update(encoder.encode(text)).digest());
    expect(hex('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(hex('abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq')).toBe(
      '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1',
    );
  });

  it('matches WebCrypto at every length around the block and padding edges', async () => {
    for (const length of [1, 55, 56, 57, 63, 64, 65, 119, 120, 127, 128, 129, 1000, 4096 + 3]) {
      const bytes = pattern(length, length);
      expect(toHex(new Sha256().update(bytes).digest()), `length ${length}`).toBe(await webCrypto(bytes));
    }
  });

  it('gives the same digest however the bytes are split into chunks', async () => {
    const bytes = pattern(300_001);
    const expected = await webCrypto(bytes);
    for (const sizes of [[1], [63], [64], [65], [1, 2, 3, 5, 8, 13, 21, 34, 55, 89], [65_536], [100_000, 7]]) {
      const hash = new Sha256();
      let offset = 0;
      for (let i = 0; offset < bytes.length; i++) {
        const size = sizes[i % sizes.length] ?? 1;
        hash.update(bytes.subarray(offset, offset + size));
        offset += size;
      }
      expect(toHex(hash.digest()), `chunks of ${sizes.join(',')}`).toBe(expected);
    }
  });

  it('hashes empty chunks as nothing', async () => {
    const hash = new Sha256().update(new Uint8Array(0)).update(encoder.encode('abc')).update(new Uint8Array(0));
    expect(toHex(hash.digest())).toBe(await webCrypto(encoder.encode('abc')));
  });

  it('continues from a saved state through JSON, at odd boundaries', async () => {
    const bytes = pattern(200_000, 3);
    const expected = await webCrypto(bytes);
    for (const cut of [0, 1, 63, 64, 65, 1000, 131_071, 199_999, 200_000]) {
      const first = new Sha256().update(bytes.subarray(0, cut));
      const saved = JSON.parse(JSON.stringify(first.save()));
      const resumed = Sha256.restore(saved).update(bytes.subarray(cut));
      expect(resumed.length).toBe(bytes.length);
      expect(toHex(resumed.digest()), `cut at ${cut}`).toBe(expected);
      // Saving does not disturb the hash it was taken from.
      expect(toHex(first.update(bytes.subarray(cut)).digest())).toBe(expected);
    }
  });

  it('continues a state saved by the earlier (rolled-loop) implementation: uploads in flight keep theirs', async () => {
    // Saved after the first 700 of these 1000 bytes by the code before the unrolled rounds.
    const saved = {
      h: [-1955725324, -1627122323, 1182410473, -224462918, 1623327078, -1538060643, 1628477441, -1305685249],
      length: 700,
      buffer: 'Bj+4mKk2oKRSBdS8qKaXGuPnkuH1KJ5qOjXL9NAc330iMj+4cQOqX6goMZl32YbUmJtcEXtGntiEiTjD',
    };
    const bytes = pattern(1000, 11);
    expect(new Sha256().update(bytes.subarray(0, 700)).save()).toEqual(saved);
    expect(toHex(Sha256.restore(saved).update(bytes.subarray(700)).digest())).toBe(await webCrypto(bytes));
  });

  it('matches WebCrypto over megabytes fed in uneven chunks from unaligned views', async () => {
    // Blocks are read straight from the input: views at odd offsets into a larger buffer.
    const backing = pattern(3 * 1024 * 1024 + 4099, 5);
    const bytes = backing.subarray(3, backing.length - 1);
    const hash = new Sha256();
    for (let offset = 0, i = 0; offset < bytes.length; i++) {
      const size = [65_537, 1, 1_048_576, 63, 4096 + 5][i % 5] ?? 1;
      hash.update(bytes.subarray(offset, offset + size));
      offset += size;
    }
    expect(toHex(hash.digest())).toBe(await webCrypto(bytes));
  });

  it('refuses a state that cannot be one', () => {
    const good = new Sha256().update(pattern(70)).save();
    expect(() => Sha256.restore({ ...good, h: good.h.slice(1) })).toThrow();
    expect(() => Sha256.restore({ ...good, length: 71 })).toThrow();
    expect(() => Sha256.restore({ ...good, buffer: toBase64(pattern(64)) })).toThrow();
  });

  it('cannot be used after its digest', () => {
    const hash = new Sha256();
    hash.digest();
    expect(() => hash.update(pattern(1))).toThrow();
    expect(() => hash.digest()).toThrow();
  });

  it('converts hex and base64 both ways', () => {
    const digest = new Sha256().update(encoder.encode('abc')).digest();
    expect(fromHex(toHex(digest))).toEqual(digest);
    expect(toBase64(digest)).toBe('ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0=');
  });
});
