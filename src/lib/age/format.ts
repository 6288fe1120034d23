// The age v1 header (C2SP age, "Header"), read from bytes and written back. Keyless: the Worker
// checks uploads' and links' headers with it, and every side that holds a key reads headers with
// it before unwrapping. The grammar it holds a header to, and nothing looser:
//
//   header = "age-encryption.org/v1" LF 1*stanza "--- " 43base64char LF
//   stanza = "-> " argument *(SP argument) LF *(64base64char LF) *63base64char LF
//
// base64 is RFC 4648's standard alphabet without padding, canonical (unused bits zero).
import { base64nopad } from '@scure/base';
import { concat } from '../bytes.ts';
import type { HeaderProblem } from './errors.ts';

export const VERSION_LINE = 'age-encryption.org/v1';
/** The longest header edgeshare reads or keeps (the spec's bound for uploads and links). */
export const HEADER_MAX_BYTES = 16 * 1024;
/** Bytes from `---` (excluded) to the header's end: " ", 43 base64 characters, LF. */
const MAC_LINE_TAIL = 1 + 43 + 1;
const BODY_COLUMNS = 64;
const BODY_BYTES_PER_LINE = 48;
const MAC_BYTES = 32;
const LF = 0x0a;
const VERSION_PREFIX = 'age-encryption.org/';

/** A recipient stanza: its arguments (the first is its type, e.g. `X25519`, `scrypt`) and its body. */
export interface Stanza {
  args: string[];
  body: Uint8Array;
}

/** A header that follows the grammar (its MAC is not checked: that needs the file key). */
export interface ParsedHeader {
  /** The header's length in bytes, from the version line to the LF that ends the MAC line. */
  headerLength: number;
  stanzas: Stanza[];
  mac: Uint8Array;
}

export type HeaderCheck =
  | ({ ok: true } & ParsedHeader)
  | {
      ok: false;
      /** The rule broken: a stable code for `details` of `422 E2E_INVALID`. */
      reason: HeaderProblem;
      /** Where and how, for a person: `line 3: a body line of 65 columns; at most 64`. */
      detail: string;
    };

class Broken {
  readonly reason: HeaderProblem;
  readonly detail: string;
  constructor(reason: HeaderProblem, detail: string) {
    this.reason = reason;
    this.detail = detail;
  }
}

/**
 * Reads the header at the start of `bytes` (which may go on with the payload, or stop anywhere):
 * ok with its length, stanzas and MAC, or the first rule it breaks. `no_mac_line` means the bytes
 * end before the header does: a caller reading a stream reads more, up to `HEADER_MAX_BYTES`.
 */
export function checkHeader(bytes: Uint8Array): HeaderCheck {
  try {
    return { ok: true, ...parse(bytes) };
  } catch (error) {
    if (error instanceof Broken) return { ok: false, reason: error.reason, detail: error.detail };
    throw error;
  }
}

/** True when the header is opened by a passphrase (its one stanza is scrypt's). */
export const usesPassphrase = (stanzas: readonly Stanza[]): boolean => stanzas.some((s) => s.args[0] === 'scrypt');

function parse(bytes: Uint8Array): ParsedHeader {
  const lines = new Lines(bytes);
  checkVersion(bytes);
  const version = lines.next();
  if (version.text !== VERSION_LINE) {
    throw new Broken('version', `line 1: unsupported version "${version.text}"; edgeshare reads ${VERSION_LINE}`);
  }
  const stanzas: Stanza[] = [];
  for (;;) {
    const line = lines.next();
    if (line.text.startsWith('---')) {
      const mac = parseMac(line);
      if (stanzas.length === 0) throw new Broken('no_stanzas', 'the header has no recipient stanza');
      if (stanzas.length > 1 && usesPassphrase(stanzas)) {
        throw new Broken('scrypt_not_alone', 'an scrypt (passphrase) stanza must be the only stanza of its header');
      }
      return { headerLength: lines.offset, stanzas, mac };
    }
    if (!line.text.startsWith('->')) {
      throw new Broken(
        'stanza',
        `line ${line.number}: expected a stanza ("-> …") or the MAC line ("--- …"); a stanza's body ends at its first line shorter than 64 columns`,
      );
    }
    stanzas.push(parseStanza(line, lines));
  }
}

/** An armored file, or bytes that are not age at all, are named at once (before any LF). */
function checkVersion(bytes: Uint8Array): void {
  const start = String.fromCharCode(...bytes.subarray(0, VERSION_PREFIX.length));
  if (start.startsWith('-----BEGIN')) {
    throw new Broken('version', 'an armored (PEM) age file; send the binary form (age without -a/--armor)');
  }
  if (!VERSION_PREFIX.startsWith(start)) {
    throw new Broken('version', `not an age file: it does not start with ${VERSION_LINE}`);
  }
}

function parseStanza(first: Line, lines: Lines): Stanza {
  if (!first.text.startsWith('-> ') || first.text.length === 3) {
    throw new Broken('stanza', `line ${first.number}: a stanza line is "-> " followed by one or more arguments`);
  }
  const args = first.text.slice(3).split(' ');
  if (args.some((arg) => arg.length === 0)) {
    throw new Broken('stanza', `line ${first.number}: an empty argument (two spaces in a row, or a space at the end)`);
  }
  const parts: Uint8Array[] = [];
  for (;;) {
    const line = lines.next();
    if (line.text.startsWith('->') || line.text.startsWith('---')) {
      throw new Broken(
        'column_width',
        `line ${line.number}: the stanza of line ${first.number} has no final body line shorter than 64 columns (an empty line when its body fills its last line)`,
      );
    }
    if (line.text.length > BODY_COLUMNS) {
      throw new Broken('column_width', `line ${line.number}: a body line of ${line.text.length} columns; at most 64`);
    }
    parts.push(decodeBase64(line.text, line.number));
    if (line.text.length < BODY_COLUMNS) return { args, body: concat(parts) };
  }
}

