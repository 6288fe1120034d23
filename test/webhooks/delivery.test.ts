// How deliveries behave when receivers fail: retried with growing delays, dead-lettered into
// failed, resent on request, never following a redirect; and a queue in trouble never touches the
// request that caused the event.
import {
  createExecutionContext,
  createMessageBatch,
  env,
  getQueueResult,
  waitOnExecutionContext,
} from 'cloudflare:test';
import { Webhook } from 'standardwebhooks';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import type { EventsMessage } from '../../src/events/types';
import worker from '../../src/index';
import { DELIVERY_TIMEOUT_MS } from '../../src/webhooks/deliver';
import { RETRY_DELAYS_SECONDS } from '../../src/webhooks/schedule';
import { form, uploadOk } from '../helpers/upload';
import {
  createWebhook,
  type Delivery,
  deliveriesOf,
  interceptReceivers,
  type Received,
  receiver,
  setResponder,
  waitFor,
} from '../helpers/webhooks';
import { call, createKey, ORIGIN, type TestEnv } from '../helpers/worker';

beforeAll(() => interceptReceivers());

const EVENTS_QUEUE = 'edgeshare-events';
const DEAD_LETTERS = 'edgeshare-events-dlq';

/**
 * Runs the Worker's queue handler on one hand-made message, as the queue would redeliver it.
 * The plugin's result does not keep retry options, so the delay asked for is read off retry().
 */
async function consume(queue: string, body: EventsMessage, attempts: number) {
  const batch = createMessageBatch<EventsMessage>(queue, [
    { id: crypto.randomUUID(), timestamp: new Date(), attempts, body },
  ]);
  const [message] = batch.messages;
  if (!message) throw new Error('no message');
  const retry = vi.spyOn(message, 'retry');
  const ctx = createExecutionContext();
  await worker.queue(batch, env as TestEnv, ctx);
  const result = await getQueueResult(batch, ctx);
  const delay = retry.mock.calls[0]?.[0]?.delaySeconds;
  return { result, id: message.id, delay };
}

async function firstDelivery(auth: Record<string, string>, webhookId: string, done: (d: Delivery) => boolean) {
  return waitFor(async () => {
    const [delivery] = await deliveriesOf(auth, webhookId);
    return delivery && done(delivery) ? delivery : undefined;
  }, 'the delivery');
}

const verifies = (secret: string, r: Received) =>
  new Webhook(secret).verify(r.body, Object.fromEntries(r.headers)) as { type: string };

