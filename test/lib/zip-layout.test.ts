// The ZIP layout from records alone: plain ZIP for small archives, Zip64 exactly when a size, an
// offset or the entry count needs it. Large layouts are checked without real bytes: the central
// directory, end records and local headers are streamed as ranges (no member read) and parsed by
// an independent reader (zip-reader.ts).
import { describe, expect, it } from 'vitest';
import { type ZipMember, zipEtagInput, zipLayout, zipLayoutOfFiles, zipMemberNames, zipRange } from '../../src/lib/zip';
import { collect, memberCrc, syntheticRead } from '../helpers/zip-fixtures';
import { readArchive, readCentral, readEnd, readLocal } from '../helpers/zip-reader';

const GiB = 2 ** 30;
const MODIFIED = new Date('2026-11-24T09:49:11.854Z');
const noRead = async (): Promise<ReadableStream<Uint8Array>> => {
  throw new Error('no member read expected');
};
const member = (name: string, size: number, crc32: number | null = 0x12345678): ZipMember => ({
  name,
  size,
  crc32,
  modified: MODIFIED,
});
const utf8 = (text: string) => new TextEncoder().encode(text).length;

/** The central directory and end records of a layout, streamed and parsed. */
async function directoryOf(members: ZipMember[]) {
  const layout = zipLayout(members);
  const tail = await collect(zipRange(layout, layout.centralOffset, layout.length - 1, noRead));
  expect(tail.length).toBe(layout.length - layout.centralOffset);
  const end = readEnd(tail, layout.centralOffset);
  expect(end.centralOffset).toBe(layout.centralOffset);
  const entries = readCentral(tail.subarray(0, end.centralSize), end.entries);
  return { layout, end, entries };
}

async function localHeaderOf(members: ZipMember[], index: number) {
  const layout = zipLayout(members);
  const placed = layout.members[index];
  if (!placed) throw new Error(`no member ${index}`);
  return readLocal(await collect(zipRange(layout, placed.headerOffset, placed.dataOffset - 1, noRead)));
}

