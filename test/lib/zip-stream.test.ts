// Streaming a ZIP: any range equals the same slice of the whole archive, member reads are asked
// only for the bytes a range touches and one at a time, and an archive whose CRC-32s are not all
// known streams whole with data descriptors, its CRCs computed on the way.
import { describe, expect, it } from 'vitest';
import { crc32 } from '../../src/lib/crc32';
import { membersTouched, type ReadMember, type ZipMember, zipArchive, zipLayout, zipRange } from '../../src/lib/zip';
import { dataDescriptor, localHeader } from '../../src/lib/zip-records';
import { collect, memberBytes, memberCrc, sameBytes, seeded, syntheticRead } from '../helpers/zip-fixtures';
import { readArchive, readLocal } from '../helpers/zip-reader';

const MODIFIED = new Date('2026-11-24T09:49:11Z');
const SIZES = [0, 1, 1000, 70_000, 5, 200_000, 0, 4097];
const members: ZipMember[] = SIZES.map((size, i) => ({
  name: `member-${i}.bin`,
  size,
  crc32: memberCrc(i, size),
  modified: MODIFIED,
}));

describe('zipRange', () => {
  it('answers 20 random ranges with the same bytes as those slices of the whole archive', async () => {
    const layout = zipLayout(members);
    const whole = await collect(zipArchive(layout, syntheticRead().read));
    expect(whole.length).toBe(layout.length);
    const random = seeded(31);
    for (let n = 0; n < 20; n++) {
      const a = Math.floor(random() * layout.length);
      const b = Math.floor(random() * layout.length);
      const [start, end] = [Math.min(a, b), Math.max(a, b)];
      const { read } = syntheticRead({ chunk: 1 + Math.floor(random() * 5000) });
      const part = await collect(zipRange(layout, start, end, read));
      expect(part.length, `bytes ${start}-${end}`).toBe(end - start + 1);
      expect(sameBytes(part, whole.subarray(start, end + 1)), `bytes ${start}-${end}`).toBe(true);
    }
  });

  it('answers single bytes at every record boundary', async () => {
    const layout = zipLayout(members);
    const whole = await collect(zipArchive(layout, syntheticRead().read));
    const edges = layout.members.flatMap((m) => [
      m.headerOffset,
      m.dataOffset - 1,
      m.dataOffset,
      m.dataOffset + m.size,
    ]);
    edges.push(
      layout.centralOffset - 1,
      layout.centralOffset,
      layout.endOffset - 1,
      layout.endOffset,
      layout.length - 1,
    );
    for (const at of edges.filter((at) => at >= 0 && at < layout.length)) {
      const byte = await collect(zipRange(layout, at, at, syntheticRead().read));
      expect([...byte], `byte ${at}`).toEqual([whole[at]]);
    }
  });

  it('reads only the bytes of the members a range touches, one member at a time', async () => {
    const layout = zipLayout(members);
    const m = layout.members;
    const cases: [string, number, number, { index: number; offset: number; length: number }[]][] = [
      [
        'inside one member',
        (m[3]?.dataOffset ?? 0) + 10,
        (m[3]?.dataOffset ?? 0) + 19,
        [{ index: 3, offset: 10, length: 10 }],
      ],
      ['a local header only', m[5]?.headerOffset ?? 0, (m[5]?.dataOffset ?? 0) - 1, []],
      ['the central directory and end', layout.centralOffset, layout.length - 1, []],
      [
        'the end of one member into the start of another',
        (m[3]?.dataOffset ?? 0) + 69_990,
        (m[5]?.dataOffset ?? 0) + 99,
        [
          { index: 3, offset: 69_990, length: 10 },
          { index: 4, offset: 0, length: 5 },
          { index: 5, offset: 0, length: 100 },
        ],
      ],
      [
        'the whole archive (empty members are never read)',
        0,
        layout.length - 1,
        SIZES.flatMap((size, index) => (size > 0 ? [{ index, offset: 0, length: size }] : [])),
      ],
    ];
    for (const [what, start, end, expected] of cases) {
      const { read, log } = syntheticRead({ chunk: 999 });
      await collect(zipRange(layout, start, end, read));
      expect(log.reads, what).toEqual(expected);
      expect(membersTouched(layout, start, end), what).toBe(expected.length);
      expect(log.maxOpen, what).toBeLessThanOrEqual(1);
    }
  });

  it('cancels the member being read when the client goes away, and opens no other', async () => {
    const layout = zipLayout(members);
    const { read, log } = syntheticRead({ chunk: 1000 });
    const reader = zipRange(layout, 0, layout.length - 1, read).getReader();
    let received = 0;
    while (received < (layout.members[3]?.dataOffset ?? 0) + 5000) {
      const { value } = await reader.read();
      received += value?.byteLength ?? 0;
    }
    await reader.cancel('gone');
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(log.cancelled).toBe(1);
    expect(log.reads.map((r) => r.index)).toEqual([1, 2, 3]);
  });

  it('cancels a member read that opens only after the client went away, and opens no other', async () => {
    const layout = zipLayout(members);
    const { read, log } = syntheticRead();
    let open = () => {};
    const opened = new Promise<void>((resolve) => {
      open = resolve;
    });
    const slowRead: ReadMember = async (...args) => {
      await opened;
      return read(...args);
    };
    const reader = zipRange(layout, layout.members[2]?.dataOffset ?? 0, layout.length - 1, slowRead).getReader();
    const first = reader.read();
    await new Promise((resolve) => setTimeout(resolve, 10));
    const cancelled = reader.cancel('gone');
    open();
    await Promise.all([cancelled, first.catch(() => undefined)]);
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(log.reads.map((r) => r.index)).toEqual([2]);
    expect(log.cancelled).toBe(1);
  });

  it('fails the stream when a member gives fewer or more bytes than its record says', async () => {
    // Every CRC-32 known, each member is piped by the runtime into the archive's FixedLengthStream,
    // which fails the archive when the bytes do not add up; with a CRC-32 to compute, the member's
    // bytes pass through JavaScript and are counted one by one.
    const unknownCrc = zipLayout(members.map((member) => ({ ...member, crc32: null })));
    for (const [what, layout] of [
      ['piped', zipLayout(members)],
      ['counted', unknownCrc],
    ] as const) {
      for (const extra of [-1, 1]) {
        const { read } = syntheticRead({ extra });
        await expect(collect(zipRange(layout, 0, layout.length - 1, read)), `${what}, extra ${extra}`).rejects.toThrow(
          extra < 0 ? /ended after|did not see all expected bytes/ : /more than|too many/i,
        );
      }
    }
  });

  it('refuses a range outside the archive', () => {
    const layout = zipLayout(members);
    const { read } = syntheticRead();
    for (const [start, end] of [
      [-1, 10],
      [5, 4],
      [0, layout.length],
      [1.5, 10],
    ] as const) {
      expect(() => zipRange(layout, start, end, read), `${start}-${end}`).toThrow(RangeError);
    }
  });
});

