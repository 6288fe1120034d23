// Decides an upload's media type from its leading bytes, its declared type and its name,
// refuses what runs when opened (runnable.ts), then applies the ALLOWED_FILE_TYPES policy.
import { latin1Text } from '../lib/encoding';
import { isRunnableType, runnableExtension } from './runnable';

/** How many leading bytes the detector wants to see. */
export const SNIFF_BYTES = 4100;

const ascii = (bytes: Uint8Array, start: number, end: number) => latin1Text(bytes.subarray(start, end));

const startsWith = (bytes: Uint8Array, signature: number[], offset = 0) =>
  bytes.length >= offset + signature.length && signature.every((byte, i) => bytes[offset + i] === byte);

type Detected = { type: string; family?: readonly string[] };

// Container formats whose declared subtype we cannot refute from the first bytes.
const ZIP_FAMILY = [
  'application/zip',
  'application/x-zip-compressed',
  'application/epub+zip',
  'application/java-archive',
  'application/vnd.android.package-archive',
] as const;
const isZipBased = (type: string) =>
  (ZIP_FAMILY as readonly string[]).includes(type) ||
  type.startsWith('application/vnd.openxmlformats-officedocument.') ||
  type.startsWith('application/vnd.oasis.opendocument.') ||
  type.startsWith('application/vnd.ms-');
const OLE_FAMILY = [
  'application/msword',
  'application/vnd.ms-excel',
  'application/vnd.ms-powerpoint',
  'application/x-ole-storage',
];

function detectZip(bytes: Uint8Array): Detected {
  // ODF and EPUB store an uncompressed "mimetype" entry first; jars start with META-INF/.
  const nameLength = (bytes[26] ?? 0) | ((bytes[27] ?? 0) << 8);
  const extraLength = (bytes[28] ?? 0) | ((bytes[29] ?? 0) << 8);
  const name = ascii(bytes, 30, 30 + nameLength);
  if (name === 'mimetype') {
    const start = 30 + nameLength + extraLength;
    const declared = ascii(bytes, start, start + 80).match(/^application\/[a-z0-9.+-]+/)?.[0];
    if (declared) return { type: declared };
  }
  if (name.startsWith('META-INF/')) return { type: 'application/java-archive' };
  if (name === 'AndroidManifest.xml' || name === 'classes.dex')
    return { type: 'application/vnd.android.package-archive' };
  return { type: 'application/zip', family: ['zip'] };
}

function detectFtyp(bytes: Uint8Array): Detected {
  const brand = ascii(bytes, 8, 12);
  if (brand === 'qt  ') return { type: 'video/quicktime' };
  if (brand.startsWith('M4A') || brand.startsWith('M4B')) return { type: 'audio/mp4' };
  if (brand === 'avif' || brand === 'avis') return { type: 'image/avif' };
  if (['heic', 'heix', 'hevc', 'hevx', 'mif1', 'msf1'].includes(brand)) return { type: 'image/heic' };
  if (brand.startsWith('3g')) return { type: 'video/3gpp' };
  return { type: 'video/mp4', family: ['video/', 'audio/mp4'] };
}

