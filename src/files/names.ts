// File names: what the client sent (originalName), what we store (filename), and how both
// travel in a Content-Disposition header.

const MAX_ORIGINAL_NAME_BYTES = 255;
const encoder = new TextEncoder();

/** The uploaded name with path parts and control characters removed, at most 255 UTF-8 bytes. */
export function cleanOriginalName(raw: string | undefined): string {
  const base = (raw ?? '').split(/[/\\]/).pop() ?? '';
  // C0 and C1 controls, DEL, and bidi overrides that could disguise an extension.
  let name = base
    .normalize('NFC')
    .replace(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g, '')
    .trim();
  if (name === '' || name === '.' || name === '..') name = 'file';
  if (encoder.encode(name).length <= MAX_ORIGINAL_NAME_BYTES) return name;
  // Shorten the stem, not the extension, so the type a name implies survives.
  const ext = safeExtension(name) && name.slice(name.lastIndexOf('.'));
  const room = MAX_ORIGINAL_NAME_BYTES - encoder.encode(ext).length;
  const stem = truncateUtf8(name.slice(0, name.length - ext.length), room);
  return stem ? stem + ext : truncateUtf8(name, MAX_ORIGINAL_NAME_BYTES);
}

/** The longest prefix of text that fits in maxBytes of UTF-8, cut between code points. */
function truncateUtf8(text: string, maxBytes: number): string {
  let bytes = 0;
  let end = 0;
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    bytes += code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
    if (bytes > maxBytes) break;
    end += char.length;
  }
  return text.slice(0, end);
}

/** The extension of a name, lowercased, as `.ext` in safe ASCII, or '' when there is none. */
export function safeExtension(name: string): string {
  const dot = name.lastIndexOf('.');
  if (dot <= 0) return '';
  const ext = name
    .slice(dot + 1)
    .replace(/[^A-Za-z0-9]/g, '')
    .slice(0, 16)
    .toLowerCase();
  return ext ? `.${ext}` : '';
}

/**
 * The stored name: a slug of the original, the file's unique id, and the extension.
 * Only [A-Za-z0-9._-]; unique because the id is; never equal to the original name.
 */
export function storedFilename(originalName: string, id: string): string {
  const ext = safeExtension(originalName);
  const stem = ext ? originalName.slice(0, originalName.length - ext.length) : originalName;
  const slug = stem
    .normalize('NFKD')
    .replace(/[^A-Za-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 48)
    .toLowerCase();
  return `${slug || 'file'}_${id}${ext}`;
}

/** `attachment; filename="ascii"; filename*=UTF-8''percent-encoded` (RFC 6266 / 8187). */
export function contentDisposition(name: string, type: 'attachment' | 'inline' = 'attachment'): string {
  const fallback = name.replace(/[^\x20-\x7e]/g, '_').replace(/["\\;%]/g, '_');
  const encoded = encodeURIComponent(name).replace(
    /['()*]/g,
    (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `${type}; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}
