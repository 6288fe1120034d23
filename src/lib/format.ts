/** A byte count for people: `512 bytes`, `1.5 KiB`, `100 MiB` (binary units, at most one decimal). */
export function formatBytes(bytes: number): string {
  const units = ['KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
  if (bytes < 1024) return `${bytes} ${bytes === 1 ? 'byte' : 'bytes'}`;
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  const text = value.toFixed(1).replace(/\.0$/, '');
  return `${text} ${units[unit]}`;
}

/**
 * An exact size for people: every digit, grouped in threes, and the binary-unit size beside it
 * from 1 KiB on: `5 bytes`, `5,242,880 bytes (5 MiB)`. For a size a file must match to the byte.
 */
export function formatExactBytes(bytes: number): string {
  const digits = `${String(bytes).replace(/\B(?=(\d{3})+(?!\d))/g, ',')} ${bytes === 1 ? 'byte' : 'bytes'}`;
  return bytes < 1024 ? digits : `${digits} (${formatBytes(bytes)})`;
}

/**
 * A time for people, written the same way on every page (server-rendered or drawn in the
 * browser): the ISO 8601 date and the 24-hour time in UTC, `2026-12-03 14:05 UTC`. No locale's
 * order of day and month, no reader's zone: one instant reads the same for everyone who quotes it.
 * Anything that is not a time is returned as it is.
 */
export function formatDate(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const text = date.toISOString();
  return `${text.slice(0, 10)} ${text.slice(11, 16)} UTC`;
}
