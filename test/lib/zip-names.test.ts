// Member names: safe to extract anywhere and unique within the archive, ignoring case and
// Unicode normalisation (Windows and macOS file systems do), numbered before the extension.
import { describe, expect, it } from 'vitest';
import { zipMemberName, zipMemberNames } from '../../src/lib/zip';

const bytes = (text: string) => new TextEncoder().encode(text).length;

describe('zipMemberName', () => {
  it('removes path separators, `..` and control characters', () => {
    expect(zipMemberName('report.pdf')).toBe('report.pdf');
    expect(zipMemberName('../../etc/passwd')).toBe('etcpasswd');
    expect(zipMemberName('C:\\Users\\me\\notes.txt')).toBe('C:Usersmenotes.txt');
    expect(zipMemberName('a/../b')).toBe('ab');
    expect(zipMemberName('tab\there\nnew\u0000nul\u007fdel\u0085nel.txt')).toBe('tabherenewnuldelnel.txt');
    // A control between two dots must not leave a `..` behind.
    expect(zipMemberName('.\u0001./x')).toBe('x');
    expect(zipMemberName('invoice\u202Efdp.exe')).toBe('invoicefdp.exe');
    expect(zipMemberName('.bashrc')).toBe('.bashrc');
    expect(zipMemberName('résumé 名前.txt')).toBe('résumé 名前.txt');
  });

  it('calls a name with nothing left `file`', () => {
    for (const name of ['', '/', '..', '...', '....', '\u0000\u0001', '/../\\']) {
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

  it('stays fast for thousands of copies of one name', () => {
    const names = zipMemberNames(new Array(20_000).fill('same.txt'));
    expect(names[19_999]).toBe('same (20000).txt');
    expect(new Set(names.map((name) => name.toLowerCase())).size).toBe(20_000);
  });
});
