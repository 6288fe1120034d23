// What the Worker checks of end-to-end encrypted (age) uploads and headers, without any key
// (docs/e2e.md): an upload's `encryption` and `meta`, whether the account and the way in take
// such uploads, an age header's syntax (src/lib/age/format.ts), a payload's length
// (src/lib/age/length.ts), and the header split off the front of an upload's bytes as they
// stream. Every refusal is 422 E2E_INVALID naming the rule broken, E2E_REQUIRED, or the policy's 422.
import { e2eInvalid, e2eRequired, validationError } from '../errors';
import type { HeaderProblem } from '../lib/age/errors';
import { checkHeader, HEADER_MAX_BYTES } from '../lib/age/format';
import { isValidPayloadLength } from '../lib/age/length';
import { concat } from '../lib/bytes';
import { checkE2e } from '../policy/service';

/** The one encryption edgeshare stores: an age v1 file (C2SP), binary (not armored). */
export const AGE = 'age';
export type Encryption = typeof AGE;

/** The longest `meta` kept, in characters (docs/e2e.md). */
export const META_MAX_CHARS = 4096;
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
 * The header at the front of an age file whose bytes arrive in `chunks` (an upload's): read up
 * to its `--- <mac>` line, 16 KiB at most, and checked; `rest` is what the last chunk held past
 * it (copied: a source may reuse its buffer). 422 E2E_INVALID naming `field` when the bytes break
 * the header's grammar, or end before it does.
 */
export async function splitHeader(
  next: () => Promise<Uint8Array | null>,
  field = 'file',
): Promise<{ header: string; rest: Uint8Array }> {
  const parts: Uint8Array[] = [];
  let have = 0;
  for (;;) {
    const chunk = await next();
    const before = have;
    if (chunk !== null) {
      // Only what may still be header is kept: at most one byte past the bound.
      const kept = chunk.slice(0, Math.max(0, HEADER_MAX_BYTES + 1 - before));
      parts.push(kept);
      have += kept.length;
    }
    const front = concat(parts, have);
    const check = checkHeader(front);
    if (check.ok && chunk !== null) {
      // The header ends in this chunk (it did not before it): the rest of the chunk is payload.
      const rest = chunk.slice(check.headerLength - before);
      return { header: new TextDecoder().decode(front.subarray(0, check.headerLength)), rest };
    }
    if (check.ok || check.reason !== 'no_mac_line' || chunk === null) {
      const { reason, detail } = check.ok
        ? { reason: 'no_mac_line' as const, detail: 'the file ends before its header does' }
        : check;
      throw invalid(field, reason, detail);
    }
  }
}

/** The header's text (ASCII) as bytes: what a download serves in front of the payload. */
export const headerBytes = (header: string): Uint8Array => new TextEncoder().encode(header);
