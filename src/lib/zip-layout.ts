// Where every byte of a ZIP archive goes, from the members' records alone (PKWARE APPNOTE 6.3):
// stored entries only, so a member's bytes sit in the archive exactly as they are in storage and
// every offset is known before a byte is read. That is what lets a range of the archive be served
// (zip-stream.ts) and its length be exact up front. docs/zip.md explains each choice.
// Ours (issue 38): no ZIP library lays out an archive before reading it; client-zip's predictLength
// gives the length only, not where each byte is, so it cannot seek (tests use it as an oracle).

/** What the archive needs to know of one member before reading it. */
export type ZipMember = {
  /** The member's name in the archive (zipMemberNames makes them safe and unique). */
  name: string;
  size: number;
  /** Its CRC-32 when known; null makes the archive compute it while streaming (a data descriptor). */
  crc32: number | null;
  modified: Date;
};

/** One member placed in the archive. Offsets are absolute byte positions from the archive's start. */
export type PlacedMember = {
  name: Uint8Array;
  size: number;
  crc32: number | null;
  dosTime: number;
  dosDate: number;
  /** Seconds since 1970 for the extended-timestamp field (0x5455), or null when out of its range. */
  unixTime: number | null;
  headerOffset: number;
  headerLength: number;
  /** headerOffset + headerLength: where the member's own bytes start. */
  dataOffset: number;
  /** 16 or 24 bytes after the data when crc32 is null, else 0. */
  descriptorLength: number;
  /** Its local header carries Zip64 sizes (and its descriptor 8-byte sizes). */
  zip64Size: boolean;
  /** Its central entry carries the local header's offset in a Zip64 field. */
  zip64Offset: boolean;
  centralOffset: number;
  centralLength: number;
};

export type ZipLayout = {
  members: PlacedMember[];
  centralOffset: number;
  centralSize: number;
  /** Where the Zip64 end record starts, or null when the archive needs none. */
  zip64EndOffset: number | null;
  /** Where the end of central directory record starts (22 bytes, the last of the archive). */
  endOffset: number;
  /** The archive's exact length: Content-Length. */
  length: number;
  /** Every CRC-32 is known: no data descriptors, so any range can be served. */
  rangeable: boolean;
};

/** A 4-byte field's "see the Zip64 field" value: a size or offset this large goes in Zip64. */
export const MAX_UINT32 = 0xffffffff;
/** The same for the 2-byte entry counts. */
export const MAX_UINT16 = 0xffff;

export const LOCAL_HEADER = 30;
export const CENTRAL_HEADER = 46;
export const ZIP64_END = 56;
export const ZIP64_LOCATOR = 20;
export const END = 22;
/** Extended timestamp (0x5455), modification time only: tag, size, flags, 4-byte time. */
export const EXTENDED_TIMESTAMP = 9;

const encoder = new TextEncoder();
const DOS_MIN = Date.UTC(1980, 0, 1);
const DOS_MAX = Date.UTC(2107, 11, 31, 23, 59, 58);

/**
 * The layout of an archive of these members, in this order. Throws RangeError on a record no
 * archive can hold (a negative or fractional size, a CRC that is not 32 bits, an invalid date,
 * an empty name or one over 65,535 bytes).
 */
export function zipLayout(members: readonly ZipMember[]): ZipLayout {
  let offset = 0;
  const placed = members.map((member, index) => {
    const entry = place(member, index, offset);
    offset = entry.dataOffset + entry.size + entry.descriptorLength;
    return entry;
  });
  const centralOffset = offset;
  for (const entry of placed) {
    entry.centralOffset = offset;
    offset += entry.centralLength;
  }
  const centralSize = offset - centralOffset;
  // The sentinel values themselves cannot be stored as counts or offsets: they mean "look in Zip64".
  const needsZip64 = placed.length >= MAX_UINT16 || centralOffset >= MAX_UINT32 || centralSize >= MAX_UINT32;
  const zip64EndOffset = needsZip64 ? offset : null;
  const endOffset = needsZip64 ? offset + ZIP64_END + ZIP64_LOCATOR : offset;
  return {
    members: placed,
    centralOffset,
    centralSize,
    zip64EndOffset,
    endOffset,
    length: endOffset + END,
    rangeable: placed.every((entry) => entry.crc32 !== null),
  };
}

