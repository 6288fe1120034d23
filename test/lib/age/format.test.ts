// The age header's grammar as the Worker checks it (keyless): each rule broken gives its own
// reason and a detail naming the line; a valid header is found at the front of a whole file and
// written back byte for byte; a stream is split at the header's end whatever its chunk sizes.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AgeError, type HeaderProblem } from '../../../src/lib/age/errors';
import {
  checkHeader,
  encodeHeader,
  encodeHeaderWithoutMac,
  HEADER_MAX_BYTES,
  type Stanza,
  usesPassphrase,
} from '../../../src/lib/age/format';
import { readAll, splitHeader } from '../../../src/lib/age/io';
import { concat } from '../../../src/lib/bytes';
import { piecewise, seededBytes } from '../../helpers/age';

const ascii = (text: string) => new TextEncoder().encode(text);
const MAC = 'HK2NmOBN9Dpq0Gw6xMCuhFcQlQLvZ/wQUi/2scLG75s';
// The spec's own example header.
const VALID = [
  'age-encryption.org/v1',
  '-> X25519 XEl0dJ6y3C7KZkgmgWUicg63EyXJiwBJW8PdYJ/cYBE',
  'qRS0AMjdjPvZ/WT08U2KL4G+PIooA3hy38SvLpvaC1E',
  `--- ${MAC}`,
  '',
].join('\n');

function problem(text: string | Uint8Array): { reason: HeaderProblem; detail: string } {
  const check = checkHeader(typeof text === 'string' ? ascii(text) : text);
  if (check.ok) throw new Error('expected the header to be refused');
  return check;
}

