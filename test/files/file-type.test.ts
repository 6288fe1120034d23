import { describe, expect, it } from 'vitest';
import { DEFAULT_ALLOWED_FILE_TYPES } from '../../src/config';
import {
  decideFileType,
  detectFromBytes,
  isActiveContent,
  isMediaType,
  normalizeMediaType,
} from '../../src/files/file-type';
import { asciiFallback, cleanOriginalName, contentDisposition, storedFilename } from '../../src/files/names';
import { RUNNABLE_EXTENSIONS, RUNNABLE_MEDIA_TYPES } from '../../src/files/runnable';
import { randomBase64Url } from '../../src/lib/crypto';
import { splitParams } from '../../src/lib/multipart';

const encoder = new TextEncoder();
const text = (value: string) => encoder.encode(value);
const of = (...parts: (number[] | string)[]) =>
  Uint8Array.from(parts.flatMap((part) => (typeof part === 'string' ? [...text(part)] : part)));
const padded = (head: Uint8Array, length = 64) => {
  const out = new Uint8Array(Math.max(length, head.length));
  out.set(head);
  return out;
};

const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';

/** A zip local file header whose first entry has the given name (and, for ODF/EPUB, content). */
function zip(entryName: string, entryContent = '') {
  const name = text(entryName);
  const header = new Uint8Array(30);
  header.set([0x50, 0x4b, 0x03, 0x04]);
  header[26] = name.length;
  return of([...header], [...name], entryContent, [0, 0, 0, 0]);
}

const SAMPLES = {
  png: padded(of([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13], 'IHDR')),
  jpeg: padded(of([0xff, 0xd8, 0xff, 0xe0, 0, 16], 'JFIF', [0])),
  gif: padded(of('GIF89a', [1, 0, 1, 0])),
  pdf: of('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n'),
  zip: zip('readme.txt', 'hello'),
  docx: zip('[Content_Types].xml', '<?xml'),
  odt: zip('mimetype', 'application/vnd.oasis.opendocument.text'),
  gzip: padded(of([0x1f, 0x8b, 0x08, 0x00])),
  mp4: padded(of([0, 0, 0, 0x18], 'ftypisom', [0, 0, 2, 0], 'isomiso2')),
  webm: padded(of([0x1a, 0x45, 0xdf, 0xa3, 0x9f, 0x42, 0x86, 0x81, 0x01, 0x42, 0x82, 0x84], 'webm')),
  mp3: padded(of('ID3', [4, 0, 0, 0, 0, 0, 0])),
  mp3Frame: padded(of([0xff, 0xfb, 0x90, 0x64])),
  wav: padded(of('RIFF', [0x24, 0, 0, 0], 'WAVEfmt ')),
  elf: padded(of([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0])),
  mz: padded(of('MZ', [0x90, 0, 3, 0])),
  machO: padded(of([0xcf, 0xfa, 0xed, 0xfe, 7, 0, 0, 1])),
  fatMachO: padded(of([0xca, 0xfe, 0xba, 0xbe, 0, 0, 0, 2])),
  shebang: of('#!/bin/sh\necho hello\n'),
  wasm: padded(of([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0])),
};

const decide = (
  head: Uint8Array,
  declared: string | undefined,
  filename: string,
  allowed = DEFAULT_ALLOWED_FILE_TYPES,
) => decideFileType(head, declared, filename, allowed);

describe('detectFromBytes', () => {
  it.each([
    ['png', 'image/png'],
    ['jpeg', 'image/jpeg'],
    ['gif', 'image/gif'],
    ['pdf', 'application/pdf'],
    ['zip', 'application/zip'],
    ['odt', 'application/vnd.oasis.opendocument.text'],
    ['gzip', 'application/gzip'],
    ['mp4', 'video/mp4'],
    ['webm', 'video/webm'],
    ['mp3', 'audio/mpeg'],
    ['mp3Frame', 'audio/mpeg'],
    ['wav', 'audio/wav'],
    ['elf', 'application/x-executable'],
    ['mz', 'application/x-msdownload'],
    ['machO', 'application/x-mach-binary'],
    ['fatMachO', 'application/x-mach-binary'],
    ['shebang', 'text/x-shellscript'],
    ['wasm', 'application/wasm'],
  ] as const)('recognises %s', (sample, type) => {
    expect(detectFromBytes(SAMPLES[sample])?.type).toBe(type);
  });

  it('proves nothing about plain text, unknown binary or nothing at all', () => {
    expect(detectFromBytes(text('just some words'))).toBeUndefined();
    expect(detectFromBytes(of([0x01, 0x02, 0x03, 0x04, 0x05]))).toBeUndefined();
    expect(detectFromBytes(new Uint8Array())).toBeUndefined();
  });

  it('does not mistake a truncated signature for the real thing', () => {
    expect(detectFromBytes(of([0x89, 0x50, 0x4e, 0x47]))?.type).not.toBe('image/png');
    expect(detectFromBytes(text('%PD'))).toBeUndefined();
  });
});

