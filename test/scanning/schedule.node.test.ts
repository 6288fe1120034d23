// The scan queue's retries against wrangler.toml: the consumer gives up by itself (SCAN_ATTEMPTS)
// before the queue's max_retries would, one file per invocation, and a dead-letter queue with its
// own consumer for a scan that failed outright.
import { expect, it } from 'vitest';
import { SCAN_ATTEMPTS, SCAN_RETRY_DELAYS_SECONDS, scanRetryDelay } from '../../src/scanning/schedule.ts';
import { queueConsumer as consumer, toml } from '../helpers/queue-consumers';

it('matches the scan consumer: one file at a time, retries to spare, a dead-letter queue with a consumer', () => {
  const scans = consumer('edgeshare-scans');
  expect(scans).toMatchObject({ max_batch_size: '1', dead_letter_queue: 'edgeshare-scans-dlq' });
  // One attempt plus max_retries: more than the consumer's own attempts, so it is the one that gives up.
  expect(Number(scans?.max_retries) + 1).toBeGreaterThan(SCAN_ATTEMPTS);
  expect(consumer('edgeshare-scans-dlq')).toBeDefined();
  expect(toml).toMatch(/\[\[queues\.producers\]\]\s*binding = "SCANS"\s*queue = "edgeshare-scans"/);
});

it('waits longer each time, never past Queues’ 12 h, once between each two attempts', () => {
  expect(SCAN_RETRY_DELAYS_SECONDS).toHaveLength(SCAN_ATTEMPTS - 1);
  for (let i = 1; i < SCAN_RETRY_DELAYS_SECONDS.length; i++) {
    expect(SCAN_RETRY_DELAYS_SECONDS[i]).toBeGreaterThan(SCAN_RETRY_DELAYS_SECONDS[i - 1] ?? 0);
  }
  expect(Math.max(...SCAN_RETRY_DELAYS_SECONDS)).toBeLessThanOrEqual(12 * 3600);
  expect(scanRetryDelay(1)).toBe(SCAN_RETRY_DELAYS_SECONDS[0]);
  expect(scanRetryDelay(SCAN_ATTEMPTS + 3)).toBe(SCAN_RETRY_DELAYS_SECONDS.at(-1));
});
