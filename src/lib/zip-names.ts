// Member names of a ZIP archive: from each file's originalName, safe to extract anywhere (no
// directories, no `..`, no control characters, nothing Windows refuses in a name) and unique within
// the archive, as a desktop does it: `report.pdf`, `report (2).pdf`, `report (3).pdf`.
//
// Uniqueness ignores case and Unicode normalisation (`Report.PDF` and `report.pdf`, `é` composed
// or not, are the same name): Windows and macOS file systems treat them as one file, so an
// archive that only differed there would lose a member when extracted on them.

/** Longest name kept, in UTF-8 bytes: what most file systems allow for one path component. */
const MAX_NAME_BYTES = 255;
const encoder = new TextEncoder();

// C0 and C1 controls and DEL; also the bidi overrides that could disguise an extension
// (src/files/names.ts removes the same from uploaded names).
const CONTROLS = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
const LONE_SURROGATES = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

// Characters Windows refuses in a file name (besides the separators and controls above).
const WINDOWS_RESERVED = /[:<>"|?*]/g;
// Windows drops a name's trailing dots and spaces (`a.` opens `a`), so an archive holding them
// would extract under another name, or not at all.
const TRAILING_DOTS_AND_SPACES = /[. ]+$/;
// Names Windows keeps for devices, in any case, whatever follows the first dot (`nul.tar.gz`
// is NUL too) and with spaces before it. Microsoft's naming rules also list COM¹ … LPT³ (the
// superscript digits), which Windows reads as COM1 … LPT3.
const DEVICE_STEM = /^(?:CON|PRN|AUX|NUL|COM[1-9¹²³]|LPT[1-9¹²³]) *$/i;

/**
 * One member's name: path separators, `..` and control characters removed, `:` `<` `>` `"` `|`
 * `?` `*` replaced by `_`, trailing dots and spaces removed, NFC, a Windows device name (`CON`,
 * `nul.txt`, `COM1.log`…) given `_` after its stem (`CON_`, `nul_.txt`), at most 255 UTF-8 bytes
 * (the extension kept); `file` when nothing is left.
 */
export function zipMemberName(originalName: string): string {
  const name = originalName
    .replace(LONE_SURROGATES, '\ufffd')
    .normalize('NFC')
    .replace(CONTROLS, '')
    .replace(/[/\\]/g, '')
    .replace(/\.\./g, '')
    .replace(WINDOWS_RESERVED, '_')
    .replace(TRAILING_DOTS_AND_SPACES, '');
  if (name === '') return 'file';
  return fitName(notADevice(name), '');
}

/** `_` after the stem (the part before the first dot) of a Windows device name: `CON_`, `con_.txt`. */
function notADevice(name: string): string {
  const stem = /^[^.]*/.exec(name)?.[0] ?? '';
  return DEVICE_STEM.test(stem) ? `${stem}_${name.slice(stem.length)}` : name;
}

/**
 * The names of an archive's members, in order: each cleaned by zipMemberName, and a name
 * already taken (ignoring case and normalisation) gets ` (2)`, ` (3)`… before its extension.
 */
export function zipMemberNames(originalNames: readonly string[]): string[] {
  const taken = new Set<string>();
  const nextNumber = new Map<string, number>();
  return originalNames.map((original) => {
    const name = zipMemberName(original);
    const key = sameNameKey(name);
    let unique = name;
    if (taken.has(key)) {
      // Counting on from the last number given to this name keeps a thousand copies linear.
      let number = nextNumber.get(key) ?? 2;
      unique = fitName(name, ` (${number})`);
      while (taken.has(sameNameKey(unique))) unique = fitName(name, ` (${++number})`);
      nextNumber.set(key, number + 1);
    }
    taken.add(sameNameKey(unique));
    return unique;
  });
}

/** Two names that a case-insensitive, normalisation-insensitive file system would treat as one. */
function sameNameKey(name: string): string {
  return name.normalize('NFC').toLowerCase();
}

/**
 * `suffix` inserted before the extension (`archive.tar.gz` keeps `.tar.gz` together; a leading
 * dot is no extension), the stem shortened so the whole stays within MAX_NAME_BYTES. `name` is
 * safe (zipMemberName's); so is the result: a suffix ends in `)`, and a shortened part is cut
 * back to a safe end (see cut).
 */
function fitName(name: string, suffix: string): string {
  const ext = /.(\.tar)?\.[^.]+$/.exec(name)?.[0].slice(1) ?? '';
  const stem = name.slice(0, name.length - ext.length);
  // A UTF-16 unit is at most 3 bytes of UTF-8 (a surrogate pair 4): most names fit uncounted.
  if ((name.length + suffix.length) * 3 <= MAX_NAME_BYTES) return stem + suffix + ext;
  const room = MAX_NAME_BYTES - byteLength(suffix) - byteLength(ext);
  if (room > 0 && byteLength(stem) + byteLength(suffix) + byteLength(ext) <= MAX_NAME_BYTES) {
    return stem + suffix + ext;
  }
  if (room > 0) return cut(stem, room) + suffix + ext;
  // An extension too long to keep: the name is cut as a whole.
  return cut(name, MAX_NAME_BYTES - byteLength(suffix)) + suffix;
}

/**
 * The start of a safe name within maxBytes, itself safe: no trailing dots or spaces (which the
 * cut may have left at the end), not a device name (`CON` followed by 300 spaces and an `x` cuts
 * to one), `file` when nothing is left. A device name is 3 or 4 characters: when its `_` would
 * not fit, it takes the place of the last one.
 */
function cut(text: string, maxBytes: number): string {
  const piece = truncateUtf8(text, maxBytes).replace(TRAILING_DOTS_AND_SPACES, '') || 'file';
  const safe = notADevice(piece);
  return byteLength(safe) <= maxBytes ? safe : `${piece.slice(0, -1)}_`;
}

function byteLength(text: string): number {
  return encoder.encode(text).length;
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
