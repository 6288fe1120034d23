// Receivers for webhook deliveries inside workerd: the Worker's outbound fetch is intercepted for
// *.hooks.test (the queue consumer runs in the tests' isolate), everything else goes through.
import { env } from 'cloudflare:test';
import { Webhook } from 'standardwebhooks';
import { expect, vi } from 'vitest';
import type { Success } from './records';
import { readJson } from './responses';
import { call } from './worker';

export type Received = { url: string; redirect: string; headers: Headers; body: string; at: number };
type Responder = (request: Request) => Response | Promise<Response>;

const received: Received[] = [];
const responders = new Map<string, Responder>();
const realFetch = globalThis.fetch;

/** Starts intercepting (idempotent). Each receiver is a host: `<name>.hooks.test`. */
export function interceptReceivers(): void {
  if (vi.isMockFunction(globalThis.fetch)) return;
  vi.spyOn(globalThis, 'fetch').mockImplementation(async (input, init) => {
    const request = new Request(input as RequestInfo, init);
    const url = new URL(request.url);
    if (!url.hostname.endsWith('.hooks.test')) return realFetch(input as RequestInfo, init);
    // The responder reads the body too (a stub siteverify reads its form).
    const unread = request.clone();
    received.push({
      url: request.url,
      redirect: request.redirect,
      headers: request.headers,
      body: await request.text(),
      at: Date.now(),
    });
    const respond = responders.get(url.hostname) ?? (() => new Response('ok'));
    return respond(unread);
  });
}

/** A fresh receiver URL; `respond` decides its answers (default 200). */
export function receiver(respond?: Responder): { url: string; host: string; calls: () => Received[] } {
  const host = `r${crypto.randomUUID().slice(0, 8)}.hooks.test`;
  if (respond) responders.set(host, respond);
  return { url: `https://${host}/hook`, host, calls: () => received.filter((r) => new URL(r.url).hostname === host) };
}

/** What a fixed receiver host got (the operator's, OPERATOR_WEBHOOK_URL in vitest.config.ts). */
export const callsTo = (host: string) => received.filter((r) => new URL(r.url).hostname === host);

export function setResponder(host: string, respond: Responder): void {
  responders.set(host, respond);
}

/** Polls until `check` returns a value (not undefined/false), or fails after `timeoutMs`. */
export async function waitFor<T>(
  check: () => T | Promise<T>,
  what: string,
  timeoutMs = 15_000,
): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Lets queued work settle: waits `quietMs` for a delivery that should not come. The tests' queues
 * hand a batch over at once (vitest.config.ts), so a second can be quiet enough.
 */
export async function settle(quietMs = 1000): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, quietMs));
}

export type WebhookCreated = {
  id: string;
  url: string;
  events: string[];
  secret: string;
  createdAt: string;
  updatedAt: string;
};
export type Delivery = {
  id: string;
  eventId: string;
  type: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  createdAt: string;
  updatedAt: string;
  nextAttemptAt: string | null;
};

export async function createWebhook(auth: Record<string, string>, url: string, events: string[] = ['*']) {
  const response = await call('/api/v2/webhooks', {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ url, events }),
  });
  expect(response.status, await response.clone().text()).toBe(201);
  return (await readJson<Success<WebhookCreated>>('v2', response)).data;
}

export async function deliveriesOf(auth: Record<string, string>, webhookId: string): Promise<Delivery[]> {
  const response = await call(`/api/v2/webhooks/${webhookId}/deliveries?limit=100`, { headers: auth });
  expect(response.status).toBe(200);
  return (await readJson<Success<{ deliveries: Delivery[] }>>('v2', response)).data.deliveries;
}

/** The body a receiver got, parsed. */
export const payloadOf = (call: Received) =>
  JSON.parse(call.body) as { type: string; timestamp: string; data: { file?: Record<string, unknown>; via?: string } };

/** A delivery checked by an independent Standard Webhooks implementation (throws unless signed with `secret`); its payload. */
export const verifyDelivery = (secret: string, delivery: Received) =>
  new Webhook(secret).verify(delivery.body, {
    'webhook-id': delivery.headers.get('webhook-id') ?? '',
    'webhook-timestamp': delivery.headers.get('webhook-timestamp') ?? '',
    'webhook-signature': delivery.headers.get('webhook-signature') ?? '',
  }) as { type: string; timestamp: string; data: Record<string, unknown> };

/** The deliveries among `calls` whose event is of `type`. */
export const ofType = (calls: Received[], type: string) => calls.filter((c) => payloadOf(c).type === type);

export const db = () => env.DB;
