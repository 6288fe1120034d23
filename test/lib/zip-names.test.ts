// Member names: safe to extract anywhere (Windows included: no reserved characters, device names
// or trailing dots and spaces) and unique within the archive, ignoring case and Unicode
// normalisation (Windows and macOS file systems do), numbered before the extension.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { zipMemberName, zipMemberNames } from '../../src/lib/zip';

const bytes = (text: string) => new TextEncoder().encode(text).length;

describe('zipMemberName', () => {
  it('removes path separators, `..` and control characters', () => {
    expect(zipMemberName('report.pdf')).toBe('report.pdf');
    expect(zipMemberName('../../etc/passwd')).toBe('etcpasswd');
    expect(zipMemberName('C:\\Users\\me\\notes.txt')).toBe('C_Usersmenotes.txt');
    expect(zipMemberName('a/../b')).toBe('ab');
    expect(zipMemberName('tab\there\nnew\u0000nul\u007fdel\u0085nel.txt')).toBe('tabherenewnuldelnel.txt');
    // A control between two dots must not leave a `..` behind.
    expect(zipMemberName('.\u0001./x')).toBe('x');
    expect(zipMemberName('invoice\u202Efdp.exe')).toBe('invoicefdp.exe');
    expect(zipMemberName('.bashrc')).toBe('.bashrc');
    expect(zipMemberName('résumé 名前.txt')).toBe('résumé 名前.txt');
  });

  it('replaces each of : < > " | ? * with _', () => {
    expect(zipMemberName('x:y?.txt')).toBe('x_y_.txt');
    for (const char of [':', '<', '>', '"', '|', '?', '*']) {
      expect(zipMemberName(`a${char}b.txt`), char).toBe('a_b.txt');
    }
    expect(zipMemberName('What? <draft> "v2" | final*.docx')).toBe('What_ _draft_ _v2_ _ final_.docx');
  });

  it('gives every Windows device name, in any case, with or without an extension, `_` after its stem', () => {
    const devices = ['CON', 'PRN', 'AUX', 'NUL'];
    for (let digit = 1; digit <= 9; digit++) devices.push(`COM${digit}`, `LPT${digit}`);
    for (const device of devices) {
      expect(zipMemberName(device), device).toBe(`${device}_`);
      expect(zipMemberName(device.toLowerCase()), device).toBe(`${device.toLowerCase()}_`);
      expect(zipMemberName(`${device}.txt`), device).toBe(`${device}_.txt`);
      expect(zipMemberName(`${device.toLowerCase()}.tar.gz`), device).toBe(`${device.toLowerCase()}_.tar.gz`);
    }
    expect(zipMemberName('con.txt')).toBe('con_.txt');
    expect(zipMemberName('NUL')).toBe('NUL_');
    expect(zipMemberName('Aux.Config.json')).toBe('Aux_.Config.json');
    // Windows ignores spaces before the dot, and reads COM¹ as COM1.
    expect(zipMemberName('CON .txt')).toBe('CON _.txt');
    expect(zipMemberName('COM¹.log')).toBe('COM¹_.log');
    // A device name once the trailing dots and spaces are gone.
    expect(zipMemberName('nul. .')).toBe('nul_');
  });

  it('leaves names that only look like device names alone', () => {
    for (const name of ['CONSOLE.txt', 'COM0', 'COM10.txt', 'LPT', 'my con.txt', 'con-tract.pdf', '.con', 'x.CON']) {
      expect(zipMemberName(name), name).toBe(name);
    }
  });

  it('removes trailing dots and spaces', () => {
    expect(zipMemberName('a.')).toBe('a');
    expect(zipMemberName('notes  ')).toBe('notes');
    expect(zipMemberName('report.pdf. . ')).toBe('report.pdf');
    expect(zipMemberName(' leading stays.txt')).toBe(' leading stays.txt');
  });

  it('calls a name with nothing left `file`', () => {
    for (const name of ['', '/', '..', '...', '....', '\u0000\u0001', '/../\\', '.', ' ', '. .', ' \u0000 ']) {
      expect(zipMemberName(name), JSON.stringify(name)).toBe('file');
    }
  });

  it('composes Unicode (NFC) and replaces lone surrogates, so the UTF-8 name is well formed', () => {
    expect(zipMemberName('e\u0301t\u00e9.txt')).toBe('\u00e9t\u00e9.txt');
    expect(zipMemberName('bad\ud800.txt')).toBe('bad\ufffd.txt');
  });

  it('keeps a name within 255 UTF-8 bytes, the extension kept and no character cut in half', () => {
    const long = `${'é'.repeat(200)}.pdf`;
    const name = zipMemberName(long);
    expect(bytes(name)).toBeLessThanOrEqual(255);
    expect(name).toBe(`${'é'.repeat(125)}.pdf`);
  });

  it('never ends a shortened name with a dot or a space, nor shortens it to a device name', () => {
    // Cut at 255 bytes right after a space, and after a dot (an extension too long to keep).
    expect(zipMemberName(`${'a'.repeat(254)} ${'b'.repeat(10)}`)).toBe('a'.repeat(254));
    expect(zipMemberName(`${'a'.repeat(254)}.${'b'.repeat(300)}`)).toBe('a'.repeat(254));
    expect(zipMemberName(`CON${' '.repeat(300)}x`)).toBe('CON_');
    expect(zipMemberName(`nul${'. '.repeat(200)}x`)).toBe('nul_. x');
  });
});

