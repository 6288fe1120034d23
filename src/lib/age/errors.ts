// What can go wrong with an age file, named so that a caller can tell its user which: a header
// that breaks the format (and which rule), a key that opens none of its stanzas, a header altered
// after it was made (its MAC), a payload altered or cut short, an edgeshare `meta` that does not open.

/** The rule of the header format (C2SP age v1, "Header") that a header breaks. */
export type HeaderProblem =
  /** The first line is not `age-encryption.org/v1` (another version, an armored file, not age at all). */
  | 'version'
  /** A byte other than printable ASCII (a CR, a tab, a byte ≥ 0x7F) in the header. */
  | 'character'
  /** A line that should start a stanza (`-> ` and one or more arguments) and does not. */
  | 'stanza'
  /** A stanza body line longer than 64 columns, or a body without its final, shorter line. */
  | 'column_width'
  /** A body line or MAC that is not base64 (a character outside A–Z a–z 0–9 + /, or an impossible length). */
  | 'base64'
  /** Base64 that decodes but is not canonical: `=` padding, or unused trailing bits that are not zero. */
  | 'non_canonical_base64'
  /** A header without any stanza. */
  | 'no_stanzas'
  /** An scrypt (passphrase) stanza beside another stanza: it must be the only one. */
  | 'scrypt_not_alone'
  /** The `---` line is not `--- ` followed by the 43 base64 characters of a 32-byte MAC. */
  | 'mac_line'
  /** The bytes end before the header's `--- <mac>` line. */
  | 'no_mac_line'
  /** No `--- <mac>` line within the first 16 KiB. */
  | 'too_large';

/**
 * Why an age file (or an edgeshare `meta`) could not be opened:
 * - `header`: the header breaks the format (`reason` says which rule), or the file ends before
 *   the payload's nonce;
 * - `stanza`: a stanza meant for the key is malformed (e.g. an X25519 share of the wrong length,
 *   an scrypt work factor above the cap);
 * - `no_match`: the key opens none of the stanzas (a wrong identity or passphrase);
 * - `hmac`: a stanza opened, but the header was altered (its MAC does not match);
 * - `payload`: the payload was altered, cut short or extended (STREAM authentication);
 * - `meta`: an edgeshare `meta` that does not open with the file key, or is not what it should be.
 */
export type AgeFailure = 'header' | 'stanza' | 'no_match' | 'hmac' | 'payload' | 'meta';

// No parameter properties: the CLI runs this file in Node, which only strips types.
export class AgeError extends Error {
  override readonly name = 'AgeError';
  readonly kind: AgeFailure;
  /** For `header` failures found by the header parser: the rule broken. */
  readonly reason: HeaderProblem | undefined;
  constructor(kind: AgeFailure, message: string, reason?: HeaderProblem) {
    super(message);
    this.kind = kind;
    this.reason = reason;
  }
}