describe('normalizeMediaType', () => {
  it.each([
    ['text/plain', 'text/plain'],
    ['Text/Plain', 'text/plain'],
    ['text/plain; charset=utf-8', 'text/plain'],
    ['text/plain;;', 'text/plain'],
    [' \ttext/plain\t ', 'text/plain'],
    ['application/vnd.api+json', 'application/vnd.api+json'],
    ["application/x-!#$%&'*+.^_`|~-1", "application/x-!#$%&'*+.^_`|~-1"],
  ])('turns %j into %j', (raw, expected) => {
    expect(normalizeMediaType(raw)).toBe(expected);
    expect(isMediaType(expected)).toBe(true);
  });

  it.each([
    'text/plain\u0000',
    'text/pl\u0001ain',
    'text/plain\u001f',
    'te\u007fxt/plain',
    'text/pl\tain',
    'text/plain\r\nX-Injected: 1',
    'text/plain\nX-Injected: 1',
    'tëxt/plain',
    'text/plai\u212a', // the Kelvin sign lowercases to an ASCII k: refused before lowercasing
    'text/plain\u00a0',
    '/plain',
    'text/',
    'text',
    'text/plain/x',
    'text /plain',
    '',
    ';charset=utf-8',
  ])('treats %j as no declared type', (raw) => {
    expect(normalizeMediaType(raw)).toBe('');
  });

  it('treats a missing header as no declared type', () => {
    expect(normalizeMediaType(undefined)).toBe('');
  });
});

