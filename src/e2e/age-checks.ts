// What the Worker checks of end-to-end encrypted (age) uploads and headers, without any key
// (docs/e2e.md): an upload's `encryption` and `meta`, whether the account and the way in take
// such uploads, an age header's syntax (src/lib/age/format.ts), a payload's length
// (src/lib/age/length.ts), and the header split off the front of an upload's bytes as they
// stream. Every refusal is 422 E2E_INVALID naming the rule broken, E2E_REQUIRED, or the policy's 422.
import { e2eInvalid, e2eRequired, validationError } from '../errors';
import type { HeaderProblem } from '../lib/age/errors';
import { checkHeader, HEADER_MAX_BYTES } from '../lib/age/format';
import { isValidPayloadLength, META_MAX_LENGTH } from '../lib/age/length';
import { concat } from '../lib/bytes';
import { checkE2e } from '../policy/service';

/** The one encryption edgeshare stores: an age v1 file (C2SP), binary (not armored). */
export const AGE = 'age';
export type Encryption = typeof AGE;

/** The longest `meta` kept, in characters (docs/e2e.md): the bound edgeshare's clients seal to. */
export const META_MAX_CHARS = META_MAX_LENGTH;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

/** The rules of the age format an upload or header can break (details' `rule`). */
export type E2eRule = HeaderProblem | 'payload_length' | 'trailing_bytes';

/** The 422 E2E_INVALID for `field` breaking `rule`. */
export const invalid = (field: string, rule: E2eRule, message: string) => e2eInvalid({ field, rule, message });

/**
 * Whether an upload path takes age files here, and whether it takes only them: the account's
 * policy (E2E_ALLOWED, e2eAllowed) and, for a file request, its `e2e` flag.
 */
export type E2eAdmission = { allowed: boolean; required: boolean };

/** What an upload says of itself: an age file with its `meta` (null: none), or a plain file (undefined). */
export type E2eUpload = { meta: string | null } | undefined;

/**
 * `encryption` as a field gives it: "age", or nothing (undefined, empty) for a plain upload;
 * anything else is 400 naming `field`.
 */
export function parseEncryption(value: string | undefined, field = 'encryption'): Encryption | undefined {
  const text = value?.trim();
  if (text === undefined || text === '') return undefined;
  if (text === AGE) return AGE;
  throw validationError(field, 'must be "age" (an age v1 file, binary) or absent');
}

/** `meta` as a field gives it: opaque base64url of at most 4 KiB, or null when absent or empty; else 400. */
export function parseMeta(value: string | undefined, field = 'meta'): string | null {
  const text = value?.trim();
  if (text === undefined || text === '') return null;
  if (text.length > META_MAX_CHARS) throw validationError(field, `must be at most ${META_MAX_CHARS} characters`);
  if (!BASE64URL.test(text) || text.length % 4 === 1) {
    throw validationError(field, 'must be base64url (A–Z a–z 0–9 - _, no padding)');
  }
  return text;
}

/**
 * What an upload's fields make of it, judged by the way in: an age file (its meta), or a plain one.
 * An age file where none is allowed is the policy's 422; a plain one where only age files are
 * taken is 422 E2E_REQUIRED; `meta` without `encryption` is 400. Called before any byte is kept.
 */
export function admitUpload(
  admission: E2eAdmission,
  fields: { encryption?: string; meta?: string },
  names: { encryption: string; meta: string } = { encryption: 'encryption', meta: 'meta' },
): E2eUpload {
  const encryption = parseEncryption(fields.encryption, names.encryption);
  const meta = parseMeta(fields.meta, names.meta);
  if (encryption === undefined) {
    if (admission.required) throw e2eRequired();
    if (meta !== null) throw validationError(names.meta, `is only taken with ${names.encryption} "age"`);
    return undefined;
  }
  if (!admission.allowed) checkE2e({ e2eAllowed: false }, names.encryption);
  return { meta };
}

/** Refuses a payload whose length no age file has (16 + n + 16 × max(1, ⌈n / 64 KiB⌉) for some n). */
export function checkPayloadLength(length: number, field = 'file'): void {
  if (isValidPayloadLength(length)) return;
  throw invalid(
    field,
    'payload_length',
    `a payload of ${length} bytes is no age payload: it must be 16 + n + 16 × max(1, ⌈n / 65536⌉) bytes ` +
      'for some plaintext length n (a 16-byte nonce, then 64 KiB chunks each with a 16-byte tag; only an ' +
      'empty file has an empty last chunk)',
  );
}

