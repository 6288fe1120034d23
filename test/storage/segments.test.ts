// Which pieces of which segments a byte range of a file stored in segments covers.
import { describe, expect, it } from 'vitest';
import { piecesOf } from '../../src/storage/segments';

const segments = [
  { r2_key: 'a', size: 10 },
  { r2_key: 'empty', size: 0 },
  { r2_key: 'b', size: 5 },
  { r2_key: 'c', size: 7 },
];

describe('piecesOf', () => {
  it('covers the whole file with every non-empty segment whole', () => {
    expect(piecesOf(segments, { offset: 0, length: 22 })).toEqual([
      { key: 'a', whole: true, range: { offset: 0, length: 10 } },
      { key: 'b', whole: true, range: { offset: 0, length: 5 } },
      { key: 'c', whole: true, range: { offset: 0, length: 7 } },
    ]);
  });

  it('cuts a range across boundaries into the parts of each segment', () => {
    expect(piecesOf(segments, { offset: 8, length: 9 })).toEqual([
      { key: 'a', whole: false, range: { offset: 8, length: 2 } },
      { key: 'b', whole: true, range: { offset: 0, length: 5 } },
      { key: 'c', whole: false, range: { offset: 0, length: 2 } },
    ]);
  });

  it('stays inside one segment when the range does', () => {
    expect(piecesOf(segments, { offset: 11, length: 3 })).toEqual([
      { key: 'b', whole: false, range: { offset: 1, length: 3 } },
    ]);
    expect(piecesOf(segments, { offset: 21, length: 1 })).toEqual([
      { key: 'c', whole: false, range: { offset: 6, length: 1 } },
    ]);
  });

  it('reads a segment from its start: the bytes before it in its object (an age header) are no part of the file', () => {
    const age = [
      { r2_key: 'header-only', size: 0, start: 40 },
      { r2_key: 'first', size: 6, start: 4 },
      { r2_key: 'second', size: 5, start: 0 },
    ];
    expect(piecesOf(age, { offset: 0, length: 11 })).toEqual([
      { key: 'first', whole: false, range: { offset: 4, length: 6 } },
      { key: 'second', whole: true, range: { offset: 0, length: 5 } },
    ]);
    expect(piecesOf(age, { offset: 5, length: 2 })).toEqual([
      { key: 'first', whole: false, range: { offset: 9, length: 1 } },
      { key: 'second', whole: false, range: { offset: 0, length: 1 } },
    ]);
  });
});
