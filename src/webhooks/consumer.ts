// The events queue's consumer: fans new events out to the account's webhooks, and sends each
// delivery (signed), retrying failures with growing delays; the dead-letter queue's consumer
// marks deliveries whose retries ran out as failed. The operator's events (OPERATOR_WEBHOOK_URL)
// go the same way to the operator's one receiver, signed with its secret.

import { sendInBatches } from '../events/emit';
import type { EventsMessage, OperatorEvent, QueuedEvent } from '../events/types';
import { randomBase64Url } from '../lib/crypto';
import type { TargetRules } from '../lib/public-address';
import { log } from '../log';
import {
  findDeliveryJob,
  insertEventsAndDeliveries,
  markFailed,
  type NewDeliveryRow,
  type NewEventRow,
  recordAttempt,
  unattemptedDeliveries,
  webhooksOfAccounts,
} from '../storage/webhooks-repo';
import { isoNow } from '../time';
import { postWebhook } from './deliver';
import { MAX_RETRIES, retryDelaySeconds } from './schedule';
import { signatureHeaders } from './signature';

/** The dead-letter queue's name ends so (wrangler.toml: edgeshare-events-dlq). */
export const DEAD_LETTER_SUFFIX = '-dlq';

export type ConsumerDeps = {
  db: D1Database;
  queue: Queue<EventsMessage>;
  /** The address rule's settings (ALLOW_LOOPBACK_TARGETS), from the configuration. */
  targets: TargetRules;
  now?: () => number;
  /** The operator's receiver and its whsec_ secret (OPERATOR_WEBHOOK_URL/SECRET); none: its events are dropped. */
  operator?: { url: string; secret: string };
};

export async function consumeEvents(batch: MessageBatch<EventsMessage>, deps: ConsumerDeps): Promise<void> {
  if (batch.queue.endsWith(DEAD_LETTER_SUFFIX)) return consumeDeadLetters(batch, deps);
  // Each message stands alone: one failing is retried without holding up the others.
  await Promise.all(
    batch.messages.map(async (message) => {
      try {
        const body = message.body;
        if (body.kind === 'events') {
          await fanOut(deps, body.events);
          message.ack();
        } else if (body.kind === 'delivery') {
          await deliver(deps, message as Message<Extract<EventsMessage, { kind: 'delivery' }>>);
        } else if (body.kind === 'operator') {
          await deliverToOperator(deps, message, body.event);
        } else {
          message.ack();
        }
      } catch (error) {
        log('error', 'events message failed, retried', { messageId: message.id, error: String(error) });
        message.retry({ delaySeconds: retryDelaySeconds(message.attempts) });
      }
    }),
  );
}

const subscribes = (events: string, type: string) => {
  const types = JSON.parse(events) as string[];
  return types.includes('*') || types.includes(type);
};

/** Records each event once per subscribed webhook and queues its deliveries. */
async function fanOut(deps: ConsumerDeps, events: QueuedEvent[]): Promise<void> {
  const accounts = [...new Set(events.map((event) => event.accountId))];
  const webhooks = await webhooksOfAccounts(deps.db, accounts);
  if (webhooks.length === 0) return;
  const now = isoNow(deps.now?.());
  const eventRows: NewEventRow[] = [];
  const deliveries: NewDeliveryRow[] = [];
  for (const event of events) {
    const targets = webhooks.filter(
      (hook) => hook.account_id === event.accountId && subscribes(hook.events, event.type),
    );
    if (targets.length === 0) continue;
    const payload = JSON.stringify({ type: event.type, timestamp: event.timestamp, data: event.data });
    eventRows.push({
      id: event.id,
      account_id: event.accountId,
      type: event.type,
      payload,
      created_at: event.timestamp,
    });
    for (const hook of targets) {
      deliveries.push({
        id: `msg_${randomBase64Url(16)}`,
        webhook_id: hook.id,
        event_id: event.id,
        type: event.type,
        created_at: now,
      });
    }
  }
  if (deliveries.length === 0) return;
  // D1 batches stay small: a sweep's 500 expired files for one account are a few hundred rows.
  for (let start = 0; start < eventRows.length; start += 50) {
    const chunk = eventRows.slice(start, start + 50);
    const ids = new Set(chunk.map((row) => row.id));
    await insertEventsAndDeliveries(
      deps.db,
      chunk,
      deliveries.filter((row) => ids.has(row.event_id)),
    );
  }
  // On a redelivered message the rows exist already: queue whatever was never attempted.
  const pending = await unattemptedDeliveries(
    deps.db,
    eventRows.map((row) => row.id),
  );
  await sendInBatches(
    deps.queue,
    pending.map((deliveryId) => ({ kind: 'delivery', deliveryId })),
  );
}

