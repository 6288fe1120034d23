import { describe, expect, it } from 'vitest';
import { fromBase64, fromBase64Url, fromHex, latin1Text, toBase64, toBase64Url, toHex } from '../../src/lib/encoding';

const bytes = (...values: number[]) => new Uint8Array(values);
const ascii = (text: string) => new TextEncoder().encode(text);
/** Every byte value once, and then some: a long input crosses fromCharCode's chunks. */
const every = Uint8Array.from({ length: 20_000 }, (_, i) => (i * 7) % 256);

// RFC 4648 §10's test vectors.
const VECTORS: [string, string, string][] = [
  ['', '', ''],
  ['f', 'Zg==', '66'],
  ['fo', 'Zm8=', '666f'],
  ['foo', 'Zm9v', '666f6f'],
  ['foob', 'Zm9vYg==', '666f6f62'],
  ['fooba', 'Zm9vYmE=', '666f6f6261'],
  ['foobar', 'Zm9vYmFy', '666f6f626172'],
];

describe('toHex', () => {
  it('writes two lowercase digits per byte', () => {
    for (const [text, , hex] of VECTORS) expect(toHex(ascii(text))).toBe(hex);
    expect(toHex(bytes(0, 1, 15, 16, 171, 255))).toBe('00010f10abff');
  });
});

describe('fromHex', () => {
  it('reads pairs of either case', () => {
    for (const [text, , hex] of VECTORS) expect(fromHex(hex)).toEqual(ascii(text));
    expect(fromHex('00010F10abFF')).toEqual(bytes(0, 1, 15, 16, 171, 255));
    expect(fromHex(toHex(every))).toEqual(every);
  });
});

describe('latin1Text', () => {
  it('gives one character per byte, U+0000 to U+00FF', () => {
    expect(latin1Text(bytes(0x47, 0x49, 0x46, 0xe9, 0x80, 0xff))).toBe('GIF\u00e9\u0080\u00ff');
    const text = latin1Text(every);
    expect(text).toHaveLength(every.length);
    expect([...text].every((char, i) => char.charCodeAt(0) === every[i])).toBe(true);
  });
});

describe('toBase64', () => {
  it('writes padded base64', () => {
    for (const [text, base64] of VECTORS) expect(toBase64(ascii(text))).toBe(base64);
    expect(toBase64(bytes(0xfb, 0xff, 0xbf))).toBe('+/+/');
    expect(toBase64(every)).toBe(btoa(latin1Text(every)));
  });
});

describe('fromBase64', () => {
  it('reads base64, padded or not', () => {
    for (const [text, base64] of VECTORS) {
      expect(fromBase64(base64)).toEqual(ascii(text));
      expect(fromBase64(base64.replace(/=+$/, ''))).toEqual(ascii(text));
    }
    expect(fromBase64('+/+/')).toEqual(bytes(0xfb, 0xff, 0xbf));
    expect(fromBase64(toBase64(every))).toEqual(every);
  });

  it('is undefined for what is not base64', () => {
    for (const text of ['Z', 'Zg=', 'Zg===', 'Zg=x', 'Zm9v!', 'Zm9v-_', 'Zm 9v', ' Zm9v']) {
      expect(fromBase64(text), JSON.stringify(text)).toBeUndefined();
    }
  });
});

describe('toBase64Url', () => {
  it('writes unpadded base64url', () => {
    for (const [text, base64] of VECTORS) expect(toBase64Url(ascii(text))).toBe(base64.replace(/=+$/, ''));
    expect(toBase64Url(bytes(0xfb, 0xff, 0xbf, 0xfe))).toBe('-_-__g');
  });
});

describe('fromBase64Url', () => {
  it('reads base64url, padded or not', () => {
    expect(fromBase64Url('-_-__g')).toEqual(bytes(0xfb, 0xff, 0xbf, 0xfe));
    expect(fromBase64Url('-_-__g==')).toEqual(bytes(0xfb, 0xff, 0xbf, 0xfe));
    expect(fromBase64Url(toBase64Url(every))).toEqual(every);
  });

  it('is undefined for what is not base64url', () => {
    for (const text of ['Z', 'Zg=', 'Zm9v!', 'Zm9v.', 'Zm9v+/', 'Zm 9v']) {
      expect(fromBase64Url(text), JSON.stringify(text)).toBeUndefined();
    }
  });
});