describe('decideFileType with the default allow-list', () => {
  it.each([
    ['png', 'image/png', 'a.png', 'image/png'],
    ['png', 'application/octet-stream', 'a.bin', 'image/png'],
    ['png', '', 'no-extension', 'image/png'],
    ['jpeg', 'image/jpeg', 'a.jpg', 'image/jpeg'],
    ['gif', 'image/gif', 'a.gif', 'image/gif'],
    ['pdf', 'application/pdf', 'a.pdf', 'application/pdf'],
    ['pdf', 'application/octet-stream', 'a', 'application/pdf'],
    ['zip', 'application/zip', 'a.zip', 'application/zip'],
    ['docx', DOCX, 'report.docx', DOCX],
    ['docx', 'application/octet-stream', 'report.docx', DOCX],
    ['docx', 'application/zip', 'report.zip', 'application/zip'],
    ['odt', 'application/octet-stream', 'a.odt', 'application/vnd.oasis.opendocument.text'],
    ['gzip', 'application/gzip', 'a.gz', 'application/gzip'],
    ['gzip', 'application/x-gzip', 'a.gz', 'application/gzip'],
    ['mp4', 'video/mp4', 'a.mp4', 'video/mp4'],
    ['webm', 'video/webm', 'a.webm', 'video/webm'],
    ['webm', 'audio/webm', 'a.webm', 'video/webm'],
    ['mp3', 'audio/mpeg', 'a.mp3', 'audio/mpeg'],
    ['mp3', 'audio/mp3', 'a.mp3', 'audio/mpeg'],
    ['wav', 'audio/wav', 'a.wav', 'audio/wav'],
    ['wav', 'audio/x-wav', 'a.wav', 'audio/wav'],
  ] as const)('accepts %s declared as "%s" (%s) and stores it as %s', (sample, declared, filename, expected) => {
    expect(decide(SAMPLES[sample], declared, filename)).toEqual({ ok: true, mimeType: expected });
  });

  it('decides from the bytes or the name when the declared type is not a valid media type', () => {
    expect(decide(text('hello'), 'text/plain\u0000', 'a.txt')).toEqual({ ok: true, mimeType: 'text/plain' });
    expect(decide(SAMPLES.png, 'image/png\r\nX: y', 'a.png')).toEqual({ ok: true, mimeType: 'image/png' });
    expect(decide(text('a,b\n'), 'te\u007fxt/csv', 'data.csv')).toEqual({ ok: true, mimeType: 'text/csv' });
  });

  it('ignores parameters and case in the declared type', () => {
    expect(decide(text('hello'), 'Text/Plain; charset=UTF-8', 'a.txt')).toEqual({ ok: true, mimeType: 'text/plain' });
    expect(decide(SAMPLES.png, 'IMAGE/PNG', 'a.png')).toEqual({ ok: true, mimeType: 'image/png' });
  });

  it.each([
    ['elf', 'application/octet-stream', 'tool'],
    ['elf', 'image/png', 'cat.png'],
    ['elf', 'text/plain', 'notes.txt'],
    ['mz', 'application/octet-stream', 'setup.exe'],
    ['mz', 'application/pdf', 'invoice.pdf'],
    ['mz', '', 'invoice.pdf'],
    ['machO', 'application/octet-stream', 'app'],
    ['fatMachO', 'application/zip', 'app.zip'],
    ['shebang', 'text/plain', 'readme.txt'],
    ['shebang', 'application/octet-stream', 'run'],
    ['wasm', 'application/octet-stream', 'a.wasm'],
  ] as const)('refuses the executable %s declared as "%s" (%s)', (sample, declared, filename) => {
    expect(decide(SAMPLES[sample], declared, filename).ok).toBe(false);
  });

  it.each([
    ['<!DOCTYPE html><html><body>x</body></html>', 'text/html'],
    ['  \n<html lang="en"><script>alert(1)</script>', 'text/html'],
    ['\uFEFF<script>alert(1)</script>', 'text/html'],
    ['<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>', 'image/svg+xml'],
    ['<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg"/>', 'image/svg+xml'],
    ['<?xml version="1.0"?>\n<catalog/>', 'application/xml'],
  ])('recognises markup %j as %s whatever textual type is declared', (content, expected) => {
    for (const declared of ['text/plain', 'application/octet-stream', '']) {
      const decision = decide(text(content), declared, 'notes.txt');
      expect(decision, declared).toEqual({ ok: true, mimeType: expected });
      expect(isActiveContent(decision.mimeType)).toBe(true);
    }
  });

  it.each([
    ['text declared as image/png', text('hello, world'), 'image/png', 'a.png'],
    ['text declared as application/pdf', text('hello, world'), 'application/pdf', 'a.pdf'],
    ['text declared as video/mp4', text('hello, world'), 'video/mp4', 'a.mp4'],
    ['an HTML page declared as image/png', text('<html><script>alert(1)</script></html>'), 'image/png', 'a.png'],
    ['an SVG declared as image/jpeg', text('<svg onload="alert(1)"></svg>'), 'image/jpeg', 'a.jpg'],
    ['a PNG declared as image/jpeg', SAMPLES.png, 'image/jpeg', 'a.jpg'],
    ['a PDF declared as image/png', SAMPLES.pdf, 'image/png', 'a.png'],
    ['a zip declared as application/pdf', SAMPLES.zip, 'application/pdf', 'a.pdf'],
    ['unknown binary declared as image/png', of([1, 2, 3, 0, 5, 6]), 'image/png', 'a.png'],
  ])('refuses %s', (_label, head, declared, filename) => {
    expect(decide(head, declared, filename).ok).toBe(false);
  });

  it('types text by its content, not by a misleading extension', () => {
    expect(decide(text('hello, world'), 'application/octet-stream', 'a.png')).toEqual({
      ok: true,
      mimeType: 'text/plain',
    });
  });

  it('calls generic text plain text', () => {
    expect(decide(text('hello'), 'application/octet-stream', 'notes')).toEqual({ ok: true, mimeType: 'text/plain' });
    expect(decide(text('hello'), '', 'notes')).toEqual({ ok: true, mimeType: 'text/plain' });
    expect(decide(text('héllo ✓ 日本'), undefined, 'notes')).toEqual({ ok: true, mimeType: 'text/plain' });
  });

  it("takes curl's --data-binary default (application/x-www-form-urlencoded) for no declared type", () => {
    const formType = 'application/x-www-form-urlencoded';
    expect(decide(SAMPLES.png, formType, 'photo.png')).toEqual({ ok: true, mimeType: 'image/png' });
    expect(decide(text('hello'), `${formType}; charset=utf-8`, 'notes')).toEqual({ ok: true, mimeType: 'text/plain' });
    expect(decide(text('a,b\n'), formType, 'data.csv')).toEqual({ ok: true, mimeType: 'text/csv' });
    expect(decide(of([1, 2, 3, 0, 5, 6]), formType, 'blob')).toEqual({
      ok: true,
      mimeType: 'application/octet-stream',
    });
    expect(decide(text('echo hi'), formType, 'run.sh').ok).toBe(false);
  });

  it('falls back on the extension when the declared type is generic', () => {
    expect(decide(text('a,b\n1,2\n'), 'application/octet-stream', 'data.csv')).toEqual({
      ok: true,
      mimeType: 'text/csv',
    });
    expect(decide(text('# Title\n'), '', 'README.md')).toEqual({ ok: true, mimeType: 'text/markdown' });
    expect(decide(text('{"a":1}'), 'application/octet-stream', 'data.JSON')).toEqual({
      ok: true,
      mimeType: 'application/json',
    });
  });

  it.each([
    ['a .js file with a generic type', 'application/octet-stream', 'app.js'],
    ['a .js file with no type', '', 'app.mjs'],
    ['text/javascript', 'text/javascript', 'app.txt'],
    ['application/javascript', 'application/javascript', 'app'],
    ['a shell script by name', 'application/octet-stream', 'install.sh'],
    ['a PowerShell script by name', '', 'run.ps1'],
    ['a PHP page by name', 'application/octet-stream', 'index.php'],
  ])('refuses scripts: %s', (_label, declared, filename) => {
    expect(decide(text('console.log("hi")'), declared, filename).ok).toBe(false);
  });

  it('keeps unidentified binary content as application/octet-stream', () => {
    expect(decide(of([1, 2, 3, 0, 5, 6]), 'application/octet-stream', 'blob.bin')).toEqual({
      ok: true,
      mimeType: 'application/octet-stream',
    });
  });

  it('refuses unidentified binary declared as a type no pattern covers', () => {
    expect(decide(of([1, 2, 3, 0, 5, 6]), 'application/x-made-up', 'blob.bin').ok).toBe(false);
  });

  it.each(['setup.exe', 'library.dll', 'package.msi', 'run.bat', 'tool.cmd'])(
    'refuses content saved under the program name %s, whatever it looks like',
    (filename) => {
      expect(decide(of([1, 2, 3, 0, 5, 6]), 'application/octet-stream', filename).ok).toBe(false);
      expect(decide(text('harmless text'), 'text/plain', filename).ok).toBe(false);
    },
  );

  it('accepts an empty file of an allowed type', () => {
    expect(decide(new Uint8Array(), 'text/plain', 'empty.txt')).toEqual({ ok: true, mimeType: 'text/plain' });
    expect(decide(new Uint8Array(), '', 'empty')).toEqual({ ok: true, mimeType: 'text/plain' });
  });

  it('explains a refusal', () => {
    const decision = decide(SAMPLES.elf, 'image/png', 'cat.png');
    expect(decision.ok).toBe(false);
    if (!decision.ok) expect(decision.reason).toMatch(/image\/png/);
  });
});

