// Opaque page cursors: a JSON value, base64url, so a client passes it back as it got it and never
// reads it. Whoever decodes one checks its shape.
import { fromBase64Url, toBase64Url } from './encoding';

export const encodeCursor = (value: unknown): string => toBase64Url(new TextEncoder().encode(JSON.stringify(value)));

/** The value a cursor holds, or undefined when the text is no cursor at all. */
export function decodeCursor(text: string): unknown {
  const bytes = fromBase64Url(text);
  if (!bytes) return undefined;
  try {
    return JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return undefined;
  }
}
