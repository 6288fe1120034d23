// When a failed delivery is tried again. Queues delays at most 12 h a retry; the sum is > 24 h.

/** Seconds before retry n (n = 1 after the first attempt failed). The last retries wait 12 h. */
export const RETRY_DELAYS_SECONDS = [60, 300, 900, 1800, 3600, 7200, 14_400, 21_600, 43_200, 43_200] as const;

/** Matches `max_retries` of the edgeshare-events consumer in wrangler.toml. */
export const MAX_RETRIES = RETRY_DELAYS_SECONDS.length;

/** Total time a delivery keeps being retried before it is marked failed (about 37.9 h). */
export const RETRY_WINDOW_SECONDS = RETRY_DELAYS_SECONDS.reduce((sum: number, delay) => sum + delay, 0);

/** The delay after attempt `attempts` (1-based, as Message.attempts counts) failed. */
export function retryDelaySeconds(attempts: number): number {
  const index = Math.min(Math.max(attempts, 1), RETRY_DELAYS_SECONDS.length) - 1;
  return RETRY_DELAYS_SECONDS[index] ?? 43_200;
}