describe('decideFileType with a custom allow-list', () => {
  it('allows only what the patterns cover', () => {
    const images = ['image/*'];
    expect(decide(SAMPLES.png, 'image/png', 'a.png', images).ok).toBe(true);
    expect(decide(SAMPLES.gif, '', 'a.gif', images).ok).toBe(true);
    expect(decide(SAMPLES.pdf, 'application/pdf', 'a.pdf', images).ok).toBe(false);
    expect(decide(text('hello'), 'text/plain', 'a.txt', images).ok).toBe(false);
  });

  it('matches exact types exactly', () => {
    const pdfOnly = ['application/pdf'];
    expect(decide(of([1, 2, 3, 0, 5, 6]), 'application/octet-stream', 'blob.bin', pdfOnly).ok).toBe(false);
    expect(decide(SAMPLES.pdf, 'application/pdf', 'a.pdf', pdfOnly).ok).toBe(true);
    expect(decide(SAMPLES.zip, 'application/zip', 'a.zip', pdfOnly).ok).toBe(false);
    expect(decide(SAMPLES.png, 'image/png', 'a.png', pdfOnly).ok).toBe(false);
  });

  it('matches subtype prefixes', () => {
    const office = ['application/vnd.openxmlformats-officedocument.*'];
    expect(decide(SAMPLES.docx, DOCX, 'a.docx', office)).toEqual({ ok: true, mimeType: DOCX });
    expect(decide(SAMPLES.zip, 'application/zip', 'a.zip', office).ok).toBe(false);
  });

  it('never lets an allow-list admit scripts', () => {
    expect(decide(text('alert(1)'), 'application/octet-stream', 'a.js', ['text/*', 'application/*']).ok).toBe(false);
    expect(decide(SAMPLES.shebang, 'text/plain', 'a.txt', ['text/*']).ok).toBe(false);
  });

  it('never admits executables, even when the list names their type', () => {
    expect(decide(SAMPLES.elf, 'application/octet-stream', 'tool', ['application/*']).ok).toBe(false);
    expect(decide(SAMPLES.elf, 'application/octet-stream', 'tool', ['application/x-executable']).ok).toBe(false);
    expect(decide(SAMPLES.mz, '', 'setup', ['application/x-msdownload']).ok).toBe(false);
  });
});

// Everything the README promises to refuse, checked against the one list in src/files/runnable.ts.
const PERMISSIVE = ['text/*', 'application/*', 'image/*', 'audio/*', 'video/*', 'font/*', 'model/*'];
const UNKNOWN_BINARY = of([1, 2, 3, 0, 5, 6]);

