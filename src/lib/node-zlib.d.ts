// The one part of node:zlib the Worker uses (src/lib/crc32.ts), for the Worker's type check, which
// does not load Node's types (they would clash with the Workers runtime's). workerd provides the
// module with Node.js compatibility, on by default from compatibility date 2026-08-04.
declare module 'node:zlib' {
  /** CRC-32 of data, continued from value (0 to start). */
  export function crc32(data: string | ArrayBufferView, value?: number): number;
}
