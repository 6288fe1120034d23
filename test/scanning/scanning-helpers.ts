// What the scanning tests share: the test signatures' bytes (the project's database,
// test/fixtures/clamav/edgeshare-test.ndb), streams of them, and whether a clamd runs.
import { createExecutionContext, createMessageBatch, env, getQueueResult } from 'cloudflare:test';
import { vi } from 'vitest';
import worker from '../../src/index';
import type { ScanMessage } from '../../src/scanning/scan-queue';
import type { FileRecordV2 } from '../helpers/records';
import { waitFor } from '../helpers/webhooks';
import { call, type TestEnv } from '../helpers/worker';

const ascii = (text: string) => new TextEncoder().encode(text);

/**
 * The EICAR anti-virus test file (68 bytes), put together here so that no file of the repository
 * holds it whole (a developer's own scanner would flag this one).
 */
export const EICAR = ascii(['X5O!P%@AP[4\\PZX54(P^)7CC)7}$', 'EICAR-STANDARD-ANTIVIRUS', '-TEST-FILE!$H+H*'].join(''));

/** The database's second signature: a marker string, to put anywhere in a file. */
export const MARKER = ascii('EDGESHARE-SCANNER-TEST-MARKER');

/** A stream that yields `pieces` as they are. */
export const streamOf = (pieces: Uint8Array[]) =>
  new ReadableStream<Uint8Array>({
    start(controller) {
      for (const piece of pieces) controller.enqueue(piece);
      controller.close();
    },
  });

/** Whether the project's clamd runs (without one, test/helpers/clamd-global-setup.ts printed why, or failed in CI). */
export const clamdRunning = () => env.SCANNER !== '';

/**
 * A SCANS queue (an env override for `call`) that keeps the messages an upload sends, so that a
 * test sees a file while its scan is still to come; `release` sends them on to the real queue,
 * whose consumer then scans, and `take` hands them to a test that delivers them itself.
 */
export function heldScans() {
  const held: ScanMessage[] = [];
  const queue = {
    send: async (body: ScanMessage) => {
      held.push(body);
    },
    sendBatch: async (messages: Iterable<MessageSendRequest<ScanMessage>>) => {
      for (const message of messages) held.push(message.body);
    },
  };
  return {
    env: { SCANS: queue },
    held,
    take: () => held.splice(0),
    release: async () => {
      const messages = held.splice(0);
      if (messages.length > 0) await env.SCANS.sendBatch(messages.map((body) => ({ body, contentType: 'json' })));
    },
  };
}

/**
 * Runs the Worker's queue handler on one hand-made scan message, as the queue would deliver it on
 * its `attempts`-th try, with `vars` over the project's (a stopped SCANNER): whether it was acked,
 * and the delay of the retry it asked for, if any.
 */
export async function deliverScan(
  message: ScanMessage,
  attempts: number,
  vars: Record<string, unknown> = {},
  queue = 'edgeshare-scans',
) {
  const batch = createMessageBatch<ScanMessage>(queue, [
    { id: crypto.randomUUID(), timestamp: new Date(), attempts, body: message },
  ]);
  const [delivered] = batch.messages;
  if (!delivered) throw new Error('no message');
  const retry = vi.spyOn(delivered, 'retry');
  const ctx = createExecutionContext();
  await worker.queue(batch, { ...env, ...vars } as TestEnv, ctx);
  const result = await getQueueResult(batch, ctx);
  return { acked: result.explicitAcks.includes(delivered.id), delay: retry.mock.calls[0]?.[0]?.delaySeconds };
}

/** A file's `scan` as its owner reads it (GET /api/v2/files/{id}). */
export async function scanOf(auth: Record<string, string>, fileId: string) {
  const response = await call(`/api/v2/files/${fileId}`, { headers: auth });
  const body = (await response.json()) as { data: FileRecordV2 };
  return body.data.scan;
}

/** Waits until the file's scan is no longer pending; its `scan` then. */
export const scanned = (auth: Record<string, string>, fileId: string) =>
  waitFor(async () => {
    const scan = await scanOf(auth, fileId);
    return scan && scan.status !== 'pending' ? scan : undefined;
  }, `the scan of ${fileId}`);