describe('runnable files', () => {
  it('lists every type the hardening issue and Gmail name, and the Unix and script ones', () => {
    const named = [
      // the issue
      'hta vbs vbe wsf wsh jse reg lnk url scr cpl command desktop appimage pif application gadget msp jar',
      // Gmail's blocked attachments
      'ade adp apk appx appxbundle bat cab chm cmd com cpl diagcab dll dmg exe hta ins isp jar jnlp js jse lib lnk',
      'mde msc msi msix msixbundle msp mst nsh pif ps1 scr sct shb sys vb vbe vbs vxd wsc wsf wsh xll',
      // Unix and macOS, and scripts
      'sh bash zsh csh ksh command tool desktop appimage run py pl rb php phar',
      // disk images
      'iso img vhd vhdx',
      // issue 14: credential-leaking and runnable types of the current Windows and macOS lists
      'library-ms search-ms searchconnector-ms theme themepack rdp iqy slk settingcontent-ms appref-ms xll xbap',
      'applescript scpt lua ws msh msh1 msh2 mshxml msh1xml msh2xml mof',
      // Outlook's Level 1 list (Windows Attachment Manager's high-risk types)
      'app asp aspx bas bgi cer cnt crt der fxp grp hpj htc its mad mda mdb mdt mdw mdz msu ops osd pcd plg',
      'prf prg printerexport psd1 psdm1 vbp vsmacros vsw webpnp ws wsb xnk',
      // macOS's LSRiskCategoryUnsafeExecute types
      'app command tool terminal workflow action definition scptd osax prefpane saver wdgt fileloc inetloc webloc mobileconfig',
      // issue 29: OneNote, web archives, macro-enabled Office, compiled Access, certificate bundles
      'one mht mhtml docm xlsm pptm dotm xlam accde p7b msrcincident',
    ].flatMap((group) => group.split(' '));
    expect(named.filter((extension) => !RUNNABLE_EXTENSIONS.includes(extension))).toEqual([]);
  });

  it('keeps the lists tidy: lowercase, no dots, no repeats, valid media types', () => {
    for (const extension of RUNNABLE_EXTENSIONS) expect(extension).toMatch(/^[a-z0-9][a-z0-9-]*$/);
    expect(new Set(RUNNABLE_EXTENSIONS).size).toBe(RUNNABLE_EXTENSIONS.length);
    for (const type of RUNNABLE_MEDIA_TYPES) expect(type).toMatch(/^[a-z]+\/[a-z0-9.+-]+$/);
    expect(new Set(RUNNABLE_MEDIA_TYPES).size).toBe(RUNNABLE_MEDIA_TYPES.length);
  });

  describe.each(RUNNABLE_EXTENSIONS)('.%s', (extension) => {
    it('is refused by name whatever the content, declared type or allow-list', () => {
      for (const [head, declared] of [
        [text('harmless text'), 'text/plain'],
        [text('harmless text'), 'application/octet-stream'],
        [text('harmless text'), ''],
        [UNKNOWN_BINARY, 'application/octet-stream'],
        [SAMPLES.png, 'image/png'],
      ] as const) {
        for (const allowed of [DEFAULT_ALLOWED_FILE_TYPES, PERMISSIVE]) {
          const decision = decide(head, declared, `report.${extension}`, allowed);
          expect(decision.ok, `${declared} as report.${extension}`).toBe(false);
          if (!decision.ok) expect(decision.reason).toContain(`.${extension} files are not allowed`);
        }
      }
    });

    it('is refused in any case, after another extension, and with trailing dots or spaces', () => {
      for (const name of [
        `REPORT.${extension.toUpperCase()}`,
        `Report.${extension[0]?.toUpperCase()}${extension.slice(1)}`,
        `invoice.pdf.${extension}`,
        `photo.jpg.${extension}`,
        `report.${extension}.`,
        `report.${extension} .. `,
      ]) {
        expect(decide(text('harmless text'), 'text/plain', name, PERMISSIVE).ok, name).toBe(false);
      }
    });

    it('counts only as the last extension: report.<ext>.txt is text', () => {
      expect(decide(text('harmless text'), 'text/plain', `report.${extension}.txt`)).toEqual({
        ok: true,
        mimeType: 'text/plain',
      });
    });
  });

  it.each(RUNNABLE_MEDIA_TYPES)('refuses %s when declared, whatever the name, content or allow-list', (type) => {
    for (const [head, filename] of [
      [UNKNOWN_BINARY, 'blob.bin'],
      [text('harmless text'), 'notes'],
      [text('harmless text'), 'notes.txt'],
      [new Uint8Array(), 'empty'],
    ] as const) {
      for (const declared of [type, type.toUpperCase(), `${type}; charset=utf-8`]) {
        for (const allowed of [DEFAULT_ALLOWED_FILE_TYPES, PERMISSIVE, [type]]) {
          expect(decide(head, declared, filename, allowed).ok, `${declared} ${filename}`).toBe(false);
        }
      }
    }
  });

  it('recognises a Windows shortcut by its bytes and refuses it under any name', () => {
    const lnk = padded(of([0x4c, 0, 0, 0, 0x01, 0x14, 0x02, 0x00, 0, 0, 0, 0, 0xc0, 0, 0, 0, 0, 0, 0, 0x46]));
    expect(detectFromBytes(lnk)?.type).toBe('application/x-ms-shortcut');
    for (const [declared, filename] of [
      ['application/octet-stream', 'holiday.jpg'],
      ['', 'readme'],
      ['application/pdf', 'invoice.pdf'],
    ] as const) {
      expect(decide(lnk, declared, filename, PERMISSIVE).ok, filename).toBe(false);
    }
  });

  it.each([
    ['elf', 'application/x-executable'],
    ['mz', 'application/x-msdownload'],
    ['machO', 'application/x-mach-binary'],
    ['wasm', 'application/wasm'],
    ['shebang', 'text/x-shellscript'],
  ] as const)('refuses %s content named as harmless data, whatever the allow-list', (sample, type) => {
    expect(RUNNABLE_MEDIA_TYPES).toContain(type);
    for (const allowed of [DEFAULT_ALLOWED_FILE_TYPES, PERMISSIVE, [type]]) {
      expect(decide(SAMPLES[sample], 'application/octet-stream', 'data.bin', allowed).ok).toBe(false);
    }
  });

  it('refuses a jar or an APK by its bytes, even named and declared as a zip', () => {
    const jar = zip('META-INF/MANIFEST.MF', 'Manifest-Version: 1.0');
    const apk = zip('AndroidManifest.xml', '');
    for (const head of [jar, apk]) {
      expect(decide(head, 'application/octet-stream', 'archive.zip', PERMISSIVE).ok).toBe(false);
      expect(decide(head, 'application/zip', 'archive.zip', PERMISSIVE).ok).toBe(false);
    }
  });

  const OLE = padded(of([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]));
  const MACRO_EXTENSIONS = ['docm', 'dotm', 'xlsm', 'xltm', 'xlam', 'pptm', 'potm', 'ppsm', 'ppam', 'sldm'];

  it.each(MACRO_EXTENSIONS)('refuses a zip or OLE container named .%s, whatever it is declared as', (extension) => {
    for (const head of [SAMPLES.docx, SAMPLES.zip, OLE]) {
      for (const declared of ['application/octet-stream', '', DOCX, 'application/zip', 'application/msword']) {
        const decision = decide(head, declared, `budget.${extension}`, PERMISSIVE);
        expect(decision.ok, `${declared} as budget.${extension}`).toBe(false);
      }
    }
  });

  it.each([
    'application/vnd.ms-word.document.macroEnabled.12',
    'application/vnd.ms-excel.sheet.macroEnabled.12',
    'application/vnd.ms-powerpoint.presentation.macroEnabled.12',
    'application/vnd.ms-excel.addin.macroEnabled.12',
    'application/vnd.ms-word.template.macroEnabled.12',
  ])('refuses an Office container declared %s under a macro-free name', (type) => {
    expect(RUNNABLE_MEDIA_TYPES).toContain(type.toLowerCase());
    for (const [head, filename] of [
      [SAMPLES.docx, 'budget.docx'],
      [SAMPLES.zip, 'budget.zip'],
      [OLE, 'budget.doc'],
    ] as const) {
      expect(decide(head, type, filename, PERMISSIVE).ok, filename).toBe(false);
    }
  });

  it.each([
    ['budget.one', 'application/onenote'],
    ['page.mht', 'message/rfc822'],
    ['page.mhtml', 'application/x-mimearchive'],
    ['page.mht', 'multipart/related'],
    ['roots.p7b', 'application/x-pkcs7-certificates'],
    ['roots.p7b', 'application/pkcs7-mime'],
    ['app.accde', 'application/x-msaccess'],
  ])('refuses %s by name and its type %s under any name', (filename, type) => {
    expect(RUNNABLE_MEDIA_TYPES).toContain(type);
    expect(decide(text('harmless text'), 'application/octet-stream', filename, PERMISSIVE).ok).toBe(false);
    expect(decide(text('harmless text'), type, 'notes.txt', PERMISSIVE).ok).toBe(false);
  });

  it('recognises OneNote and Access files by their bytes and refuses them under any name', () => {
    const one = padded(
      of([0xe4, 0x52, 0x5c, 0x7b, 0x8c, 0xd8, 0xa7, 0x4d, 0xae, 0xb1, 0x53, 0x78, 0xd0, 0x29, 0x96, 0xd3]),
    );
    const accdb = padded(of([0, 1, 0, 0], 'Standard ACE DB', [0]));
    const mdb = padded(of([0, 1, 0, 0], 'Standard Jet DB', [0]));
    expect(detectFromBytes(one)?.type).toBe('application/onenote');
    expect(detectFromBytes(accdb)?.type).toBe('application/x-msaccess');
    expect(detectFromBytes(mdb)?.type).toBe('application/x-msaccess');
    for (const head of [one, accdb, mdb]) {
      for (const [declared, filename] of [
        ['application/octet-stream', 'notes.bin'],
        ['', 'readme'],
        ['application/pdf', 'invoice.pdf'],
      ] as const) {
        expect(decide(head, declared, filename, PERMISSIVE).ok, filename).toBe(false);
      }
    }
  });

  it('still accepts macro-free Office documents', () => {
    expect(decide(SAMPLES.docx, 'application/octet-stream', 'budget.docx')).toEqual({ ok: true, mimeType: DOCX });
    expect(decide(OLE, 'application/octet-stream', 'budget.doc')).toEqual({ ok: true, mimeType: 'application/msword' });
  });

  it.each(['zip', 'tar', 'gz', 'tgz', 'bz2', 'xz', 'zst', '7z', 'rar'])(
    'keeps ordinary .%s archives allowed',
    (extension) => {
      expect(decide(UNKNOWN_BINARY, 'application/octet-stream', `backup.${extension}`).ok).toBe(true);
    },
  );

  it('accepts real zip and gzip archives', () => {
    expect(decide(SAMPLES.zip, 'application/zip', 'a.zip')).toEqual({ ok: true, mimeType: 'application/zip' });
    expect(decide(SAMPLES.gzip, '', 'a.tar.gz')).toEqual({ ok: true, mimeType: 'application/gzip' });
  });

  it('does not mistake names that merely contain a runnable word', () => {
    for (const name of ['exe', 'my.exe-notes.txt', 'bash-history.txt', 'script.js.md', 'jar']) {
      expect(decide(text('harmless text'), 'text/plain', name).ok, name).toBe(true);
    }
  });
});