/**
 * A whole age header as JSON gives it (a link's `e2eHeader`): exactly one header, nothing after
 * its `--- <mac>` line. Returns it; 422 E2E_INVALID naming `field` otherwise.
 */
export function checkHeaderText(text: string, field: string): string {
  const bytes = new TextEncoder().encode(text);
  const check = checkHeader(bytes);
  if (!check.ok) throw invalid(field, check.reason, check.detail);
  if (check.headerLength !== bytes.length) {
    throw invalid(
      field,
      'trailing_bytes',
      `${bytes.length - check.headerLength} bytes after the "--- <mac>" line: a header ends with that line's LF`,
    );
  }
  return text;
}

/**
 * An age file's header as its bytes arrive, in one request (an upload's body, splitHeader) or
 * over several (a tus upload's PATCHes, which may end anywhere: src/e2e/age-stream.ts). The
 * bytes so far are kept as text (a header is printable ASCII and LF, and every byte kept has
 * passed the grammar's checks), grown chunk by chunk until its `--- <mac>` line; what follows is
 * the payload.
 */
export class AgeHeader {
  #text: string;
  #complete: boolean;
  readonly #field: string;

  /** `sofar`: the header bytes an earlier request kept (all of the header once complete). */
  constructor(sofar = '', field = 'file') {
    this.#text = sofar;
    this.#complete = sofar.length > 0 && checkHeader(encoder.encode(sofar)).ok;
    this.#field = field;
  }

  /** The header's bytes so far, as text (what the upload's object keeps). */
  get text(): string {
    return this.#text;
  }

  get complete(): boolean {
    return this.#complete;
  }

  /** Bytes of the upload that are header: all of it once complete. */
  get length(): number {
    return this.#text.length;
  }

  /**
   * Takes the header's bytes from the front of `chunk` (the next bytes of the upload) and returns
   * the rest, the payload's first bytes (a view of `chunk`). 422 E2E_INVALID as soon as the bytes
   * break the grammar or pass 16 KiB, or, when the upload's whole length is known
   * (`uploadLength`), the header leaves a payload length no age file has.
   */
  take(chunk: Uint8Array, uploadLength?: number): Uint8Array {
    if (this.#complete) return chunk;
    const before = encoder.encode(this.#text);
    const front = concat([before, chunk.subarray(0, Math.max(0, HEADER_MAX_BYTES + 1 - before.length))]);
    const check = checkHeader(front);
    if (check.ok) {
      this.#text = decoder.decode(front.subarray(0, check.headerLength));
      this.#complete = true;
      if (uploadLength !== undefined) checkPayloadLength(uploadLength - check.headerLength);
      return chunk.subarray(check.headerLength - before.length);
    }
    if (check.reason !== 'no_mac_line') throw invalid(this.#field, check.reason, check.detail);
    this.#text = decoder.decode(front);
    return EMPTY;
  }

  /** The whole header, at the upload's last byte: 422 E2E_INVALID when the bytes ended inside it. */
  finished(): string {
    if (!this.#complete) {
      throw invalid(
        this.#field,
        'no_mac_line',
        `the file's ${this.#text.length} bytes end before its "--- <mac>" line`,
      );
    }
    return this.#text;
  }
}

const EMPTY = new Uint8Array(0);
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * The header at the front of an age file whose bytes arrive from `next` (an upload's): read up to
 * its `--- <mac>` line, 16 KiB at most, and checked; `rest` is what the last chunk held past it
 * (copied: a source may reuse its buffer). 422 E2E_INVALID naming `field` when the bytes break the
 * header's grammar, or end before it does.
 */
export async function splitHeader(
  next: () => Promise<Uint8Array | null>,
  field = 'file',
): Promise<{ header: string; rest: Uint8Array }> {
  const header = new AgeHeader('', field);
  for (;;) {
    const chunk = await next();
    if (chunk === null) return { header: header.finished(), rest: EMPTY };
    const rest = header.take(chunk);
    if (header.complete) return { header: header.text, rest: rest.slice() };
  }
}

/** The header's text (ASCII) as bytes: what a download serves in front of the payload. */
export const headerBytes = (header: string): Uint8Array => new TextEncoder().encode(header);
