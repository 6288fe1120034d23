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
      { key: 'a', size: 10, range: { offset: 0, length: 10 } },
      { key: 'b', size: 5, range: { offset: 0, length: 5 } },
      { key: 'c', size: 7, range: { offset: 0, length: 7 } },
    ]);
  });

  it('cuts a range across boundaries into the parts of each segment', () => {
    expect(piecesOf(segments, { offset: 8, length: 9 })).toEqual([
      { key: 'a', size: 10, range: { offset: 8, length: 2 } },
      { key: 'b', size: 5, range: { offset: 0, length: 5 } },
      { key: 'c', size: 7, range: { offset: 0, length: 2 } },
    ]);
  });

  it('stays inside one segment when the range does', () => {
    expect(piecesOf(segments, { offset: 11, length: 3 })).toEqual([
      { key: 'b', size: 5, range: { offset: 1, length: 3 } },
    ]);
    expect(piecesOf(segments, { offset: 21, length: 1 })).toEqual([
      { key: 'c', size: 7, range: { offset: 6, length: 1 } },
    ]);
  });
});