describe('a receiver answering 500', () => {
  it('leaves the delivery pending with its status, retries it after the first delay, and delivers it later', async () => {
    const key = await createKey('retry');
    const hook = receiver(() => new Response('down', { status: 500 }));
    const webhook = await createWebhook(key.auth, hook.url, ['file.uploaded']);
    const before = Date.now();
    await uploadOk('v2', key.auth, {});
    const failed = await firstDelivery(key.auth, webhook.id, (d) => d.attempts === 1);
    expect(failed).toMatchObject({ status: 'pending', attempts: 1, lastStatusCode: 500, lastError: 'HTTP 500' });
    // The queue holds the message back by the schedule's first delay (60 s).
    const next = Date.parse(failed.nextAttemptAt ?? '');
    expect(next - before).toBeGreaterThanOrEqual(RETRY_DELAYS_SECONDS[0] * 1000 - 1000);
    expect(next - Date.now()).toBeLessThanOrEqual(RETRY_DELAYS_SECONDS[0] * 1000);

    // The second attempt (the queue's redelivery): the receiver is back.
    setResponder(hook.host, () => new Response(null, { status: 204 }));
    const { result, id } = await consume(EVENTS_QUEUE, { kind: 'delivery', deliveryId: failed.id }, 2);
    expect(result.explicitAcks).toEqual([id]);
    expect(result.retryMessages).toEqual([]);
    const [delivered] = await deliveriesOf(key.auth, webhook.id);
    expect(delivered).toMatchObject({
      id: failed.id,
      status: 'delivered',
      attempts: 2,
      lastStatusCode: 204,
      nextAttemptAt: null,
    });
    // Both attempts carried the same webhook-id, each with a valid signature of its own.
    const calls = hook.calls();
    expect(calls).toHaveLength(2);
    expect(new Set(calls.map((c) => c.headers.get('webhook-id')))).toEqual(new Set([failed.id]));
    for (const c of calls) expect(verifies(webhook.secret, c).type).toBe('file.uploaded');
  });

  it('asks the queue for a longer delay on each later attempt, up to 12 hours, over a day in all', async () => {
    const key = await createKey('backoff');
    const hook = receiver(() => new Response('down', { status: 503 }));
    const webhook = await createWebhook(key.auth, hook.url, ['file.uploaded']);
    await uploadOk('v2', key.auth, {});
    const delivery = await firstDelivery(key.auth, webhook.id, (d) => d.attempts === 1);
    const delays: number[] = [];
    for (let attempts = 2; attempts <= RETRY_DELAYS_SECONDS.length; attempts++) {
      const { result, id, delay } = await consume(
        EVENTS_QUEUE,
        { kind: 'delivery', deliveryId: delivery.id },
        attempts,
      );
      expect(result.retryMessages.map((m) => m.msgId)).toEqual([id]);
      delays.push(delay ?? 0);
    }
    expect(delays).toEqual(RETRY_DELAYS_SECONDS.slice(1));
    for (let i = 1; i < delays.length; i++) expect(delays[i]).toBeGreaterThanOrEqual(delays[i - 1] ?? 0);
    expect(Math.max(...RETRY_DELAYS_SECONDS)).toBeLessThanOrEqual(12 * 3600);
    expect(RETRY_DELAYS_SECONDS.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(24 * 3600);
    const [after] = await deliveriesOf(key.auth, webhook.id);
    expect(after).toMatchObject({ status: 'pending', attempts: RETRY_DELAYS_SECONDS.length, lastStatusCode: 503 });
    // The last attempt fails too: retried, so the queue dead-letters it; no next attempt is shown.
    const last = await consume(
      EVENTS_QUEUE,
      { kind: 'delivery', deliveryId: delivery.id },
      RETRY_DELAYS_SECONDS.length + 1,
    );
    expect(last.result.retryMessages.map((m) => m.msgId)).toEqual([last.id]);
    const [final] = await deliveriesOf(key.auth, webhook.id);
    expect(final).toMatchObject({ status: 'pending', attempts: RETRY_DELAYS_SECONDS.length + 1, nextAttemptAt: null });
  });
});

describe('the dead-letter queue', () => {
  it('marks a delivery whose retries ran out as failed, and a resend delivers it again with the same webhook-id', async () => {
    const key = await createKey('dead letters');
    const hook = receiver(() => new Response('gone', { status: 410 }));
    const webhook = await createWebhook(key.auth, hook.url, ['file.uploaded']);
    await uploadOk('v2', key.auth, {});
    const pending = await firstDelivery(key.auth, webhook.id, (d) => d.attempts === 1);

    const { result } = await consume(DEAD_LETTERS, { kind: 'delivery', deliveryId: pending.id }, 1);
    expect(result.ackAll).toBe(true);
    const [failed] = await deliveriesOf(key.auth, webhook.id);
    expect(failed).toMatchObject({
      id: pending.id,
      status: 'failed',
      attempts: 1,
      lastStatusCode: 410,
      nextAttemptAt: null,
    });

    // A redelivered message of a failed delivery sends nothing.
    await consume(EVENTS_QUEUE, { kind: 'delivery', deliveryId: pending.id }, 11);
    expect(hook.calls()).toHaveLength(1);

    setResponder(hook.host, () => new Response('ok'));
    const resend = await call(`/api/v2/webhooks/${webhook.id}/deliveries/${pending.id}/retry`, {
      method: 'POST',
      headers: key.auth,
    });
    expect(resend.status).toBe(202);
    expect(((await resend.json()) as { data: Delivery }).data).toMatchObject({ id: pending.id, status: 'pending' });
    const delivered = await firstDelivery(key.auth, webhook.id, (d) => d.status === 'delivered');
    expect(delivered).toMatchObject({ id: pending.id, attempts: 2, lastStatusCode: 200 });
    expect(hook.calls().map((c) => c.headers.get('webhook-id'))).toEqual([pending.id, pending.id]);
    expect(verifies(webhook.secret, hook.calls()[1] as Received).type).toBe('file.uploaded');
  });

  it('answers 404 for a resend of another account’s delivery, an unknown one or a malformed id', async () => {
    const owner = await createKey('resend owner');
    const stranger = await createKey('resend stranger');
    const hook = receiver();
    const webhook = await createWebhook(owner.auth, hook.url, ['file.uploaded']);
    await uploadOk('v2', owner.auth, {});
    const delivery = await firstDelivery(owner.auth, webhook.id, (d) => d.status === 'delivered');
    const retry = (auth: Record<string, string>, path: string) =>
      call(`/api/v2/webhooks/${path}/retry`, { method: 'POST', headers: auth });
    expect((await retry(stranger.auth, `${webhook.id}/deliveries/${delivery.id}`)).status).toBe(404);
    const unknown = await retry(owner.auth, `${webhook.id}/deliveries/msg_${'A'.repeat(22)}`);
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { code: string }).code).toBe('DELIVERY_NOT_FOUND');
    expect((await retry(owner.auth, `${webhook.id}/deliveries/nope`)).status).toBe(404);
    expect(hook.calls()).toHaveLength(1);
  });
});

