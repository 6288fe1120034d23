// File names: what the client sent (originalName), what we store (filename), and how both
// travel in a Content-Disposition header.

const MAX_ORIGINAL_NAME_BYTES = 255;
const encoder = new TextEncoder();

/** The uploaded name with path parts and control characters removed, at most 255 UTF-8 bytes. */
export function cleanOriginalName(raw: string | undefined): string {
  return cleanName(raw ?? '') || 'file';
}

/**
 * A name cleaned as cleanOriginalName does, or '' when nothing of it is left (an upload then
 * calls the file `file`; a rename refuses it).
 */
export function cleanName(raw: string): string {
  const base = raw.split(/[/\\]/).pop() ?? '';
  // C0 and C1 controls, DEL, and bidi overrides that could disguise an extension.
  const name = base
    .normalize('NFC')
    .replace(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g, '')
    .trim();
  if (name === '.' || name === '..') return '';
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

/** The extension of a name, transliterated and lowercased, as `.ext` in safe ASCII, or '' when there is none. */
export function safeExtension(name: string): string {
  const dot = name.lastIndexOf('.');
  if (dot <= 0) return '';
  const ext = transliterate(name.slice(dot + 1))
    .replace(/[^A-Za-z0-9]/g, '')
    .slice(0, 16)
    .toLowerCase();
  return ext ? `.${ext}` : '';
}

// Letters that NFKD does not take apart into ASCII, spelled the way they are usually written in
// ASCII. NFKD already handles accents (é → e + ◌́), ligatures like ﬁ, full-width forms and ™.
const LETTERS: Record<string, string> = {
  ß: 'ss',
  ẞ: 'SS',
  æ: 'ae',
  Æ: 'AE',
  œ: 'oe',
  Œ: 'OE',
  ø: 'o',
  Ø: 'O',
  ł: 'l',
  Ł: 'L',
  đ: 'd',
  Đ: 'D',
  ð: 'd',
  Ð: 'D',
  þ: 'th',
  Þ: 'Th',
  ħ: 'h',
  Ħ: 'H',
  ı: 'i',
  ŧ: 't',
  Ŧ: 'T',
  ŋ: 'ng',
  Ŋ: 'NG',
  ƒ: 'f',
  '\u2018': "'",
  '\u2019': "'",
  '\u2013': '-',
  '\u2014': '-',
};

/**
 * The closest ASCII spelling of text where there is one (`résumé` → `resume`, `straße` →
 * `strasse`); characters with no ASCII form are left as they are for the caller to drop.
 * Used for both the stored name's slug and the Content-Disposition fallback, so they agree.
 */
export function transliterate(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .replace(/[^\u0000-\u007f]/gu, (char) => LETTERS[char] ?? char);
}

/**
 * The stored name: a slug of the original, the file's unique id, and the extension.
 * Only [A-Za-z0-9._-]; unique because the id is; never equal to the original name.
 */
export function storedFilename(originalName: string, id: string): string {
  const ext = safeExtension(originalName);
  const stem = ext ? originalName.slice(0, originalName.length - ext.length) : originalName;
  const slug = transliterate(stem)
    .replace(/[^A-Za-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 48)
    .toLowerCase();
  return `${slug || 'file'}_${id}${ext}`;
}

const DROPPED = '\u0000';

/**
 * The name in printable ASCII for `filename="…"`: transliterated, what has no ASCII form
 * dropped together with the spaces and separators it leaves around it, the extension kept.
 * When nothing of the stem survives, the stored name (already safe ASCII) stands in.
 */
export function asciiFallback(name: string, storedName: string): string {
  const ascii = (text: string) => transliterate(text).replace(/[^\x20-\x7e]/gu, DROPPED);
  const dot = name.lastIndexOf('.');
  const stem = dot > 0 ? name.slice(0, dot) : name;
  const ext = dot > 0 ? ascii(name.slice(dot)).replaceAll(DROPPED, '') : '';
  // A run of dropped characters with the spaces and separators around it becomes the run's first
  // separator (`résumé 名前 final` → `resume final`), or nothing at either end of the stem.
  const kept = ascii(stem).replace(/[\s._-]*\u0000[\s._\u0000-]*/g, (run, offset: number, whole: string) =>
    offset === 0 || offset + run.length === whole.length ? '' : /\s/.test(run) ? ' ' : (/[._-]/.exec(run)?.[0] ?? ''),
  );
  if (kept === '') return storedName;
  return (kept + (ext === '.' ? '' : ext)).replace(/["\\;%]/g, '_');
}

/**
 * `attachment; filename="ascii"; filename*=UTF-8''percent-encoded` (RFC 6266 / 8187): the full
 * name for clients that read filename*, and asciiFallback for those that only read filename.
 */
export function contentDisposition(
  name: string,
  storedName: string,
  type: 'attachment' | 'inline' = 'attachment',
): string {
  const encoded = encodeURIComponent(name).replace(
    /['()*]/g,
    (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `${type}; filename="${asciiFallback(name, storedName)}"; filename*=UTF-8''${encoded}`;
}