describe('zipLayout: plain ZIP', () => {
  it('places every byte of a small archive from the records, and the bytes read back', async () => {
    const sizes = [0, 1, 1000, 70_000, 5];
    const names = ['empty.txt', 'one.bin', 'résumé.pdf', 'data.csv', 'z'];
    const members = sizes.map((size, i) => member(names[i] as string, size, memberCrc(i, size)));
    const layout = zipLayout(members);
    const expected =
      names.reduce((sum, name, i) => sum + 30 + utf8(name) + 9 + (sizes[i] as number), 0) +
      names.reduce((sum, name) => sum + 46 + utf8(name) + 9, 0) +
      22;
    expect(layout.length).toBe(expected);
    expect(layout.zip64EndOffset).toBeNull();
    expect(layout.rangeable).toBe(true);

    const { read } = syntheticRead();
    const archive = await collect(zipRange(layout, 0, layout.length - 1, read));
    expect(archive.length).toBe(layout.length);
    const { end, members: parsed } = readArchive(archive);
    expect(end.zip64).toBeNull();
    expect(end.entries).toBe(5);
    parsed.forEach(({ entry, local, data, descriptor }, i) => {
      expect(entry.name).toBe(names[i]);
      expect(local.name).toBe(names[i]);
      expect(entry).toMatchObject({ madeBy: 0x032d, versionNeeded: 20, flags: 0x0800, method: 0 });
      expect(entry.externalAttributes).toBe(0o100644 * 0x10000);
      expect(local).toMatchObject({ versionNeeded: 20, flags: 0x0800, method: 0, zip64: null });
      expect(entry.extras.has(0x0001)).toBe(false);
      expect([entry.crc32, local.crc32]).toEqual([memberCrc(i, sizes[i] as number), memberCrc(i, sizes[i] as number)]);
      expect([entry.size, entry.compressedSize, local.raw.size]).toEqual([sizes[i], sizes[i], sizes[i]]);
      expect(entry.headerOffset).toBe(layout.members[i]?.headerOffset);
      expect(data.length).toBe(sizes[i]);
      expect(descriptor).toBeNull();
    });
  });

  it('writes the modification time as UTC in DOS fields and as Unix time in an extended timestamp', async () => {
    const { entries } = await directoryOf([member('a', 1)]);
    const [entry] = entries;
    // 2026-11-24 09:49:11 UTC: DOS keeps even seconds (10), the extended timestamp the second.
    expect(entry?.dosDate).toBe(((2026 - 1980) << 9) | (11 << 5) | 24);
    expect(entry?.dosTime).toBe((9 << 11) | (49 << 5) | 5);
    expect(entry?.unixTime).toBe(Math.floor(MODIFIED.getTime() / 1000));
    const local = await localHeaderOf([member('a', 1)], 0);
    expect([local.dosDate, local.dosTime, local.unixTime]).toEqual([entry?.dosDate, entry?.dosTime, entry?.unixTime]);
  });

  it('clamps DOS times to 1980…2107 and leaves out the extended timestamp outside 1970…2038', async () => {
    const at = (iso: string) => ({ ...member('a', 1), modified: new Date(iso) });
    const { entries } = await directoryOf([
      at('1975-06-01T12:00:00Z'),
      at('1960-01-01T00:00:00Z'),
      at('2040-02-03T04:05:06Z'),
      at('2200-01-01T00:00:00Z'),
    ]);
    expect(entries.map((entry) => [entry.dosDate, entry.dosTime, entry.unixTime])).toEqual([
      [(0 << 9) | (1 << 5) | 1, 0, Date.UTC(1975, 5, 1, 12) / 1000],
      [(0 << 9) | (1 << 5) | 1, 0, null],
      [((2040 - 1980) << 9) | (2 << 5) | 3, (4 << 11) | (5 << 5) | 3, null],
      [(127 << 9) | (12 << 5) | 31, (23 << 11) | (59 << 5) | 29, null],
    ]);
    expect(entries.map((entry) => entry.length)).toEqual([46 + 1 + 9, 46 + 1, 46 + 1, 46 + 1]);
  });

  it('makes the empty archive: the 22-byte end record alone', async () => {
    const layout = zipLayout([]);
    expect(layout.length).toBe(22);
    const bytes = await collect(zipRange(layout, 0, 21, noRead));
    expect([...bytes]).toEqual([0x50, 0x4b, 0x05, 0x06, ...new Array(18).fill(0)]);
  });

  it('refuses records no archive can hold', () => {
    expect(() => zipLayout([member('', 1)])).toThrow(RangeError);
    expect(() => zipLayout([member('x'.repeat(65_536), 1)])).toThrow(RangeError);
    expect(() => zipLayout([member('a', -1)])).toThrow(RangeError);
    expect(() => zipLayout([member('a', 1.5)])).toThrow(RangeError);
    expect(() => zipLayout([member('a', 1, 2 ** 32)])).toThrow(RangeError);
    expect(() => zipLayout([member('a', 1, -1)])).toThrow(RangeError);
    expect(() => zipLayout([{ ...member('a', 1), modified: new Date(Number.NaN) }])).toThrow(RangeError);
  });
});