describe('zipMemberNames', () => {
  it('numbers repeated names before the extension', () => {
    expect(zipMemberNames(['report.pdf', 'report.pdf', 'report.pdf', 'notes', 'notes'])).toEqual([
      'report.pdf',
      'report (2).pdf',
      'report (3).pdf',
      'notes',
      'notes (2)',
    ]);
  });

  it('treats names differing only in case or normalisation as the same', () => {
    expect(zipMemberNames(['Photo.JPG', 'photo.jpg', 'PHOTO.jpg', 'caf\u00e9.txt', 'cafe\u0301.txt'])).toEqual([
      'Photo.JPG',
      'photo (2).jpg',
      'PHOTO (3).jpg',
      'café.txt',
      'café (2).txt',
    ]);
  });

  it('skips numbers already taken, and names that become equal once cleaned', () => {
    expect(zipMemberNames(['a (2).txt', 'a.txt', 'a.txt', 'a/b.txt', 'ab.txt', '', '..'])).toEqual([
      'a (2).txt',
      'a.txt',
      'a (3).txt',
      'ab.txt',
      'ab (2).txt',
      'file',
      'file (2)',
    ]);
  });

  it('keeps .tar.gz together, and a leading dot is no extension', () => {
    expect(zipMemberNames(['backup.tar.gz', 'backup.tar.gz', '.env', '.env'])).toEqual([
      'backup.tar.gz',
      'backup (2).tar.gz',
      '.env',
      '.env (2)',
    ]);
  });

  it('shortens the stem to fit the number in 255 bytes', () => {
    const long = `${'x'.repeat(251)}.pdf`;
    const [first, second] = zipMemberNames([long, long]);
    expect(first).toBe(long);
    expect(second).toBe(`${'x'.repeat(247)} (2).pdf`);
    expect(bytes(second ?? '')).toBe(255);
  });

  it('keeps names unique once made safe, numbering after the device name’s `_`', () => {
    expect(zipMemberNames(['CON', 'con', 'CON.', 'con ', 'CON_', 'con.txt', 'con_.txt'])).toEqual([
      'CON_',
      'con_ (2)',
      'CON_ (3)',
      'con_ (4)',
      'CON_ (5)',
      'con_.txt',
      'con_ (2).txt',
    ]);
    expect(zipMemberNames(['x:y.txt', 'x?y.txt', 'x_y.txt', 'a.', 'a', 'a '])).toEqual([
      'x_y.txt',
      'x_y (2).txt',
      'x_y (3).txt',
      'a',
      'a (2)',
      'a (3)',
    ]);
  });

  it('makes every name safe on Windows, and unique as Windows and macOS compare names', () => {
    const piece = fc.constantFrom(
      'CON',
      'nul',
      'Com1',
      'lpt9',
      'a',
      'é',
      'e\u0301',
      '.',
      '..',
      ' ',
      ':',
      '?',
      '*',
      '/',
      '\\',
      '"',
      '<',
      '|',
      '(2)',
      'x'.repeat(120),
      'tar',
      'gz',
      '\u0000',
    );
    const name = fc.array(piece, { maxLength: 8 }).map((pieces) => pieces.join(''));
    fc.assert(
      fc.property(fc.array(name, { maxLength: 12 }), (originals) => {
        const names = zipMemberNames(originals);
        for (const made of names) {
          expect(made).not.toBe('');
          expect(made).not.toMatch(/[\u0000-\u001f/\\:<>"|?*]|[. ]$/);
          expect(made).not.toMatch(/^(CON|PRN|AUX|NUL|COM[1-9]|LPT[1-9]) *(\.|$)/i);
          expect(made.split(/[/\\]/)).not.toContain('..');
          expect(bytes(made)).toBeLessThanOrEqual(255);
        }
        expect(new Set(names.map((made) => made.normalize('NFC').toLowerCase())).size).toBe(names.length);
      }),
      { numRuns: 500 },
    );
  });

  it('stays fast for thousands of copies of one name', () => {
    const names = zipMemberNames(new Array(20_000).fill('same.txt'));
    expect(names[19_999]).toBe('same (20000).txt');
    expect(new Set(names.map((name) => name.toLowerCase())).size).toBe(20_000);
  });
});