function parseMac(line: Line): Uint8Array {
  const text = line.text.slice(4);
  if (!line.text.startsWith('--- ') || text.length !== 43) {
    throw new Broken(
      'mac_line',
      `line ${line.number}: the MAC line is "--- " followed by 43 base64 characters (32 bytes), one space, nothing after`,
    );
  }
  const mac = decodeBase64(text, line.number);
  if (mac.length !== MAC_BYTES) throw new Broken('mac_line', `line ${line.number}: the MAC is not 32 bytes`);
  return mac;
}

const BASE64_CHAR = /^[A-Za-z0-9+/]*$/;
const BASE64_VALUE = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** Canonical unpadded base64, or the rule it breaks. */
function decodeBase64(text: string, lineNumber: number): Uint8Array {
  if (!BASE64_CHAR.test(text)) {
    const column = [...text].findIndex((c) => !BASE64_VALUE.includes(c)) + 1;
    const char = text[column - 1];
    if (char === '=') {
      throw new Broken(
        'non_canonical_base64',
        `line ${lineNumber}, column ${column}: "=" padding; age's base64 has none`,
      );
    }
    throw new Broken('base64', `line ${lineNumber}, column ${column}: "${char}" is not a base64 character`);
  }
  const extra = text.length % 4;
  if (extra === 1) throw new Broken('base64', `line ${lineNumber}: ${text.length} characters cannot be base64`);
  // The last character carries 4 (after 2 characters) or 2 (after 3) bits that must be zero.
  const last = BASE64_VALUE.indexOf(text.at(-1) ?? 'A');
  if ((extra === 2 && (last & 0x0f) !== 0) || (extra === 3 && (last & 0x03) !== 0)) {
    throw new Broken('non_canonical_base64', `line ${lineNumber}: base64 whose unused last bits are not zero`);
  }
  return base64nopad.decode(text);
}

type Line = { text: string; number: number };

/** The header's lines, each checked to be printable ASCII; never past HEADER_MAX_BYTES. */
class Lines {
  offset = 0;
  private number = 0;
  private readonly bytes: Uint8Array;
  private readonly view: Uint8Array;
  constructor(bytes: Uint8Array) {
    this.bytes = bytes;
    this.view = bytes.subarray(0, HEADER_MAX_BYTES);
  }

  next(): Line {
    this.number++;
    const end = this.view.indexOf(LF, this.offset);
    const stop = end === -1 ? this.view.length : end;
    for (let i = this.offset; i < stop; i++) {
      const byte = this.view[i] ?? 0;
      if (byte < 0x20 || byte > 0x7e) {
        const hex = byte.toString(16).padStart(2, '0');
        throw new Broken(
          'character',
          `line ${this.number}, column ${i - this.offset + 1}: byte 0x${hex}; a header is printable ASCII lines ending in LF`,
        );
      }
    }
    if (end === -1) {
      if (this.bytes.length > HEADER_MAX_BYTES) {
        throw new Broken('too_large', `no "--- <mac>" line within the first ${HEADER_MAX_BYTES} bytes`);
      }
      throw new Broken(
        'no_mac_line',
        this.bytes.length === 0
          ? 'no bytes at all'
          : `the bytes end on line ${this.number}, before the "--- <mac>" line`,
      );
    }
    const text = String.fromCharCode(...this.view.subarray(this.offset, end));
    this.offset = end + 1;
    return { text, number: this.number };
  }
}

/** The header up to and including `---`: what its MAC is computed over. */
export function encodeHeaderWithoutMac(stanzas: readonly Stanza[]): Uint8Array {
  const lines = [`${VERSION_LINE}\n`];
  for (const stanza of stanzas) {
    if (stanza.args.length === 0 || stanza.args.some((arg) => !/^[\x21-\x7e]+$/.test(arg))) {
      throw new RangeError('a stanza needs one or more arguments of printable ASCII without spaces');
    }
    lines.push(`-> ${stanza.args.join(' ')}\n`);
    for (let i = 0; i < stanza.body.length; i += BODY_BYTES_PER_LINE) {
      lines.push(`${base64nopad.encode(stanza.body.subarray(i, i + BODY_BYTES_PER_LINE))}\n`);
    }
    // A body that fills its last line (or is empty) ends with an empty line.
    if (stanza.body.length % BODY_BYTES_PER_LINE === 0) lines.push('\n');
  }
  lines.push('---');
  return new TextEncoder().encode(lines.join(''));
}

/** A whole header: the stanzas and their MAC (made by `headerMac` in recipients.ts). */
export function encodeHeader(stanzas: readonly Stanza[], mac: Uint8Array): Uint8Array {
  if (mac.length !== MAC_BYTES) throw new RangeError('a header MAC is 32 bytes');
  const tail = new TextEncoder().encode(` ${base64nopad.encode(mac)}\n`);
  return concat([encodeHeaderWithoutMac(stanzas), tail]);
}

/** How many bytes of a header of `headerLength` bytes its MAC covers (up to and including `---`). */
export const macInputLength = (headerLength: number): number => headerLength - MAC_LINE_TAIL;