describe('checkHeader', () => {
  it('reads a valid header at the front of a file, and says where it ends', () => {
    const file = concat([ascii(VALID), seededBytes(1, 1000)]);
    const check = checkHeader(file);
    expect(check).toMatchObject({ ok: true, headerLength: VALID.length });
    if (!check.ok) return;
    expect(check.stanzas).toHaveLength(1);
    expect(check.stanzas[0]?.args).toEqual(['X25519', 'XEl0dJ6y3C7KZkgmgWUicg63EyXJiwBJW8PdYJ/cYBE']);
    expect(check.stanzas[0]?.body).toHaveLength(32);
    expect(check.mac).toHaveLength(32);
    expect(new TextDecoder().decode(encodeHeader(check.stanzas, check.mac))).toBe(VALID);
  });

  const cases: [string, string | Uint8Array, HeaderProblem, RegExp][] = [
    ['another version', VALID.replace('/v1', '/v2'), 'version', /line 1: unsupported version/],
    ['an armored file', '-----BEGIN AGE ENCRYPTED FILE-----\nYWdl\n', 'version', /armored/],
    ['a file that is not age', concat([seededBytes(2, 100)]), 'version', /not an age file/],
    ['a CR before a LF', VALID.replace('X25519 ', 'X25519\r '), 'character', /line 2, column 10: byte 0x0d/],
    ['a tab', VALID.replace('-> X25519', '->\tX25519'), 'character', /byte 0x09/],
    ['a stanza line without its space', VALID.replace('-> X25519', '->X25519'), 'stanza', /line 2: .*"-> "/],
    [
      'a stanza without arguments',
      VALID.replace('-> X25519 XEl0dJ6y3C7KZkgmgWUicg63EyXJiwBJW8PdYJ/cYBE', '-> '),
      'stanza',
      /one or more arguments/,
    ],
    ['an empty argument', VALID.replace('X25519 ', 'X25519  '), 'stanza', /empty argument/],
    [
      'a line that is neither stanza nor MAC',
      VALID.replace(`--- ${MAC}`, `AAAA\n--- ${MAC}`),
      'stanza',
      /line 4: expected a stanza/,
    ],
    [
      'a body line of 65 columns',
      VALID.replace('qRS0AMjdjPvZ/WT08U2KL4G+PIooA3hy38SvLpvaC1E', 'A'.repeat(65)),
      'column_width',
      /line 3: a body line of 65 columns/,
    ],
    [
      'a body without its short final line',
      VALID.replace('qRS0AMjdjPvZ/WT08U2KL4G+PIooA3hy38SvLpvaC1E', 'A'.repeat(64)),
      'column_width',
      /line 4: .*no final body line/,
    ],
    [
      'a stanza without a body',
      VALID.replace('qRS0AMjdjPvZ/WT08U2KL4G+PIooA3hy38SvLpvaC1E\n', ''),
      'column_width',
      /line 3: the stanza of line 2/,
    ],
    [
      'a body character outside base64',
      VALID.replace('qRS0AMjdjPvZ', 'qRS0AMjdjPv_'),
      'base64',
      /line 3, column 12: "_"/,
    ],
    [
      'a body of impossible length',
      VALID.replace('qRS0AMjdjPvZ/WT08U2KL4G+PIooA3hy38SvLpvaC1E', 'AAAAA'),
      'base64',
      /5 characters/,
    ],
    [
      'base64 padding',
      VALID.replace('qRS0AMjdjPvZ/WT08U2KL4G+PIooA3hy38SvLpvaC1E', 'AA=='),
      'non_canonical_base64',
      /"=" padding/,
    ],
    [
      'non-zero unused bits',
      VALID.replace('qRS0AMjdjPvZ/WT08U2KL4G+PIooA3hy38SvLpvaC1E', 'qRS0AMjdjPvZ/WT08U2KL4G+PIooA3hy38SvLpvaC1F'),
      'non_canonical_base64',
      /unused last bits/,
    ],
    ['a MAC line without its space', VALID.replace(`--- ${MAC}`, `---${MAC}`), 'mac_line', /line 4/],
    ['a short MAC', VALID.replace(`--- ${MAC}`, `--- ${MAC.slice(1)}`), 'mac_line', /43 base64 characters/],
    ['a MAC with a space after it', VALID.replace(MAC, `${MAC} `), 'mac_line', /nothing after/],
    ['a non-canonical MAC', VALID.replace(MAC, `${MAC.slice(0, -1)}t`), 'non_canonical_base64', /line 4/],
    ['no stanza', `age-encryption.org/v1\n--- ${MAC}\n`, 'no_stanzas', /no recipient stanza/],
    [
      'an scrypt stanza beside another',
      VALID.replace('--- ', '-> scrypt AAAAAAAAAAAAAAAAAAAAAA 18\nAAAA\n--- '),
      'scrypt_not_alone',
      /only stanza/,
    ],
    ['bytes that end before the MAC line', VALID.slice(0, 100), 'no_mac_line', /end on line 3/],
    ['no bytes at all', '', 'no_mac_line', /no bytes/],
    [
      'no MAC line within 16 KiB',
      `age-encryption.org/v1\n-> a\n${`${'A'.repeat(64)}\n`.repeat(300)}`,
      'too_large',
      /16384 bytes/,
    ],
  ];

  it.each(cases)('refuses %s', (_, header, reason, detail) => {
    const found = problem(header);
    expect(found.reason).toBe(reason);
    expect(found.detail).toMatch(detail);
  });

  it('takes a header of exactly 16 KiB and refuses one byte more', () => {
    const make = (bodyBytes: number) =>
      encodeHeader([{ args: ['x'], body: new Uint8Array(bodyBytes) }], new Uint8Array(32));
    // The longest body in 48-byte lines (65 header bytes each) that fits; an argument pads the rest.
    let body = 0;
    while (make(body + 48).length <= HEADER_MAX_BYTES) body += 48;
    const largest = make(body);
    const padded = HEADER_MAX_BYTES - largest.length;
    const exact = encodeHeader(
      [{ args: ['x', 'y'.repeat(padded - 1)], body: new Uint8Array(body) }],
      new Uint8Array(32),
    );
    expect(exact.length).toBe(HEADER_MAX_BYTES);
    expect(checkHeader(concat([exact, seededBytes(3, 100)]))).toMatchObject({
      ok: true,
      headerLength: HEADER_MAX_BYTES,
    });
    const over = encodeHeader([{ args: ['x', 'y'.repeat(padded)], body: new Uint8Array(body) }], new Uint8Array(32));
    expect(problem(concat([over, seededBytes(3, 100)])).reason).toBe('too_large');
  });

  it('tells a passphrase header from others', () => {
    const check = checkHeader(ascii(VALID));
    expect(check.ok && usesPassphrase(check.stanzas)).toBe(false);
    expect(usesPassphrase([{ args: ['scrypt', 'AAAAAAAAAAAAAAAAAAAAAA', '18'], body: new Uint8Array(32) }])).toBe(true);
  });
});

