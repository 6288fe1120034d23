// Producing events: the one entry point every feature calls. Never awaited by a request.
import { randomBase64Url } from '../lib/crypto';
import { log } from '../log';
import { isoNow } from '../time';
import type { EventData, EventsMessage, EventType, OperatorEventData, OperatorEventType, QueuedEvent } from './types';

/** Where events go: the events queue and the waitUntil of the request (or cron run) that caused them. */
export type EventSink = {
  queue: Queue<EventsMessage> | undefined;
  waitUntil: (promise: Promise<unknown>) => void;
};

/** The sink for a request (`eventSink(c.env, c.executionCtx)`) or a scheduled/queue run (`eventSink(env, ctx)`). */
export function eventSink(env: { EVENTS?: Queue }, ctx: { waitUntil(promise: Promise<unknown>): void }): EventSink {
  return { queue: env.EVENTS as Queue<EventsMessage> | undefined, waitUntil: (promise) => ctx.waitUntil(promise) };
}

export type NewEvent<T extends EventType = EventType> = { accountId: string; type: T; data: EventData[T] };

/**
 * Emits one event of the account: `emitEvent(sink, accountId, 'link.exhausted', { linkId, fileId })`.
 * Returns at once: the event is put on the queue in `waitUntil`, so a queue hiccup never fails
 * or slows the caller (it is logged). Webhooks of the account that subscribe to the type get it.
 */
export function emitEvent<T extends EventType>(sink: EventSink, accountId: string, type: T, data: EventData[T]): void {
  emitEvents(sink, [{ accountId, type, data }]);
}

// Queues take at most 128 KB a message and 100 messages (256 KB) a sendBatch: events are packed
// into messages well under that, so a bulk delete or a sweep batch costs one call.
const MAX_MESSAGE_BYTES = 96 * 1024;
const MAX_BATCH_BYTES = 200 * 1024;
const MAX_BATCH_MESSAGES = 100;

/** Emits several events (a bulk delete, a sweep batch) in as few queue calls as fit. */
export function emitEvents(sink: EventSink, events: NewEvent[]): void {
  if (events.length === 0) return;
  const queue = sink.queue;
  if (!queue) {
    log('error', 'events dropped: no EVENTS queue bound', { count: events.length });
    return;
  }
  const timestamp = isoNow();
  const queued: QueuedEvent[] = events.map((event) => ({ id: `evt_${randomBase64Url(16)}`, timestamp, ...event }));
  sink.waitUntil(
    sendEvents(queue, queued).catch((error: unknown) => {
      log('error', 'events not queued', {
        count: queued.length,
        types: [...new Set(queued.map((e) => e.type))],
        error: String(error),
      });
    }),
  );
}

async function sendEvents(queue: Queue<EventsMessage>, events: QueuedEvent[]): Promise<void> {
  const messages: EventsMessage[] = [];
  let current: QueuedEvent[] = [];
  let bytes = 0;
  for (const event of events) {
    const size = JSON.stringify(event).length;
    if (current.length > 0 && bytes + size > MAX_MESSAGE_BYTES) {
      messages.push({ kind: 'events', events: current });
      current = [];
      bytes = 0;
    }
    current.push(event);
    bytes += size;
  }
  if (current.length > 0) messages.push({ kind: 'events', events: current });
  if (messages.length === 1 && messages[0]) await queue.send(messages[0], { contentType: 'json' });
  else await sendInBatches(queue, messages);
}

/** sendBatch within Queues' limits (100 messages, 256 KB a call). */
export async function sendInBatches(queue: Queue<EventsMessage>, messages: EventsMessage[]): Promise<void> {
  let batch: MessageSendRequest<EventsMessage>[] = [];
  let bytes = 0;
  for (const body of messages) {
    const size = JSON.stringify(body).length;
    if (batch.length > 0 && (batch.length >= MAX_BATCH_MESSAGES || bytes + size > MAX_BATCH_BYTES)) {
      await queue.sendBatch(batch);
      batch = [];
      bytes = 0;
    }
    batch.push({ body, contentType: 'json' });
    bytes += size;
  }
  if (batch.length > 0) await queue.sendBatch(batch);
}

/**
 * Emits one event to the operator's receiver (OPERATOR_WEBHOOK_URL), when there is one (`to`
 * null: none configured, nothing is queued): `report.received`, `file.scanned` with `infected`.
 * Like emitEvent it returns at once; the queue's consumer signs and delivers it like an account's
 * event, with the same retries.
 */
export function emitOperatorEvent<T extends OperatorEventType>(
  sink: EventSink,
  to: string | undefined,
  type: T,
  data: OperatorEventData[T],
): void {
  if (to === undefined) return;
  const queue = sink.queue;
  if (!queue) {
    log('error', 'operator event dropped: no EVENTS queue bound', { type });
    return;
  }
  const event = { id: `msg_${randomBase64Url(16)}`, type, timestamp: isoNow(), data };
  sink.waitUntil(
    queue.send({ kind: 'operator', event }, { contentType: 'json' }).catch((error: unknown) => {
      log('error', 'operator event not queued', { type, error: String(error) });
    }),
  );
}