describe('the default allow-list', () => {
  it('covers documents, images, audio, video, text and archives but no executables', () => {
    const allowed = (type: string) => decide(new Uint8Array(), type, 'x', DEFAULT_ALLOWED_FILE_TYPES).ok;
    for (const type of [
      'image/webp',
      'audio/ogg',
      'video/quicktime',
      'text/plain',
      'text/csv',
      'application/pdf',
      'application/zip',
    ]) {
      expect(allowed(type), type).toBe(true);
    }
    for (const type of [
      'application/x-msdownload',
      'application/x-executable',
      'application/x-sh',
      'application/wasm',
    ]) {
      expect(allowed(type), type).toBe(false);
    }
  });
});

describe('cleanOriginalName', () => {
  it.each([
    ['report.pdf', 'report.pdf'],
    ['../../etc/passwd', 'passwd'],
    ['C:\\Users\\me\\Desktop\\evil.txt', 'evil.txt'],
    ['dir/sub/', 'file'],
    ['a\u0000b\r\nc\t.txt', 'abc.txt'],
    ['bell\u0007\u007f\u0085.txt', 'bell.txt'],
    ['invoice\u202Etxt.exe', 'invoicetxt.exe'],
    ['  spaced.txt  ', 'spaced.txt'],
    ['café 日本語 😀.txt', 'café 日本語 😀.txt'],
    ['cafe\u0301.txt', 'caf\u00e9.txt'],
    ['', 'file'],
    ['.', 'file'],
    ['..', 'file'],
    ['\u0000\u0001', 'file'],
  ])('turns %j into %j', (raw, expected) => {
    expect(cleanOriginalName(raw)).toBe(expected);
  });

  it('gives "file" for no name at all', () => {
    expect(cleanOriginalName(undefined)).toBe('file');
  });

  it('cuts a long name to at most 255 UTF-8 bytes without splitting a character', () => {
    const cases = [
      ['a'.repeat(400), ''],
      ['😀'.repeat(100), ''],
      [`${'é'.repeat(200)}.txt`, '.txt'],
      [`${'日'.repeat(100)}.pdf`, '.pdf'],
    ] as const;
    for (const [raw, ext] of cases) {
      const name = cleanOriginalName(raw);
      expect(new TextEncoder().encode(name).length).toBeLessThanOrEqual(255);
      expect(new TextEncoder().encode(name).length).toBeGreaterThan(250);
      expect(() => encodeURIComponent(name)).not.toThrow(); // throws on a lone surrogate
      // The stem is cut; the extension survives.
      expect(name.endsWith(ext)).toBe(true);
      expect(raw.startsWith(name.slice(0, name.length - ext.length))).toBe(true);
    }
  });
});