const stanzaArb: fc.Arbitrary<Stanza> = fc.record({
  args: fc.array(fc.stringMatching(/^[\x21-\x7e]{1,12}$/), { minLength: 1, maxLength: 4 }),
  body: fc.uint8Array({ maxLength: 200 }),
});

describe('encodeHeader', () => {
  it('writes any stanzas so that checkHeader reads them back as they were', () => {
    fc.assert(
      fc.property(
        fc.array(stanzaArb, { minLength: 1, maxLength: 5 }).filter((s) => s.length === 1 || !usesPassphrase(s)),
        fc.uint8Array({ minLength: 32, maxLength: 32 }),
        (stanzas, mac) => {
          const header = encodeHeader(stanzas, mac);
          const check = checkHeader(header);
          expect(check).toEqual({ ok: true, headerLength: header.length, stanzas, mac });
          expect(encodeHeaderWithoutMac(stanzas)).toEqual(header.subarray(0, header.length - 45));
        },
      ),
    );
  });

  it('refuses arguments a header cannot carry', () => {
    expect(() => encodeHeaderWithoutMac([{ args: [], body: new Uint8Array(0) }])).toThrow(RangeError);
    expect(() => encodeHeaderWithoutMac([{ args: ['a b'], body: new Uint8Array(0) }])).toThrow(RangeError);
    expect(() => encodeHeader([{ args: ['a'], body: new Uint8Array(0) }], new Uint8Array(31))).toThrow(RangeError);
  });
});

describe('splitHeader', () => {
  const file = concat([new TextEncoder().encode(VALID), seededBytes(4, 70_000)]);

  it.each([1, 7, 50, 4096, 1 << 20])('splits a file read %i bytes at a time at the header’s end', async (size) => {
    const { header, parsed, reader } = await splitHeader(piecewise(file, size));
    expect(new TextDecoder().decode(header)).toBe(VALID);
    expect(parsed.headerLength).toBe(VALID.length);
    expect(await readAll(reader.rest())).toEqual(file.subarray(VALID.length));
  });

  it('refuses a broken header with its reason, and a file that ends inside it', async () => {
    const broken = splitHeader(piecewise(ascii(VALID.replace('-> X25519', '->X25519')), 5));
    await expect(broken).rejects.toMatchObject({ kind: 'header', reason: 'stanza' });
    await expect(splitHeader(piecewise(ascii(VALID.slice(0, 80)), 3))).rejects.toBeInstanceOf(AgeError);
    await expect(splitHeader(piecewise(ascii(VALID.slice(0, 80)), 3))).rejects.toMatchObject({ reason: 'no_mac_line' });
  });

  it('reads no more than 16 KiB and a chunk before refusing a header that does not end', async () => {
    let pulled = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        const line = ascii(pulled === 0 ? 'age-encryption.org/v1\n-> a\n' : `${'A'.repeat(64)}\n`);
        pulled += line.length;
        controller.enqueue(line);
      },
    });
    await expect(splitHeader(endless)).rejects.toMatchObject({ reason: 'too_large' });
    expect(pulled).toBeLessThan(HEADER_MAX_BYTES + 200);
  });
});
