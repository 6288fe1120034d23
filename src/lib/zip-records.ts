// The bytes of a ZIP archive's records (PKWARE APPNOTE 6.3, sections 4.3 and 4.5), each made from
// its place in the layout. Little-endian throughout; 8-byte fields written as two 32-bit halves
// (offsets stay below 2^53, so numbers hold them exactly).
import {
  CENTRAL_HEADER,
  EXTENDED_TIMESTAMP,
  LOCAL_HEADER,
  MAX_UINT16,
  MAX_UINT32,
  type PlacedMember,
  ZIP64_END,
  type ZipLayout,
} from './zip-layout.ts';

const FLAG_DESCRIPTOR = 0x0008;
const FLAG_UTF8 = 0x0800;
/** Version made by: Unix (3), so the external attributes below are a Unix mode; APPNOTE 4.5. */
const MADE_BY = (3 << 8) | 45;
/** Version needed to extract: 2.0 for a stored file, 4.5 once it has Zip64 fields. */
const NEEDS = 20;
const NEEDS_ZIP64 = 45;
/** A regular file, rw-r--r--, in the high half: what Unix unzip gives the extracted file. */
const FILE_MODE = 0o100644 * 0x10000;

class Writer {
  readonly bytes: Uint8Array;
  readonly #view: DataView;
  #at = 0;
  constructor(length: number) {
    this.bytes = new Uint8Array(length);
    this.#view = new DataView(this.bytes.buffer);
  }
  u8(value: number): this {
    this.#view.setUint8(this.#at, value);
    this.#at += 1;
    return this;
  }
  u16(value: number): this {
    this.#view.setUint16(this.#at, value, true);
    this.#at += 2;
    return this;
  }
  u32(value: number): this {
    this.#view.setUint32(this.#at, value, true);
    this.#at += 4;
    return this;
  }
  u64(value: number): this {
    return this.u32(value % 0x100000000).u32(Math.floor(value / 0x100000000));
  }
  raw(bytes: Uint8Array): this {
    this.bytes.set(bytes, this.#at);
    this.#at += bytes.length;
    return this;
  }
}

const flags = (member: PlacedMember) => FLAG_UTF8 | (member.crc32 === null ? FLAG_DESCRIPTOR : 0);
const needs = (member: PlacedMember) => (member.zip64Size || member.zip64Offset ? NEEDS_ZIP64 : NEEDS);
const clamp32 = (value: number) => Math.min(value, MAX_UINT32);

/** Extended timestamp (0x5455) with the modification time only: the same in both headers. */
function extendedTimestamp(writer: Writer, member: PlacedMember) {
  if (member.unixTime !== null)
    writer
      .u16(0x5455)
      .u16(EXTENDED_TIMESTAMP - 4)
      .u8(1)
      .u32(member.unixTime);
}

/**
 * A member's local file header. With a data descriptor (CRC unknown), its CRC and sizes are 0 as
 * APPNOTE 4.4.4 asks; a member of 4 GiB or more has a Zip64 field with its sizes (0 too with a
 * descriptor, whose sizes are then 8 bytes: what readers infer from this field's presence).
 */
export function localHeader(member: PlacedMember): Uint8Array {
  const known = member.crc32 !== null;
  const writer = new Writer(member.headerLength)
    .u32(0x04034b50)
    .u16(needs(member))
    .u16(flags(member))
    .u16(0)
    .u16(member.dosTime)
    .u16(member.dosDate)
    .u32(member.crc32 ?? 0);
  const size = member.zip64Size ? MAX_UINT32 : known ? member.size : 0;
  writer
    .u32(size)
    .u32(size)
    .u16(member.name.length)
    .u16(member.headerLength - LOCAL_HEADER - member.name.length)
    .raw(member.name);
  if (member.zip64Size)
    writer
      .u16(0x0001)
      .u16(16)
      .u64(known ? member.size : 0)
      .u64(known ? member.size : 0);
  extendedTimestamp(writer, member);
  return writer.bytes;
}

/** The data descriptor after a member whose CRC-32 was computed while streaming it. */
export function dataDescriptor(member: PlacedMember, crc32: number): Uint8Array {
  const writer = new Writer(member.descriptorLength).u32(0x08074b50).u32(crc32);
  return member.zip64Size
    ? writer.u64(member.size).u64(member.size).bytes
    : writer.u32(member.size).u32(member.size).bytes;
}

/** A member's central directory entry; `crc32` is its known or computed CRC-32. */
export function centralEntry(member: PlacedMember, crc32: number): Uint8Array {
  const writer = new Writer(member.centralLength)
    .u32(0x02014b50)
    .u16(MADE_BY)
    .u16(needs(member))
    .u16(flags(member))
    .u16(0)
    .u16(member.dosTime)
    .u16(member.dosDate)
    .u32(crc32)
    .u32(member.zip64Size ? MAX_UINT32 : member.size)
    .u32(member.zip64Size ? MAX_UINT32 : member.size)
    .u16(member.name.length)
    .u16(member.centralLength - CENTRAL_HEADER - member.name.length)
    .u16(0) // comment length
    .u16(0) // disk number start
    .u16(0) // internal attributes
    .u32(FILE_MODE)
    .u32(clamp32(member.headerOffset))
    .raw(member.name);
  // The Zip64 field holds, in this order, only the values whose 4-byte field says 0xFFFFFFFF.
  const zip64Fields = (member.zip64Size ? 2 : 0) + (member.zip64Offset ? 1 : 0);
  if (zip64Fields > 0) writer.u16(0x0001).u16(8 * zip64Fields);
  if (member.zip64Size) writer.u64(member.size).u64(member.size);
  if (member.zip64Offset) writer.u64(member.headerOffset);
  extendedTimestamp(writer, member);
  return writer.bytes;
}

/** The archive's last bytes: the Zip64 end record and locator when needed, then the end record. */
export function endRecords(layout: ZipLayout): Uint8Array {
  const count = layout.members.length;
  const start = layout.zip64EndOffset ?? layout.endOffset;
  const writer = new Writer(layout.length - start);
  if (layout.zip64EndOffset !== null) {
    writer
      .u32(0x06064b50)
      .u64(ZIP64_END - 12)
      .u16(MADE_BY)
      .u16(NEEDS_ZIP64)
      .u32(0) // this disk
      .u32(0) // the disk where the central directory starts
      .u64(count)
      .u64(count)
      .u64(layout.centralSize)
      .u64(layout.centralOffset)
      .u32(0x07064b50)
      .u32(0) // the disk with the Zip64 end record
      .u64(layout.zip64EndOffset)
      .u32(1); // disks in all
  }
  // Values that fit stay; those that do not say "see Zip64" (APPNOTE 4.4.1.4).
  return writer
    .u32(0x06054b50)
    .u16(0)
    .u16(0)
    .u16(Math.min(count, MAX_UINT16))
    .u16(Math.min(count, MAX_UINT16))
    .u32(clamp32(layout.centralSize))
    .u32(clamp32(layout.centralOffset))
    .u16(0).bytes; // comment length
}