/**
 * One signed POST. Delivered: acked. Refused by the address rule: failed at once and acked (no
 * retry could change that; a resend after a change of URL can). Anything else: retried after the
 * schedule's delay.
 */
async function deliver(deps: ConsumerDeps, message: Message<{ kind: 'delivery'; deliveryId: string }>): Promise<void> {
  const job = await findDeliveryJob(deps.db, message.body.deliveryId);
  // The webhook was deleted, or the delivery already arrived or was given up: nothing to send.
  if (job?.status !== 'pending') {
    message.ack();
    return;
  }
  const now = deps.now?.() ?? Date.now();
  const headers = await signatureHeaders(job.secret, job.id, job.payload, now);
  const result = await postWebhook(job.url, headers, job.payload, deps.targets);
  const retried = !result.ok && !result.final;
  const delay = retryDelaySeconds(message.attempts);
  await recordAttempt(
    deps.db,
    job.id,
    {
      settled: result.ok ? 'delivered' : result.final ? 'failed' : undefined,
      statusCode: result.statusCode,
      error: result.error ?? null,
      // After the last retry the queue dead-letters the message instead: no next attempt.
      nextAttemptAt: retried && message.attempts <= MAX_RETRIES ? isoNow(Date.now() + delay * 1000) : null,
    },
    isoNow(),
  );
  const facts = { deliveryId: job.id, webhookId: job.webhook_id, attempt: message.attempts };
  if (retried) {
    // The cause (refused or timed out) is for the operator's log only, never the delivery's record.
    const error = result.cause ?? result.error;
    log('info', 'webhook delivery failed, retried', {
      ...facts,
      status: result.statusCode,
      error,
      delaySeconds: delay,
    });
    message.retry({ delaySeconds: delay });
    return;
  }
  if (!result.ok) log('info', 'webhook delivery refused, failed', { ...facts, error: result.error });
  message.ack();
}

/**
 * One signed POST of an operator's event, as an account's delivery is sent (the event's id is
 * the webhook-id on every attempt): delivered, acked; refused by the address rule, logged and
 * acked; anything else retried after the schedule's delay. No row records it: the operator reads
 * their receiver, and this Worker's log.
 */
async function deliverToOperator(deps: ConsumerDeps, message: Message<EventsMessage>, event: OperatorEvent) {
  if (!deps.operator) {
    log('info', 'operator event dropped: OPERATOR_WEBHOOK_URL is not set', { type: event.type });
    message.ack();
    return;
  }
  const payload = JSON.stringify({ type: event.type, timestamp: event.timestamp, data: event.data });
  const headers = await signatureHeaders(deps.operator.secret, event.id, payload, deps.now?.() ?? Date.now());
  const result = await postWebhook(deps.operator.url, headers, payload, deps.targets);
  const facts = { eventId: event.id, type: event.type, attempt: message.attempts, status: result.statusCode };
  if (result.ok) {
    message.ack();
    return;
  }
  if (result.final) {
    log('error', 'operator event refused by the address rule, dropped', { ...facts, error: result.error });
    message.ack();
    return;
  }
  const delay = retryDelaySeconds(message.attempts);
  log('info', 'operator event delivery failed, retried', { ...facts, error: result.cause ?? result.error, delay });
  message.retry({ delaySeconds: delay });
}

/** Deliveries whose retries ran out: failed for good (a resend starts them again). */
async function consumeDeadLetters(batch: MessageBatch<EventsMessage>, deps: ConsumerDeps): Promise<void> {
  const ids = batch.messages.flatMap((message) => (message.body.kind === 'delivery' ? [message.body.deliveryId] : []));
  for (const message of batch.messages) {
    if (message.body.kind === 'events') {
      log('error', 'events never fanned out', { count: message.body.events.length, messageId: message.id });
    }
    if (message.body.kind === 'operator') {
      log('error', 'operator event never delivered', { eventId: message.body.event.id, type: message.body.event.type });
    }
  }
  await markFailed(deps.db, ids, isoNow(deps.now?.()));
  batch.ackAll();
}