describe('zipLayout: Zip64 exactly when needed', () => {
  it('gives members of 4 GiB and more Zip64 sizes, and members past 4 GiB Zip64 offsets', async () => {
    const members = [
      member('first.bin', 10),
      member('huge.bin', 5 * GiB),
      member('exact.bin', 0xffffffff),
      member('after.bin', 3),
      member('just-under.bin', 0xfffffffe),
    ];
    const { layout, end, entries } = await directoryOf(members);
    // Offsets computed here from the sizes, not taken from the layout.
    const offsets: number[] = [];
    let at = 0;
    for (const { name, size } of members) {
      offsets.push(at);
      at += 30 + utf8(name) + 9 + (size >= 0xffffffff ? 20 : 0) + size;
    }
    expect(entries.map((entry) => entry.headerOffset)).toEqual(offsets);
    expect(entries.map((entry) => entry.size)).toEqual(members.map((m) => m.size));
    expect(entries.map((entry) => entry.compressedSize)).toEqual(members.map((m) => m.size));
    // The Zip64 field of each entry holds exactly the values that overflow: sizes, offset, both.
    expect(entries.map((entry) => entry.extras.get(0x0001)?.byteLength ?? 0)).toEqual([0, 16, 24, 8, 8]);
    expect(entries.map((entry) => entry.versionNeeded)).toEqual([20, 45, 45, 45, 45]);
    expect(entries[4]?.raw).toEqual({ size: 0xfffffffe, compressedSize: 0xfffffffe, headerOffset: 0xffffffff });

    expect(end.entries).toBe(5);
    expect(end.zip64).toMatchObject({ versionNeeded: 45, diskEntries: 5 });
    expect(end.plain).toEqual({ entries: 5, centralSize: end.centralSize, centralOffset: 0xffffffff });
    expect(layout.centralOffset).toBe(at);
    const centralSize = members.reduce((sum, { name }) => sum + 46 + utf8(name) + 9, 0) + 16 + 24 + 8 + 8 + 4 * 4;
    expect(end.centralSize).toBe(centralSize);
    expect(layout.length).toBe(at + centralSize + 56 + 20 + 22);

    const huge = await localHeaderOf(members, 1);
    expect(huge.raw).toEqual({ size: 0xffffffff, compressedSize: 0xffffffff });
    expect(huge.zip64).toEqual({ size: 5 * GiB, compressedSize: 5 * GiB });
    expect(huge.versionNeeded).toBe(45);
    const under = await localHeaderOf(members, 4);
    expect(under.raw).toEqual({ size: 0xfffffffe, compressedSize: 0xfffffffe });
    expect(under.zip64).toBeNull();
  });

  it('switches the end records to Zip64 at the first central directory offset that needs it', async () => {
    // One member named `a`: a 40-byte local header, then its bytes, then the directory.
    const below = await directoryOf([member('a', 0xfffffffe - 40)]);
    expect(below.layout.centralOffset).toBe(0xfffffffe);
    expect(below.layout.zip64EndOffset).toBeNull();
    expect(below.end.zip64).toBeNull();
    expect(below.end.plain.centralOffset).toBe(0xfffffffe);
    expect(below.entries[0]?.extras.has(0x0001)).toBe(false);
    expect(below.layout.length).toBe(0xfffffffe + 56 + 22);

    const at = await directoryOf([member('a', 0xffffffff - 40)]);
    expect(at.end.zip64).not.toBeNull();
    expect(at.end.plain.centralOffset).toBe(0xffffffff);
    expect(at.end.centralOffset).toBe(0xffffffff);
    expect(at.entries[0]?.extras.has(0x0001)).toBe(false);
    expect(at.layout.length).toBe(0xffffffff + 56 + 56 + 20 + 22);
  });

  it('gives a local header offset a Zip64 field from 0xFFFFFFFF on, not before', async () => {
    for (const [offset, field] of [
      [0xfffffffe, 0],
      [0xffffffff, 8],
    ] as const) {
      const { entries } = await directoryOf([member('a', offset - 40), member('b', 1)]);
      expect(entries[1]?.headerOffset).toBe(offset);
      expect(entries[1]?.extras.get(0x0001)?.byteLength ?? 0).toBe(field);
    }
  });

  it('gives a size its Zip64 fields from 0xFFFFFFFF on, not before', async () => {
    const below = await directoryOf([member('a', 0xfffffffe)]);
    expect(below.entries[0]?.extras.has(0x0001)).toBe(false);
    expect(below.entries[0]?.raw.size).toBe(0xfffffffe);
    const at = await directoryOf([member('a', 0xffffffff)]);
    expect(at.entries[0]?.raw.size).toBe(0xffffffff);
    expect(at.entries[0]?.size).toBe(0xffffffff);
  });

  it('holds more than 65,535 entries: Zip64 end record, locator, and every entry where it belongs', async () => {
    const count = 70_000;
    const members = Array.from({ length: count }, (_, i) => member(`f${i}.txt`, i % 3, i));
    const { layout, end, entries } = await directoryOf(members);
    expect(end.entries).toBe(count);
    expect(end.zip64?.diskEntries).toBe(count);
    expect(end.plain.entries).toBe(0xffff);
    // The directory itself is small and early: those fields keep their real values.
    expect(end.plain.centralOffset).toBe(layout.centralOffset);
    expect(end.plain.centralSize).toBe(end.centralSize);
    let at = 0;
    entries.forEach((entry, i) => {
      if (entry.headerOffset !== at || entry.name !== `f${i}.txt` || entry.crc32 !== i || entry.size !== i % 3) {
        throw new Error(`entry ${i} is not where the records put it: ${JSON.stringify(entry.raw)}`);
      }
      at += 30 + utf8(`f${i}.txt`) + 9 + (i % 3);
    });
    expect(layout.centralOffset).toBe(at);
    for (const index of [0, 65_534, 65_535, count - 1]) {
      const local = await localHeaderOf(members, index);
      expect(local.name).toBe(`f${index}.txt`);
      expect(local.crc32).toBe(index);
    }
  });

  it('uses Zip64 from 65,535 entries (the count field cannot hold its own sentinel), plain ZIP below', async () => {
    const many = (count: number) => Array.from({ length: count }, (_, i) => member(`${i}`, 0));
    const below = await directoryOf(many(65_534));
    expect(below.end.zip64).toBeNull();
    expect(below.end.plain.entries).toBe(65_534);
    const at = await directoryOf(many(65_535));
    expect(at.end.zip64).not.toBeNull();
    expect(at.end.entries).toBe(65_535);
  });
});

