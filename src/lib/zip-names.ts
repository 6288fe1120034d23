// Member names of a ZIP archive: from each file's originalName, safe to extract anywhere (no
// directories, no `..`, no control characters) and unique within the archive, as a desktop does
// it: `report.pdf`, `report (2).pdf`, `report (3).pdf`.
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

/**
 * One member's name: path separators, `..` and control characters removed, NFC, at most 255
 * UTF-8 bytes (the extension kept); `file` when nothing is left, or only a dot (`.` would
 * extract as the folder itself).
 */
export function zipMemberName(originalName: string): string {
  const name = originalName
    .replace(LONE_SURROGATES, '\ufffd')
    .normalize('NFC')
    .replace(CONTROLS, '')
    .replace(/[/\\]/g, '')
    .replace(/\.\./g, '');
  if (name === '' || name === '.') return 'file';
  return fitName(name, '');
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
 * dot is no extension), the stem shortened so the whole stays within MAX_NAME_BYTES.
 */
function fitName(name: string, suffix: string): string {
  const ext = /.(\.tar)?\.[^.]+$/.exec(name)?.[0].slice(1) ?? '';
  const stem = name.slice(0, name.length - ext.length);
  const room = MAX_NAME_BYTES - byteLength(suffix) - byteLength(ext);
  if (room > 0 && byteLength(stem) + byteLength(suffix) + byteLength(ext) <= MAX_NAME_BYTES) {
    return stem + suffix + ext;
  }
  if (room > 0) return truncateUtf8(stem, room) + suffix + ext;
  // An extension too long to keep: the name is cut as a whole.
  return truncateUtf8(name, MAX_NAME_BYTES - byteLength(suffix)) + suffix;
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