describe('data descriptors (some CRC-32 unknown)', () => {
  const mixed = members.map((m, i) => (i % 2 === 1 || i === 6 ? { ...m, crc32: null } : m));

  it('computes the missing CRC-32s while streaming, into descriptors and the directory, at the exact length', async () => {
    const layout = zipLayout(mixed);
    expect(layout.rangeable).toBe(false);
    const archive = await collect(zipArchive(layout, syntheticRead({ chunk: 777 }).read));
    expect(archive.length).toBe(layout.length);
    const parsed = readArchive(archive);
    parsed.members.forEach(({ entry, local, data, descriptor }, i) => {
      const real = crc32(memberBytes(i, 0, SIZES[i] as number));
      expect(sameBytes(data, memberBytes(i, 0, SIZES[i] as number)), `member ${i}`).toBe(true);
      expect(entry.crc32, `member ${i}`).toBe(real);
      if (mixed[i]?.crc32 === null) {
        expect(entry.flags).toBe(0x0808);
        expect(local).toMatchObject({ flags: 0x0808, crc32: 0, raw: { size: 0, compressedSize: 0 } });
        expect(descriptor).toEqual({ crc32: real, size: SIZES[i], compressedSize: SIZES[i], length: 16 });
      } else {
        expect(entry.flags).toBe(0x0800);
        expect(local.crc32).toBe(real);
        expect(descriptor).toBeNull();
      }
    });
  });

  it('serves such an archive whole only', () => {
    const layout = zipLayout(mixed);
    const { read } = syntheticRead();
    expect(() => zipRange(layout, 0, 10, read)).toThrow(RangeError);
    expect(() => zipRange(layout, 1, layout.length - 1, read)).toThrow(RangeError);
  });

  it('gives a member of 4 GiB or more a Zip64 field of zero sizes and an 8-byte-size descriptor', () => {
    const size = 5 * 2 ** 30;
    const layout = zipLayout([{ name: 'big.bin', size, crc32: null, modified: MODIFIED }]);
    const placed = layout.members[0];
    if (!placed) throw new Error('no member');
    expect(placed.descriptorLength).toBe(24);
    const local = readLocal(localHeader(placed));
    expect(local).toMatchObject({ flags: 0x0808, crc32: 0, versionNeeded: 45 });
    expect(local.raw).toEqual({ size: 0xffffffff, compressedSize: 0xffffffff });
    expect(local.zip64).toEqual({ size: 0, compressedSize: 0 });
    const view = new DataView(dataDescriptor(placed, 0xdeadbeef).buffer);
    expect([view.getUint32(0, true), view.getUint32(4, true)]).toEqual([0x08074b50, 0xdeadbeef]);
    expect([
      view.getUint32(8, true) + view.getUint32(12, true) * 2 ** 32,
      view.getUint32(16, true) + view.getUint32(20, true) * 2 ** 32,
    ]).toEqual([size, size]);
    expect(layout.length).toBe(30 + 7 + 20 + 9 + size + 24 + 46 + 7 + 4 + 16 + 9 + 56 + 20 + 22);
  });
});