describe('zipEtagInput', () => {
  it('changes exactly when the archive bytes change', async () => {
    const base = [member('a.txt', 3, memberCrc(0, 3)), member('b.txt', 5, memberCrc(1, 5))];
    const variants: ZipMember[][] = [
      base.map((m) => ({ ...m, modified: new Date(m.modified) })),
      base.map((m) => ({ ...m, modified: new Date(m.modified.getTime() + 100) })),
      [{ ...(base[0] as ZipMember), name: 'A.txt' }, base[1] as ZipMember],
      [{ ...(base[0] as ZipMember), crc32: 1 }, base[1] as ZipMember],
      [{ ...(base[0] as ZipMember), size: 4 }, base[1] as ZipMember],
      base.map((m) => ({ ...m, modified: new Date(m.modified.getTime() + 1000) })),
      [base[1] as ZipMember, base[0] as ZipMember],
    ];
    const bytesOf = async (members: ZipMember[]) => {
      const layout = zipLayout(members);
      return collect(zipRange(layout, 0, layout.length - 1, syntheticRead().read));
    };
    const baseBytes = await bytesOf(base);
    const baseInput = zipEtagInput(zipLayout(base));
    for (const variant of variants) {
      const bytes = await bytesOf(variant);
      const sameBytes = bytes.length === baseBytes.length && bytes.every((byte, i) => byte === baseBytes[i]);
      expect(zipEtagInput(zipLayout(variant)) === baseInput, JSON.stringify(variant)).toBe(sameBytes);
    }
    // The first two keep the bytes (the same second); every other one changes them.
    expect(variants.map((v) => zipEtagInput(zipLayout(v)) === baseInput)).toEqual([
      true,
      true,
      false,
      false,
      false,
      false,
      false,
    ]);
  });
});

describe('zipLayoutOfFiles', () => {
  it('lays files out under the names zipMemberNames gives them (what an archive and a link’s budget both read)', () => {
    const files = ['report.pdf', 'Report.PDF', 'a/b.txt'].map((originalName, index) => ({
      originalName,
      size: 10 * (index + 1),
      crc32: 1,
      modified: MODIFIED,
    }));
    const layout = zipLayoutOfFiles(files);
    const names = zipMemberNames(files.map((file) => file.originalName));
    const expected = zipLayout(
      files.map((file, index) => ({ name: names[index] as string, size: file.size, crc32: 1, modified: MODIFIED })),
    );
    expect(layout).toEqual(expected);
    expect(new TextDecoder().decode(layout.members[1]?.name)).toBe('Report (2).PDF');
    expect(zipLayoutOfFiles([]).length).toBe(22);
  });
});