function place(member: ZipMember, index: number, headerOffset: number): PlacedMember {
  const name = encoder.encode(member.name);
  const { size, crc32, modified } = member;
  if (name.length === 0 || name.length > MAX_UINT16)
    throw new RangeError(`member ${index}: name of ${name.length} bytes`);
  if (!Number.isSafeInteger(size) || size < 0) throw new RangeError(`member ${index}: size ${size}`);
  if (crc32 !== null && !(Number.isInteger(crc32) && crc32 >= 0 && crc32 <= MAX_UINT32)) {
    throw new RangeError(`member ${index}: crc32 ${crc32}`);
  }
  const time = modified.getTime();
  if (Number.isNaN(time)) throw new RangeError(`member ${index}: invalid modification time`);
  const { dosTime, dosDate } = dosDateTime(time);
  const seconds = Math.floor(time / 1000);
  // A signed 32-bit field: readers disagree on times before 1970, and none can hold 2038 onward.
  const unixTime = seconds >= 0 && seconds <= 0x7fffffff ? seconds : null;
  const zip64Size = size >= MAX_UINT32;
  const zip64Offset = headerOffset >= MAX_UINT32;
  const timeField = unixTime === null ? 0 : EXTENDED_TIMESTAMP;
  const headerLength = LOCAL_HEADER + name.length + (zip64Size ? 20 : 0) + timeField;
  const zip64Fields = (zip64Size ? 2 : 0) + (zip64Offset ? 1 : 0);
  return {
    name,
    size,
    crc32,
    dosTime,
    dosDate,
    unixTime,
    headerOffset,
    headerLength,
    dataOffset: headerOffset + headerLength,
    descriptorLength: crc32 !== null ? 0 : zip64Size ? 24 : 16,
    zip64Size,
    zip64Offset,
    centralOffset: 0,
    centralLength: CENTRAL_HEADER + name.length + (zip64Fields > 0 ? 4 + 8 * zip64Fields : 0) + timeField,
  };
}

/** MS-DOS date and time of a UTC instant (2-second steps), clamped to the years 1980…2107 it can hold. */
function dosDateTime(time: number): { dosTime: number; dosDate: number } {
  const date = new Date(Math.min(DOS_MAX, Math.max(DOS_MIN, time)));
  return {
    dosTime: (date.getUTCHours() << 11) | (date.getUTCMinutes() << 5) | (date.getUTCSeconds() >> 1),
    dosDate: ((date.getUTCFullYear() - 1980) << 9) | ((date.getUTCMonth() + 1) << 5) | date.getUTCDate(),
  };
}

/**
 * How many member reads serving bytes [start, end] (inclusive) takes: one per member whose own
 * bytes the range touches. Headers and the central directory need none. Each read is a
 * subrequest, so a caller can refuse a range that would pass its budget before starting.
 */
export function membersTouched(layout: ZipLayout, start: number, end: number): number {
  const { first, last } = touchedMembers(layout, start, end);
  let count = 0;
  for (let index = first; index <= last; index++) if (readSpan(layout.members[index], start, end)) count++;
  return count;
}

/** The members whose placement overlaps [start, end], as an index range (first > last when none). */
export function touchedMembers(layout: ZipLayout, start: number, end: number): { first: number; last: number } {
  return { first: memberAt(layout, start), last: memberAt(layout, end) };
}

/** The part of a member's bytes inside [start, end], relative to the member, or null when none. */
export function readSpan(
  member: PlacedMember | undefined,
  start: number,
  end: number,
): { offset: number; length: number } | null {
  if (!member) return null;
  const from = Math.max(start, member.dataOffset);
  const to = Math.min(end + 1, member.dataOffset + member.size);
  return to > from ? { offset: from - member.dataOffset, length: to - from } : null;
}

/** The index of the member whose local header, data or descriptor holds byte `at`; -1 before the
 * first, the last member's index when `at` is in the central directory or after it. */
function memberAt(layout: ZipLayout, at: number): number {
  let low = 0;
  let high = layout.members.length - 1;
  let found = -1;
  while (low <= high) {
    const middle = (low + high) >>> 1;
    if ((layout.members[middle] as PlacedMember).headerOffset <= at) {
      found = middle;
      low = middle + 1;
    } else {
      high = middle - 1;
    }
  }
  return found;
}

/**
 * A text that changes exactly when the archive's bytes would: the format's version, then every
 * member's name, size, CRC-32 and the time fields as stored, in order. Hash it for a strong
 * ETag. With a CRC still unknown (not rangeable) the bytes also depend on content the records
 * cannot show: such an archive should get no strong ETag.
 */
export function zipEtagInput(layout: ZipLayout): string {
  const decoder = new TextDecoder();
  const lines = layout.members.map((member) =>
    JSON.stringify([
      decoder.decode(member.name),
      member.size,
      member.crc32,
      member.dosDate,
      member.dosTime,
      member.unixTime,
    ]),
  );
  return [ZIP_FORMAT, ...lines].join('\n');
}

/**
 * The writer's output format. Change it with anything that changes the bytes written for the
 * same records (a field, a flag, an attribute), so every ETag made before changes too.
 */
export const ZIP_FORMAT = 'edgeshare-zip/1';
