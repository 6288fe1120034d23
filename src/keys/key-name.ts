// A key's name is shown in terminals (npm run keys -- list) and on the /keys page: it must not
// carry characters that move the cursor, rewrite a line or reorder text.

/** C0 controls (tab and line breaks included), DEL, C1 controls, and bidi embeddings and isolates. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/u;
const CONTROLS = new RegExp(CONTROL.source, 'gu');

/** True when the name holds a character that a key name may not hold. */
export const hasControlCharacters = (name: string) => CONTROL.test(name);

/** The name for a terminal: each control character as a visible `\u{…}` escape (and `\` as `\\`). */
export const printableName = (name: string) =>
  name
    .replaceAll('\\', '\\\\')
    .replace(CONTROLS, (char) => `\\u{${(char.codePointAt(0) ?? 0).toString(16).padStart(2, '0')}}`);