describe('a deleted webhook', () => {
  it('gets nothing more: a pending delivery’s next attempt finds no webhook and is dropped', async () => {
    const key = await createKey('deleted webhook');
    const hook = receiver(() => new Response('down', { status: 500 }));
    const webhook = await createWebhook(key.auth, hook.url, ['file.uploaded']);
    await uploadOk('v2', key.auth, {});
    const pending = await firstDelivery(key.auth, webhook.id, (d) => d.attempts === 1);
    const removed = await call(`/api/v2/webhooks/${webhook.id}`, { method: 'DELETE', headers: key.auth });
    expect(removed.status).toBe(200);
    const { result, id } = await consume(EVENTS_QUEUE, { kind: 'delivery', deliveryId: pending.id }, 2);
    expect(result.explicitAcks).toEqual([id]);
    expect(hook.calls()).toHaveLength(1);
    const left = await env.DB.prepare('SELECT COUNT(*) AS n FROM webhook_deliveries WHERE webhook_id = ?1')
      .bind(webhook.id)
      .first<{ n: number }>();
    expect(left?.n).toBe(0);
  });
});

describe('safety', () => {
  it('never follows a redirect: a 3xx is a failed attempt and its Location is never asked', async () => {
    const key = await createKey('redirect');
    const elsewhere = receiver();
    const hook = receiver(() => new Response(null, { status: 302, headers: { Location: elsewhere.url } }));
    const webhook = await createWebhook(key.auth, hook.url, ['file.uploaded']);
    await uploadOk('v2', key.auth, {});
    const delivery = await firstDelivery(key.auth, webhook.id, (d) => d.attempts === 1);
    expect(delivery).toMatchObject({ status: 'pending', lastStatusCode: 302, lastError: 'redirect not followed' });
    expect(hook.calls().map((c) => c.redirect)).toEqual(['manual']);
    expect(elsewhere.calls()).toHaveLength(0);
  });

  it('refuses at delivery a URL stored before the address rule: one failed attempt, nothing sent, never retried', async () => {
    const key = await createKey('stored before the rule');
    const hook = receiver();
    const metadata = await createWebhook(key.auth, hook.url, ['file.uploaded']);
    const injected = await createWebhook(key.auth, receiver().url, ['file.uploaded']);
    // Rows as an older version stored them: a metadata address, and CR/LF the parser would drop.
    const stored = {
      [metadata.id]: 'https://169.254.169.254/latest/meta-data/',
      [injected.id]: `${hook.url}\r\nX-A: 1`,
    };
    for (const [id, url] of Object.entries(stored)) {
      await env.DB.prepare('UPDATE webhooks SET url = ?1 WHERE id = ?2').bind(url, id).run();
    }
    const sent = vi.mocked(fetch).mock.calls.length;
    await uploadOk('v2', key.auth, {});
    for (const id of [metadata.id, injected.id]) {
      const failed = await firstDelivery(key.auth, id, (d) => d.attempts === 1);
      expect(failed).toMatchObject({ status: 'failed', attempts: 1, lastStatusCode: null, nextAttemptAt: null });
      expect(failed.lastError).toMatch(/^refused: url must not/);
      // A redelivered message (or a resend) is refused again and acked: no retry is asked for.
      await env.DB.prepare("UPDATE webhook_deliveries SET status = 'pending' WHERE id = ?1").bind(failed.id).run();
      const again = await consume(EVENTS_QUEUE, { kind: 'delivery', deliveryId: failed.id }, 2);
      expect(again.result.explicitAcks).toEqual([again.id]);
      expect(again.result.retryMessages).toEqual([]);
      const [after] = await deliveriesOf(key.auth, id);
      expect(after).toMatchObject({ status: 'failed', attempts: 2, nextAttemptAt: null });
    }
    const asked = vi
      .mocked(fetch)
      .mock.calls.slice(sent)
      .map(([input]) => String(input instanceof Request ? input.url : input));
    expect(asked.filter((url) => url.includes('169.254') || url.includes(hook.host))).toEqual([]);
    expect(hook.calls()).toEqual([]);
  });

  it('records a refused connection and a timeout alike (no status, "no response"), the refused one at once', async () => {
    const key = await createKey('refused or timed out');
    // Port 1 on loopback: nothing listens there, so the connection is refused at once.
    const refused = await createWebhook(key.auth, 'http://127.0.0.1:1/hook', ['file.uploaded']);
    const silent = receiver(
      (request) =>
        new Promise<Response>((_, reject) => {
          request.signal.addEventListener('abort', () => reject(request.signal.reason));
        }),
    );
    const timedOut = await createWebhook(key.auth, silent.url, ['file.uploaded']);
    await uploadOk('v2', key.auth, {});
    // Polled every 250 ms: the key's rate limit would not take the helper's 10 polls a second.
    const attempts: Delivery[] = [];
    for (const id of [refused.id, timedOut.id]) {
      const deadline = Date.now() + DELIVERY_TIMEOUT_MS + 20_000;
      for (;;) {
        const [delivery] = await deliveriesOf(key.auth, id);
        if (delivery?.attempts === 1) {
          attempts.push(delivery);
          break;
        }
        if (Date.now() > deadline) throw new Error(`no attempt for ${id}: ${JSON.stringify(delivery)}`);
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    }
    for (const delivery of attempts) {
      expect(delivery).toMatchObject({
        status: 'pending',
        attempts: 1,
        lastStatusCode: null,
        lastError: 'no response',
      });
    }
    const [refusedAttempt, timedOutAttempt] = attempts.map(
      (delivery) => Date.parse(delivery.updatedAt) - Date.parse(delivery.createdAt),
    );
    // The refused one ends well before the timeout (the queue's batch wait included); the silent one waits it out.
    expect(refusedAttempt).toBeLessThan(DELIVERY_TIMEOUT_MS / 2);
    expect(timedOutAttempt).toBeGreaterThanOrEqual(DELIVERY_TIMEOUT_MS);
  }, 60_000);

  it('never writes a webhook secret to the log, on creation or on a failed delivery', async () => {
    const lines: string[] = [];
    const spies = (['log', 'error', 'warn', 'info'] as const).map((method) =>
      vi.spyOn(console, method).mockImplementation((...args: unknown[]) => {
        lines.push(args.map(String).join(' '));
      }),
    );
    try {
      const key = await createKey('quiet secrets');
      const hook = receiver(() => new Response('no', { status: 500 }));
      const webhook = await createWebhook(key.auth, hook.url, ['file.uploaded']);
      await uploadOk('v2', key.auth, {});
      await firstDelivery(key.auth, webhook.id, (d) => d.attempts === 1);
      expect(lines.some((line) => line.includes('webhook delivery failed'))).toBe(true);
      const secretBody = webhook.secret.slice('whsec_'.length);
      expect(lines.filter((line) => line.includes(secretBody))).toEqual([]);
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
  });
});

describe('the request that causes an event', () => {
  const upload = (auth: Record<string, string>) =>
    new Request(`${ORIGIN}/api/v2/upload`, {
      method: 'POST',
      headers: { ...auth, 'cf-connecting-ip': '10.9.8.7' },
      body: form([{ filename: 'q.txt', type: 'text/plain', content: 'queued' }]),
    });

  it('succeeds when the queue refuses the event (logged, not answered)', async () => {
    const key = await createKey('queue down');
    const broken = {
      send: () => Promise.reject(new Error('queue down')),
      sendBatch: () => Promise.reject(new Error('queue down')),
    };
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const ctx = createExecutionContext();
    const response = await worker.fetch(upload(key.auth), { ...env, EVENTS: broken } as unknown as TestEnv, ctx);
    await waitOnExecutionContext(ctx);
    expect(response.status).toBe(201);
    expect(logged.mock.calls.map((call) => String(call[0]))).toEqual([expect.stringContaining('events not queued')]);
    logged.mockRestore();
  });

  it('does not wait for the queue: the answer comes while the event is still being sent', async () => {
    const key = await createKey('queue slow');
    // The queue takes the event only when the test lets it: an answer that waited for it would
    // never come (rather than a timer, which a loaded machine's slow upload could outlast).
    let sent = false;
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const slow = {
      send: () =>
        held.then(() => {
          sent = true;
        }),
      sendBatch: () => Promise.resolve(),
    };
    const ctx = createExecutionContext();
    const answer = worker.fetch(upload(key.auth), { ...env, EVENTS: slow } as unknown as TestEnv, ctx);
    const waited = new Promise<'waited'>((resolve) => setTimeout(() => resolve('waited'), 30_000));
    const response = await Promise.race([answer, waited]);
    expect(response).toBeInstanceOf(Response);
    expect((response as Response).status).toBe(201);
    expect(sent).toBe(false);
    release();
    await waitOnExecutionContext(ctx);
    expect(sent).toBe(true);
  });
});
