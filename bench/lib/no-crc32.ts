// Stands in for node:zlib in the bench's second bundle of the service (bench/run.ts, worker
// serviceNoCrc32): its crc32 returns the value it continues from without reading a byte, so the
// same code runs with the CRC-32's cost taken out (bench/cases/crc.ts compares the two). The
// service imports nothing else of node:zlib; a bundle that needed more would fail to build.

/** The CRC-32 "continued" over `data`: `value` unchanged (0 to start), whatever the bytes. */
export function crc32(_data: string | ArrayBufferView, value = 0): number {
  return value;
}
