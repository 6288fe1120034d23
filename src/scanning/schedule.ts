// When a scan the scanner did not answer is tried again (src/scanning/consumer.ts). A scanner
// that is down for a restart or a deploy gets about 40 minutes to come back before the file's
// scan is `error` (never clean; in gate mode held from visitors until an operator releases it).
// test/scanning/schedule.node.test.ts checks these against wrangler.toml.

/** Attempts at a scan the scanner did not answer before it is recorded as `error`. */
export const SCAN_ATTEMPTS = 5;

/** The delay before attempt n + 1, for n = 1 … SCAN_ATTEMPTS - 1: about 42 minutes in all. */
export const SCAN_RETRY_DELAYS_SECONDS = [30, 120, 600, 1800] as const;

/** The delay after the `attempts`-th attempt failed (past the schedule: its last delay). */
export const scanRetryDelay = (attempts: number): number =>
  SCAN_RETRY_DELAYS_SECONDS[Math.max(1, Math.min(attempts, SCAN_RETRY_DELAYS_SECONDS.length)) - 1] ?? 30;
