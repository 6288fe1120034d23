// A small ZIP reader for the tests, written from APPNOTE 6.3 apart from src/lib/zip-*.ts: it parses
// the end records, the central directory and local headers from bytes, Zip64 included, so a test
// can check what the writer produced without trusting the writer's own layout.

export type Extras = Map<number, DataView>;

export type EndRecords = {
  entries: number;
  centralSize: number;
  centralOffset: number;
  /** The plain end record's own fields, sentinels included. */
  plain: { entries: number; centralSize: number; centralOffset: number };
  zip64: { endOffset: number; versionNeeded: number; diskEntries: number } | null;
};

export type CentralEntry = {
  name: string;
  madeBy: number;
  versionNeeded: number;
  flags: number;
  method: number;
  dosTime: number;
  dosDate: number;
  crc32: number;
  compressedSize: number;
  size: number;
  headerOffset: number;
  externalAttributes: number;
  /** The 4-byte fields as written (0xFFFFFFFF when the value is in the Zip64 field). */
  raw: { size: number; compressedSize: number; headerOffset: number };
  extras: Extras;
  unixTime: number | null;
  length: number;
};

export type LocalHeader = {
  name: string;
  versionNeeded: number;
  flags: number;
  method: number;
  crc32: number;
  dosTime: number;
  dosDate: number;
  raw: { size: number; compressedSize: number };
  /** Sizes from the Zip64 field when there is one. */
  zip64: { size: number; compressedSize: number } | null;
  extras: Extras;
  unixTime: number | null;
  length: number;
};

const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

const u64 = (view: DataView, at: number) => view.getUint32(at, true) + view.getUint32(at + 4, true) * 2 ** 32;

function extrasOf(view: DataView, at: number, length: number): Extras {
  const extras: Extras = new Map();
  for (let i = at; i < at + length; ) {
    const tag = view.getUint16(i, true);
    const size = view.getUint16(i + 2, true);
    extras.set(tag, new DataView(view.buffer, view.byteOffset + i + 4, size));
    i += 4 + size;
  }
  return extras;
}

function unixTimeOf(extras: Extras): number | null {
  const field = extras.get(0x5455);
  if (!field) return null;
  if ((field.getUint8(0) & 1) === 0) throw new Error('extended timestamp without a modification time');
  return field.getInt32(1, true);
}

/** The end records from the archive's last bytes; `tailStart` is where `tail` sits in the archive. */
export function readEnd(tail: Uint8Array, tailStart: number): EndRecords {
  const view = new DataView(tail.buffer, tail.byteOffset, tail.byteLength);
  const at = tail.length - 22;
  if (view.getUint32(at, true) !== 0x06054b50) throw new Error('no end of central directory record');
  if (view.getUint16(at + 20, true) !== 0) throw new Error('unexpected archive comment');
  const plain = {
    entries: view.getUint16(at + 10, true),
    centralSize: view.getUint32(at + 12, true),
    centralOffset: view.getUint32(at + 16, true),
  };
  if (view.getUint16(at + 8, true) !== plain.entries) throw new Error('disk entries differ from total entries');
  const locatorAt = at - 20;
  if (locatorAt < 0 || view.getUint32(locatorAt, true) !== 0x07064b50) return { ...plain, plain, zip64: null };
  if (view.getUint32(locatorAt + 16, true) !== 1) throw new Error('locator: total disks is not 1');
  const endOffset = u64(view, locatorAt + 8);
  const z = endOffset - tailStart;
  if (view.getUint32(z, true) !== 0x06064b50) throw new Error('locator does not point at a Zip64 end record');
  if (u64(view, z + 4) !== 44) throw new Error('Zip64 end record of unexpected size');
  if (z + 56 !== locatorAt) throw new Error('Zip64 end record not right before its locator');
  return {
    entries: u64(view, z + 32),
    centralSize: u64(view, z + 40),
    centralOffset: u64(view, z + 48),
    plain,
    zip64: { endOffset, versionNeeded: view.getUint16(z + 14, true), diskEntries: u64(view, z + 24) },
  };
}

