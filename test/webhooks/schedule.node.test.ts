// The retry schedule of webhook deliveries against wrangler.toml: as many delays as the events
// consumer's max_retries, none over Queues' 12 h cap, growing, and over a day in all.
import { expect, it } from 'vitest';
import {
  MAX_RETRIES,
  RETRY_DELAYS_SECONDS,
  RETRY_WINDOW_SECONDS,
  retryDelaySeconds,
} from '../../src/webhooks/schedule.ts';
import { queueConsumer as consumer, toml } from '../helpers/queue-consumers';

it('matches the events consumer: max_retries delays, a dead-letter queue that has its own consumer', () => {
  const [events, deadLetters] = [consumer('edgeshare-events'), consumer('edgeshare-events-dlq')];
  expect(events).toMatchObject({ queue: 'edgeshare-events', dead_letter_queue: 'edgeshare-events-dlq' });
  expect(Number(events?.max_retries)).toBe(MAX_RETRIES);
  expect(RETRY_DELAYS_SECONDS).toHaveLength(MAX_RETRIES);
  expect(deadLetters?.queue).toBe('edgeshare-events-dlq');
  expect(toml).toMatch(/\[\[queues\.producers\]\]\s*binding = "EVENTS"\s*queue = "edgeshare-events"/);
});

it('grows, never waits more than 12 h at once, and retries for more than 24 h', () => {
  for (let i = 1; i < RETRY_DELAYS_SECONDS.length; i++) {
    expect(RETRY_DELAYS_SECONDS[i]).toBeGreaterThanOrEqual(RETRY_DELAYS_SECONDS[i - 1] ?? 0);
  }
  expect(Math.max(...RETRY_DELAYS_SECONDS)).toBeLessThanOrEqual(12 * 3600);
  expect(RETRY_WINDOW_SECONDS).toBeGreaterThanOrEqual(24 * 3600);
  expect(retryDelaySeconds(1)).toBe(RETRY_DELAYS_SECONDS[0]);
  expect(retryDelaySeconds(MAX_RETRIES + 5)).toBe(12 * 3600);
});