describe('storedFilename', () => {
  const SAFE = /^[A-Za-z0-9._-]+$/;
  const id = () => randomBase64Url(16);

  it.each([
    'report.pdf',
    'My Report (final).PDF',
    '日本語の書類.docx',
    '😀😀😀',
    'a"b<c>d|e?f*g.txt',
    '.htaccess',
    'archive.tar.gz',
    'x'.repeat(255),
    'name.with a space in ext',
  ])('makes a safe, distinct name for %j', (original) => {
    const fileId = id();
    const stored = storedFilename(original, fileId);
    expect(stored).toMatch(SAFE);
    expect(stored).toContain(fileId);
    expect(stored).not.toBe(original);
    expect(stored.length).toBeLessThanOrEqual(100);
  });

  it('keeps the extension, lowercased', () => {
    expect(storedFilename('My Report.PDF', id())).toMatch(/\.pdf$/);
    expect(storedFilename('archive.tar.gz', id())).toMatch(/\.gz$/);
    expect(storedFilename('photo.jpeg', id())).toMatch(/^photo_.+\.jpeg$/);
  });

  it('differs from the original even when the original is already safe', () => {
    const fileId = id();
    expect(storedFilename(`report_${fileId}.pdf`, fileId)).not.toBe(`report_${fileId}.pdf`);
  });

  it('gives the same original name a different stored name per file', () => {
    const names = new Set(Array.from({ length: 50 }, () => storedFilename('same.txt', id())));
    expect(names.size).toBe(50);
  });
});