/** `count` central directory entries from `bytes`, which start at the directory's first byte. */
export function readCentral(bytes: Uint8Array, count: number): CentralEntry[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const entries: CentralEntry[] = [];
  let at = 0;
  for (let n = 0; n < count; n++) {
    if (view.getUint32(at, true) !== 0x02014b50) throw new Error(`entry ${n}: no central header signature`);
    const nameLength = view.getUint16(at + 28, true);
    const extraLength = view.getUint16(at + 30, true);
    const commentLength = view.getUint16(at + 32, true);
    const raw = {
      compressedSize: view.getUint32(at + 20, true),
      size: view.getUint32(at + 24, true),
      headerOffset: view.getUint32(at + 42, true),
    };
    const extras = extrasOf(view, at + 46 + nameLength, extraLength);
    // APPNOTE 4.5.3: the Zip64 field holds only the values whose own field is 0xFFFFFFFF, in order.
    const zip64 = extras.get(0x0001);
    let z = 0;
    const from64 = (value: number) => {
      if (value !== 0xffffffff) return value;
      if (!zip64) throw new Error(`entry ${n}: 0xFFFFFFFF without a Zip64 field`);
      z += 8;
      return u64(zip64, z - 8);
    };
    const size = from64(raw.size);
    const compressedSize = from64(raw.compressedSize);
    const headerOffset = from64(raw.headerOffset);
    if (zip64 && zip64.byteLength !== z)
      throw new Error(`entry ${n}: Zip64 field of ${zip64.byteLength} bytes, ${z} used`);
    entries.push({
      name: decoder.decode(bytes.subarray(at + 46, at + 46 + nameLength)),
      madeBy: view.getUint16(at + 4, true),
      versionNeeded: view.getUint16(at + 6, true),
      flags: view.getUint16(at + 8, true),
      method: view.getUint16(at + 10, true),
      dosTime: view.getUint16(at + 12, true),
      dosDate: view.getUint16(at + 14, true),
      crc32: view.getUint32(at + 16, true),
      compressedSize,
      size,
      headerOffset,
      externalAttributes: view.getUint32(at + 38, true),
      raw,
      extras,
      unixTime: unixTimeOf(extras),
      length: 46 + nameLength + extraLength + commentLength,
    });
    at += 46 + nameLength + extraLength + commentLength;
  }
  if (at !== bytes.length) throw new Error(`central directory of ${bytes.length} bytes, entries use ${at}`);
  return entries;
}

/** A local file header at the start of `bytes`. */
export function readLocal(bytes: Uint8Array): LocalHeader {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (view.getUint32(0, true) !== 0x04034b50) throw new Error('no local header signature');
  const nameLength = view.getUint16(26, true);
  const extraLength = view.getUint16(28, true);
  const extras = extrasOf(view, 30 + nameLength, extraLength);
  const zip64 = extras.get(0x0001);
  return {
    name: decoder.decode(bytes.subarray(30, 30 + nameLength)),
    versionNeeded: view.getUint16(4, true),
    flags: view.getUint16(6, true),
    method: view.getUint16(8, true),
    dosTime: view.getUint16(10, true),
    dosDate: view.getUint16(12, true),
    crc32: view.getUint32(14, true),
    raw: { compressedSize: view.getUint32(18, true), size: view.getUint32(22, true) },
    // APPNOTE 4.5.3: in a local header the Zip64 field holds both sizes.
    zip64: zip64 ? { size: u64(zip64, 0), compressedSize: u64(zip64, 8) } : null,
    extras,
    unixTime: unixTimeOf(extras),
    length: 30 + nameLength + extraLength,
  };
}

/** Every member of a whole archive: its central entry, local header, bytes and data descriptor. */
export function readArchive(archive: Uint8Array) {
  const end = readEnd(archive, 0);
  const entries = readCentral(archive.subarray(end.centralOffset, end.centralOffset + end.centralSize), end.entries);
  const members = entries.map((entry) => {
    const local = readLocal(archive.subarray(entry.headerOffset));
    const dataAt = entry.headerOffset + local.length;
    const data = archive.subarray(dataAt, dataAt + entry.compressedSize);
    let descriptor: { crc32: number; size: number; compressedSize: number; length: number } | null = null;
    if (entry.flags & 0x0008) {
      const view = new DataView(archive.buffer, archive.byteOffset + dataAt + entry.compressedSize);
      if (view.getUint32(0, true) !== 0x08074b50) throw new Error(`${entry.name}: no data descriptor signature`);
      // With a Zip64 field in the local header the descriptor's sizes are 8 bytes (APPNOTE 4.3.9.2).
      descriptor = local.zip64
        ? { crc32: view.getUint32(4, true), compressedSize: u64(view, 8), size: u64(view, 16), length: 24 }
        : {
            crc32: view.getUint32(4, true),
            compressedSize: view.getUint32(8, true),
            size: view.getUint32(12, true),
            length: 16,
          };
    }
    return { entry, local, data, descriptor };
  });
  return { end, entries, members };
}
