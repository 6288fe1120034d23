// The one way every page writes sizes and times (src/lib/format.ts): the server-rendered share
// page, and in the browser the web app, the file request page and the keys page.
import { describe, expect, it } from 'vitest';
import { formatBytes, formatDate } from '../../src/lib/format';

describe('formatDate', () => {
  it.each([
    ['2026-12-03T14:05:00.000Z', '2026-12-03 14:05 UTC'],
    // Day and month never swap, whatever the reader's locale: 3 December, not 12 March.
    ['2026-03-12T09:07:59.999Z', '2026-03-12 09:07 UTC'],
    ['2026-01-01T00:00:00.000Z', '2026-01-01 00:00 UTC'],
    ['2026-12-31T23:59:30.000Z', '2026-12-31 23:59 UTC'],
    // A time given with another offset is the same instant, written in UTC.
    ['2026-12-03T15:05:00+01:00', '2026-12-03 14:05 UTC'],
    ['2026-12-04T00:30:00+02:00', '2026-12-03 22:30 UTC'],
  ])('writes %s as %s', (iso, text) => {
    expect(formatDate(iso)).toBe(text);
  });

  it('gives back what is not a time unchanged', () => {
    expect(formatDate('soon')).toBe('soon');
    expect(formatDate('')).toBe('');
  });
});

describe('formatBytes', () => {
  it.each([
    [0, '0 bytes'],
    [1, '1 byte'],
    [1023, '1023 bytes'],
    [1536, '1.5 KiB'],
    [100 * 1024 * 1024, '100 MiB'],
  ])('writes %d as %s', (bytes, text) => {
    expect(formatBytes(bytes)).toBe(text);
  });
});