describe('contentDisposition', () => {
  const hostile = [
    'plain.txt',
    'café 日本語.txt',
    'quote"s and \\backslash.txt',
    'semi;colon=1; filename="evil.exe".txt',
    "it's (100%) *done*.txt",
    'new\r\nline: injected.txt',
    'tab\tand\u0000nul.txt',
    '😀.txt',
  ];

  it.each(hostile)('writes a well-formed header for %j', (name) => {
    const header = contentDisposition(name, storedFilename(name, randomBase64Url(16)));
    expect(() => new Headers({ 'Content-Disposition': header })).not.toThrow();
    expect(header).not.toMatch(/[\r\n\u0000]/);
    expect(header).toMatch(/^attachment; filename="[^"\\]*"; filename\*=UTF-8''[A-Za-z0-9!#$&+.^_`|~%-]*$/);
    const [type, ...params] = splitParams(header);
    expect(type).toBe('attachment');
    expect(params.map(([key]) => key)).toEqual(['filename', 'filename*']);
    const fallback = params[0]?.[1] ?? '';
    expect(fallback).toMatch(/^[\x20-\x7e]*$/);
    expect(fallback).not.toMatch(/[";\\%]/);
    const extended = params[1]?.[1] ?? '';
    expect(decodeURIComponent(extended.replace(/^UTF-8''/, ''))).toBe(name);
  });

  it('keeps a plain ASCII name readable in the fallback', () => {
    expect(contentDisposition('report 2024.pdf', 'report-2024_x.pdf')).toBe(
      `attachment; filename="report 2024.pdf"; filename*=UTF-8''report%202024.pdf`,
    );
  });

  it.each([
    'report 2024.pdf',
    'a  b.txt',
    '__init__.txt',
    '-dash-.txt',
    '.htaccess',
    'no extension',
    "it's (done) [v2] {x} ~ok~ @home #1 $5 & co! +more=less ^up `tick` |pipe|.tar.gz",
  ])('leaves the printable ASCII name %j unchanged in the fallback', (name) => {
    expect(asciiFallback(name, 'stored_x.txt')).toBe(name);
  });

  it('transliterates résumé and drops what has no ASCII form, in line with the stored name', () => {
    const name = 'résumé 名前 🎉.txt';
    const stored = storedFilename(name, randomBase64Url(16));
    expect(stored.startsWith('resume_')).toBe(true);
    expect(stored.endsWith('.txt')).toBe(true);
    expect(contentDisposition(name, stored)).toBe(
      `attachment; filename="resume.txt"; filename*=UTF-8''r%C3%A9sum%C3%A9%20%E5%90%8D%E5%89%8D%20%F0%9F%8E%89.txt`,
    );
  });

  it.each([
    ['Straße.txt', 'Strasse.txt', 'strasse_'],
    ['Æsir og Øl.txt', 'AEsir og Ol.txt', 'aesir-og-ol_'],
    ['Łódź đak þorn.pdf', 'Lodz dak thorn.pdf', 'lodz-dak-thorn_'],
    ['naïve café.tar.gz', 'naive cafe.tar.gz', 'naive-cafe-tar_'],
    ['ﬁle ™ Ｆｕｌｌ.txt', 'file TM Full.txt', 'file-tm-full_'],
    ['Bob’s résumé – final.docx', "Bob's resume - final.docx", 'bob-s-resume-final_'],
    ['résumé - 名前 - final.doc', 'resume final.doc', 'resume-final_'],
    ['Ünïcödé — 報告書.txt', 'Unicode.txt', 'unicode_'],
    ['report.テキスト', 'report', 'report_'],
  ])('turns %j into the fallback %j and a stored name starting %j', (name, fallback, prefix) => {
    const stored = storedFilename(name, randomBase64Url(16));
    expect(asciiFallback(name, stored)).toBe(fallback);
    expect(stored.startsWith(prefix)).toBe(true);
  });

  it.each(['名前.txt', '😀.txt', '🎉', 'отчёт.pdf', '-名前-.txt', '日本語の書類.テキスト'])(
    'falls back to the stored name when nothing of %j has an ASCII form',
    (name) => {
      const stored = storedFilename(name, randomBase64Url(16));
      expect(stored.startsWith('file_')).toBe(true);
      expect(asciiFallback(name, stored)).toBe(stored);
      expect(contentDisposition(name, stored)).toContain(`filename="${stored}"`);
    },
  );

  it('keeps filename* exactly as before: every byte but attr-chars percent-encoded', () => {
    for (const name of hostile) {
      const expected = encodeURIComponent(name).replace(
        /['()*]/g,
        (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
      );
      expect(contentDisposition(name, 'x_y.txt').endsWith(`; filename*=UTF-8''${expected}`)).toBe(true);
    }
  });

  it('can say inline', () => {
    expect(contentDisposition('a.png', 'a_x.png', 'inline')).toMatch(/^inline; filename="a\.png"/);
  });
});

describe('normalizeMediaType and length', () => {
  it('keeps a valid type of up to 255 characters and drops a longer one', () => {
    const longest = `application/${'x'.repeat(243)}`;
    expect(longest).toHaveLength(255);
    expect(normalizeMediaType(`${longest}; charset=utf-8`)).toBe(longest);
    expect(normalizeMediaType(`${longest}x`)).toBe('');
  });
});
