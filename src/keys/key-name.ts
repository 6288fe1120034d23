// A key's name is shown in terminals (npm run keys -- list) and on the /keys page: it must not
// carry characters that move the cursor, rewrite a line or reorder text. One schema for every
// path that names a key: the admin API, the self-service API (/api/v2/keys) and the key CLI.
import { z } from 'zod';

/**
 * C0 controls (tab and line breaks included), DEL, C1 controls, and the bidi controls: the
 * marks (U+200E, U+200F, U+061C), embeddings and overrides (U+202A–U+202E) and isolates
 * (U+2066–U+2069).
 */
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/u;
const CONTROLS = new RegExp(CONTROL.source, 'gu');

/** True when the name holds a character that a key name may not hold. */
export const hasControlCharacters = (name: string) => CONTROL.test(name);

export const KEY_NAME_MAX_LENGTH = 100;

/** A key's name: trimmed, 1 to 100 characters, no control or bidi characters. */
export const KeyNameSchema = z
  .string()
  .trim()
  .min(1, 'name must not be empty')
  .max(KEY_NAME_MAX_LENGTH, `name must be at most ${KEY_NAME_MAX_LENGTH} characters`)
  .refine((name) => !hasControlCharacters(name), 'name must not contain control characters or bidi controls');

/** The name for a terminal: each control character as a visible `\u{…}` escape (and `\` as `\\`). */
export const printableName = (name: string) =>
  name
    .replaceAll('\\', '\\\\')
    .replace(CONTROLS, (char) => `\\u{${(char.codePointAt(0) ?? 0).toString(16).padStart(2, '0')}}`);