/** The type the bytes prove, or undefined when they prove nothing (plain text, unknown binary). */
export function detectFromBytes(bytes: Uint8Array): Detected | undefined {
  const b = bytes;
  if (startsWith(b, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return { type: 'image/png' };
  if (startsWith(b, [0xff, 0xd8, 0xff])) return { type: 'image/jpeg' };
  if (ascii(b, 0, 6) === 'GIF87a' || ascii(b, 0, 6) === 'GIF89a') return { type: 'image/gif' };
  if (ascii(b, 0, 4) === 'RIFF') {
    const kind = ascii(b, 8, 12);
    if (kind === 'WEBP') return { type: 'image/webp' };
    if (kind === 'WAVE') return { type: 'audio/wav', family: ['audio/'] };
    if (kind === 'AVI ') return { type: 'video/x-msvideo' };
  }
  if (ascii(b, 0, 2) === 'BM' && b.length >= 10 && b[6] === 0 && b[7] === 0 && b[8] === 0 && b[9] === 0) {
    return { type: 'image/bmp' };
  }
  if (startsWith(b, [0x49, 0x49, 0x2a, 0x00]) || startsWith(b, [0x4d, 0x4d, 0x00, 0x2a])) return { type: 'image/tiff' };
  if (startsWith(b, [0x00, 0x00, 0x01, 0x00, 0x01]) || startsWith(b, [0x00, 0x00, 0x01, 0x00, 0x02])) {
    return { type: 'image/x-icon', family: ['image/vnd.microsoft.icon'] };
  }
  if (ascii(b, 0, 5) === '%PDF-') return { type: 'application/pdf' };
  if (startsWith(b, [0x50, 0x4b, 0x03, 0x04]) || startsWith(b, [0x50, 0x4b, 0x05, 0x06])) return detectZip(b);
  if (startsWith(b, [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]))
    return { type: 'application/x-ole-storage', family: OLE_FAMILY };
  if (startsWith(b, [0x1f, 0x8b])) return { type: 'application/gzip', family: ['application/x-gzip'] };
  if (startsWith(b, [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c])) return { type: 'application/x-7z-compressed' };
  if (ascii(b, 0, 6) === 'Rar!\x1a\x07')
    return { type: 'application/vnd.rar', family: ['application/x-rar-compressed'] };
  if (ascii(b, 0, 3) === 'BZh') return { type: 'application/x-bzip2' };
  if (startsWith(b, [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00])) return { type: 'application/x-xz' };
  if (startsWith(b, [0x28, 0xb5, 0x2f, 0xfd])) return { type: 'application/zstd' };
  if (ascii(b, 257, 262) === 'ustar') return { type: 'application/x-tar' };
  if (ascii(b, 0, 4) === 'fLaC') return { type: 'audio/flac', family: ['audio/x-flac'] };
  if (ascii(b, 0, 4) === 'OggS') return { type: 'audio/ogg', family: ['audio/', 'video/ogg', 'application/ogg'] };
  if (ascii(b, 0, 4) === 'MThd') return { type: 'audio/midi', family: ['audio/'] };
  if (ascii(b, 0, 3) === 'ID3' || (b[0] === 0xff && ((b[1] ?? 0) & 0xe0) === 0xe0 && ((b[1] ?? 0) & 0x06) !== 0)) {
    return { type: 'audio/mpeg', family: ['audio/'] };
  }
  if (ascii(b, 4, 8) === 'ftyp') return detectFtyp(b);
  if (startsWith(b, [0x1a, 0x45, 0xdf, 0xa3])) {
    const webm = ascii(b, 0, 64).includes('webm');
    return { type: webm ? 'video/webm' : 'video/x-matroska', family: ['video/', 'audio/webm'] };
  }
  if (ascii(b, 0, 4) === 'wOFF') return { type: 'font/woff' };
  if (ascii(b, 0, 4) === 'wOF2') return { type: 'font/woff2' };
  // Executables and documents that run code: identified so that no declared type or name can
  // smuggle them in (runnable.ts).
  if (startsWith(b, [0x7f, 0x45, 0x4c, 0x46])) return { type: 'application/x-executable' };
  if (ascii(b, 0, 2) === 'MZ') return { type: 'application/x-msdownload' };
  if (
    [
      [0xfe, 0xed, 0xfa, 0xce],
      [0xfe, 0xed, 0xfa, 0xcf],
      [0xce, 0xfa, 0xed, 0xfe],
      [0xcf, 0xfa, 0xed, 0xfe],
      [0xca, 0xfe, 0xba, 0xbe],
    ].some((signature) => startsWith(b, signature))
  ) {
    return { type: 'application/x-mach-binary' };
  }
  if (startsWith(b, [0x00, 0x61, 0x73, 0x6d])) return { type: 'application/wasm' };
  if (ascii(b, 0, 2) === '#!') return { type: 'text/x-shellscript' };
  // A Windows shortcut (.lnk): header size 0x4C, then the shell link CLSID 00021401-….
  if (startsWith(b, [0x4c, 0x00, 0x00, 0x00, 0x01, 0x14, 0x02, 0x00])) return { type: 'application/x-ms-shortcut' };
  // A OneNote section starts with its file format GUID {7B5C52E4-D88C-4DA7-AEB1-5378D02996D3}.
  if (startsWith(b, [0xe4, 0x52, 0x5c, 0x7b, 0x8c, 0xd8, 0xa7, 0x4d, 0xae, 0xb1, 0x53, 0x78, 0xd0, 0x29, 0x96, 0xd3])) {
    return { type: 'application/onenote' };
  }
  // An Access database (.mdb, .accdb and their compiled forms) names its engine at offset 4.
  if (ascii(b, 4, 19) === 'Standard Jet DB' || ascii(b, 4, 19) === 'Standard ACE DB') {
    return { type: 'application/x-msaccess' };
  }
  return undefined;
}

function looksLikeText(bytes: Uint8Array): boolean {
  if (bytes.includes(0)) return false;
  try {
    // A multi-byte character cut at the end of the sample is still text.
    new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(
      bytes.subarray(0, Math.max(0, bytes.length - 3)),
    );
    return true;
  } catch {
    return false;
  }
}

/** Markup a browser would render or run: recognised whatever the declared type says. */
function detectMarkup(bytes: Uint8Array): string | undefined {
  const head = new TextDecoder()
    .decode(bytes.subarray(0, 1024))
    .replace(/^\uFEFF/, '')
    .trimStart()
    .toLowerCase();
  if (/^<svg[\s>]/.test(head) || (head.startsWith('<?xml') && head.includes('<svg'))) return 'image/svg+xml';
  if (/^<(!doctype html|html|head|body|script|iframe|meta|title|style)[\s>]/.test(head)) return 'text/html';
  if (head.startsWith('<?xml')) return 'application/xml';
  return undefined;
}

// Types guessed from a name when the declared type is generic. Runnable extensions are not
// here: runnable.ts refuses them before any guess.
const EXTENSION_TYPES: Record<string, string> = {
  txt: 'text/plain',
  log: 'text/plain',
  csv: 'text/csv',
  md: 'text/markdown',
  markdown: 'text/markdown',
  json: 'application/json',
  xml: 'application/xml',
  html: 'text/html',
  htm: 'text/html',
  svg: 'image/svg+xml',
  rtf: 'application/rtf',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  doc: 'application/msword',
  xls: 'application/vnd.ms-excel',
  ppt: 'application/vnd.ms-powerpoint',
  odt: 'application/vnd.oasis.opendocument.text',
  ods: 'application/vnd.oasis.opendocument.spreadsheet',
  odp: 'application/vnd.oasis.opendocument.presentation',
};

const GENERIC_TYPES = new Set(['', 'application/octet-stream', 'binary/octet-stream', 'application/unknown']);

/**
 * Types a client sends for a body whatever it holds, which say nothing about a file: curl's
 * `--data-binary` and `-d` default. A file declared so counts as declared with no type.
 */
const NOT_FILE_TYPES = new Set(['application/x-www-form-urlencoded']);

// RFC 9110 §8.3.1: type "/" subtype, both tokens (§5.6.2). Nothing else can travel back in a
// Content-Type header, so nothing else is stored.
const TOKEN = "[!#$%&'*+.^_`|~0-9A-Za-z-]+";
const MEDIA_TYPE = new RegExp(`^${TOKEN}/${TOKEN}$`);

/** The longest media type stored (RFC 6838 allows 127 + 1 + 127 characters). */
export const MAX_MEDIA_TYPE_LENGTH = 255;

/** True for a bare `type/subtype` made of RFC 9110 tokens (no parameters), of sane length. */
export const isMediaType = (value: string) => value.length <= MAX_MEDIA_TYPE_LENGTH && MEDIA_TYPE.test(value);

/**
 * A declared Content-Type as we store it: the `type/subtype` lowercased, parameters dropped.
 * Anything that is not a valid media type (control characters, non-ASCII, a missing half, more
 * than 255 characters) is no declared type at all, '', so the type then comes from the bytes or
 * the name.
 */
export function normalizeMediaType(value: string | undefined): string {
  // Only spaces and tabs are whitespace around a media type (OWS).
  const essence = (value ?? '').split(';', 1)[0]?.replace(/^[ \t]+|[ \t]+$/g, '') ?? '';
  return isMediaType(essence) ? essence.toLowerCase() : '';
}

/** The usual extension (with its dot) of a media type, or '' when it has none we know. */
export function extensionFor(mediaType: string): string {
  const found = Object.entries(EXTENSION_TYPES).find(([, type]) => type === mediaType);
  return found ? `.${found[0]}` : '';
}

function extensionType(filename: string): string | undefined {
  const dot = filename.lastIndexOf('.');
  return dot < 0 ? undefined : EXTENSION_TYPES[filename.slice(dot + 1).toLowerCase()];
}

function compatible(declared: string, detected: Detected): boolean {
  if (declared === detected.type) return true;
  if (detected.type === 'application/zip' && isZipBased(declared)) return true;
  return (detected.family ?? []).some((member) =>
    member.endsWith('/') ? declared.startsWith(member) : member === declared,
  );
}

// Declared types whose signature we know: content without that signature contradicts them.
const SIGNED_TYPES = new Set([
  'image/png',
  'image/jpeg',
  'image/gif',
  'image/webp',
  'image/bmp',
  'image/tiff',
  'application/pdf',
  'application/zip',
  'application/gzip',
  'application/x-7z-compressed',
  'application/vnd.rar',
  'application/x-bzip2',
  'application/x-xz',
  'application/zstd',
  'audio/flac',
  'audio/ogg',
  'audio/wav',
  'video/mp4',
  'video/webm',
  'video/quicktime',
]);

export type TypeDecision = { ok: true; mimeType: string } | { ok: false; mimeType: string; reason: string };

/**
 * The upload's media type: what the bytes prove where they prove it, else the declared type
 * (or the extension's when the declared one is generic). A declared type the bytes contradict,
 * or a type outside the allowed patterns, is refused.
 */
export function decideFileType(
  head: Uint8Array,
  declaredRaw: string | undefined,
  filename: string,
  allowed: readonly string[],
): TypeDecision {
  const normalized = normalizeMediaType(declaredRaw);
  const declared = NOT_FILE_TYPES.has(normalized) ? '' : normalized;
  const declaredOrGuess = GENERIC_TYPES.has(declared) ? (extensionType(filename) ?? declared) : declared;
  const refuse = (mimeType: string, reason: string): TypeDecision => ({ ok: false, mimeType, reason });
  // Saved under a runnable name, or declared as a runnable type, a file runs when opened
  // whatever its bytes are; no allow-list can admit it.
  const extension = runnableExtension(filename);
  if (extension) return refuse(declaredOrGuess || 'application/octet-stream', `.${extension} files are not allowed`);
  if (isRunnableType(declared)) return refuse(declared, `${declared} files are not allowed`);

  let mimeType: string;
  const detected = detectFromBytes(head);
  if (detected) {
    if (!GENERIC_TYPES.has(declared) && !compatible(declared, detected)) {
      return refuse(detected.type, `declared type ${declared} does not match the content (${detected.type})`);
    }
    const container = detected.type === 'application/zip' || detected.type === 'application/x-ole-storage';
    const hint = GENERIC_TYPES.has(declared) ? extensionType(filename) : declared;
    // A container's bytes say "zip" or "OLE"; the declared type or extension says which document it is.
    mimeType = container && hint && compatible(hint, detected) ? hint : detected.type;
  } else if (head.length === 0 || looksLikeText(head)) {
    const markup = head.length > 0 ? detectMarkup(head) : undefined;
    if (markup) {
      const textual = declared.startsWith('text/') || declared.endsWith('+xml') || declared.endsWith('/xml');
      if (!GENERIC_TYPES.has(declared) && !textual) {
        return refuse(markup, `declared type ${declared} does not match the content (${markup})`);
      }
      mimeType = markup;
    } else if (SIGNED_TYPES.has(declaredOrGuess) && head.length > 0) {
      return refuse(declaredOrGuess, `the content is not ${declaredOrGuess}`);
    } else {
      mimeType = GENERIC_TYPES.has(declaredOrGuess) ? 'text/plain' : declaredOrGuess;
    }
  } else {
    if (SIGNED_TYPES.has(declaredOrGuess)) return refuse(declaredOrGuess, `the content is not ${declaredOrGuess}`);
    mimeType = declaredOrGuess || 'application/octet-stream';
  }

  if (isRunnableType(mimeType)) return refuse(mimeType, `${mimeType} files are not allowed`);
  if (!isAllowed(mimeType, allowed)) return refuse(mimeType, `${mimeType} files are not allowed`);
  return { ok: true, mimeType };
}

export function isAllowed(mimeType: string, patterns: readonly string[]): boolean {
  return patterns.some((pattern) =>
    pattern.endsWith('*') ? mimeType.startsWith(pattern.slice(0, -1)) : mimeType === pattern,
  );
}

/** Types a browser would render or execute: always served as a sandboxed attachment. */
export function isActiveContent(mimeType: string): boolean {
  return (
    mimeType === 'text/html' ||
    mimeType === 'application/xhtml+xml' ||
    mimeType === 'image/svg+xml' ||
    mimeType.endsWith('/xml') ||
    mimeType.endsWith('+xml') ||
    mimeType.includes('javascript')
  );
}
