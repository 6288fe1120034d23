// Webhooks end to end under `wrangler dev` (Miniflare's local queues): a real HTTP receiver on
// 127.0.0.1 gets a signed file.uploaded within seconds, while a receiver that takes 10 s to
// answer never delays the upload's own answer, and a redirecting one is not followed; a closed port
// and a port that speaks no HTTP read the same in the deliveries (no status, "no response").
import { execFile } from 'node:child_process';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { createServer as createTcpServer } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ROOT } from '../../scripts/wrangler.ts';
import { EdgeshareClient } from '../../src/client/edgeshare.ts';
import { freePort, type SharedDevServer, sharedDevServer } from '../helpers/dev-server.ts';

type Hit = { path: string; headers: IncomingMessage['headers']; body: string; at: number };

let server: SharedDevServer;
let receiver: Server;
let receiverOrigin: string;
let apiKey: string;
const hits: Hit[] = [];

beforeAll(async () => {
  const port = await freePort();
  receiverOrigin = `http://127.0.0.1:${port}`;
  receiver = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const path = request.url ?? '';
      hits.push({ path, headers: request.headers, body: Buffer.concat(chunks).toString(), at: Date.now() });
      if (path === '/slow') setTimeout(() => response.end('late'), 10_000);
      else if (path === '/redirect') response.writeHead(302, { Location: `${receiverOrigin}/landed` }).end();
      else response.end('ok');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(port, '127.0.0.1', resolve));
  // The project's server: its keys allow 100,000 requests a minute, which the polling of deliveries cannot reach.
  server = await sharedDevServer('e2eServer');
  apiKey = await server.createKey('webhooks e2e');
}, 150_000);

afterAll(async () => {
  receiver?.closeAllConnections();
  await new Promise((resolve) => receiver?.close(resolve));
});

const auth = () => ({ Authorization: `Bearer ${apiKey}` });

async function createWebhook(path: string, origin = receiverOrigin): Promise<{ id: string; secret: string }> {
  const response = await fetch(`${server.origin}/api/v2/webhooks`, {
    method: 'POST',
    headers: { ...auth(), 'content-type': 'application/json' },
    body: JSON.stringify({ url: `${origin}${path}`, events: ['file.uploaded'] }),
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { data: { id: string; secret: string } }).data;
}

/** The Standard Webhooks check in a few lines of node:crypto, as the README shows it. */
function verify(secret: string, hit: Hit): boolean {
  const id = String(hit.headers['webhook-id']);
  const timestamp = String(hit.headers['webhook-timestamp']);
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${hit.body}`).digest();
  const fresh = Math.abs(Date.now() / 1000 - Number(timestamp)) < 300;
  return (
    fresh &&
    String(hit.headers['webhook-signature'])
      .split(' ')
      .some((part) => {
        const [version, signature = ''] = part.split(',');
        const given = Buffer.from(signature, 'base64');
        return version === 'v1' && given.length === expected.length && timingSafeEqual(given, expected);
      })
  );
}

async function waitFor<T>(check: () => T | undefined, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms\n${server.output().slice(-3000)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

it('delivers a signed file.uploaded within seconds; a 10 s receiver never delays the upload; redirects are not followed', async () => {
  const slow = await createWebhook('/slow');
  const redirect = await createWebhook('/redirect');
  const fast = await createWebhook('/fast');

  const body = new FormData();
  body.append('file', new File(['hello webhooks'], 'hello.txt', { type: 'text/plain' }));
  const started = Date.now();
  const uploaded = await fetch(`${server.origin}/api/v2/upload`, { method: 'POST', headers: auth(), body });
  const answeredIn = Date.now() - started;
  expect(uploaded.status).toBe(201);
  const file = ((await uploaded.json()) as { data: { id: string } }).data;
  // Well under the slow receiver's 10 s, with room for a loaded machine (2 s was all it had).
  expect(answeredIn).toBeLessThan(5_000);

  const delivered = await waitFor(() => hits.find((hit) => hit.path === '/fast'), 10_000);
  expect(delivered.at - started).toBeLessThan(10_000);
  expect(verify(fast.secret, delivered)).toBe(true);
  expect(verify(slow.secret, delivered)).toBe(false);
  const payload = JSON.parse(delivered.body) as { type: string; timestamp: string; data: { file: { id: string } } };
  expect(payload).toMatchObject({ type: 'file.uploaded', data: { file: { id: file.id } } });

  // The slow receiver got its copy (and is still holding it) while other requests answer at once.
  await waitFor(() => hits.find((hit) => hit.path === '/slow'), 10_000);
  const again = Date.now();
  const listed = await fetch(`${server.origin}/api/v2/files`, { headers: auth() });
  expect(listed.status).toBe(200);
  expect(Date.now() - again).toBeLessThan(5_000);

  await waitFor(() => hits.find((hit) => hit.path === '/redirect'), 10_000);
  const deliveriesOf = async (id: string) => {
    const response = await fetch(`${server.origin}/api/v2/webhooks/${id}/deliveries`, { headers: auth() });
    return (
      (await response.json()) as {
        data: { deliveries: { status: string; lastStatusCode: number | null; lastError?: string | null }[] };
      }
    ).data.deliveries;
  };
  let attempt: { status: string; lastStatusCode: number | null } | undefined;
  for (const deadline = Date.now() + 30_000; attempt?.lastStatusCode !== 302 && Date.now() < deadline; ) {
    [attempt] = await deliveriesOf(redirect.id);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  expect(attempt).toMatchObject({ status: 'pending', lastStatusCode: 302 });
  expect(hits.filter((hit) => hit.path === '/landed')).toEqual([]);
  const [delivered2] = await deliveriesOf(fast.id);
  expect(delivered2).toMatchObject({ status: 'delivered', lastStatusCode: 200 });
  // The 10 s receiver's attempt ends at the 10 s timeout: a failed attempt with no status, retried later.
  let slowAttempt: { status: string; lastStatusCode: number | null; lastError?: string | null } | undefined;
  for (const deadline = Date.now() + 45_000; !slowAttempt?.lastError && Date.now() < deadline; ) {
    [slowAttempt] = await deliveriesOf(slow.id);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  expect(slowAttempt).toMatchObject({ status: 'pending', lastStatusCode: null, lastError: 'no response' });
  // Nothing more for these two: their retries (a minute on) find no webhook and send nothing.
  for (const id of [slow.id, redirect.id]) {
    await fetch(`${server.origin}/api/v2/webhooks/${id}`, { method: 'DELETE', headers: auth() });
  }
}, 120_000);

it('records a closed port and a port that speaks no HTTP alike, and ends the refused attempt at once', async () => {
  // An open port whose service is not HTTP (an SSH-like greeting, then the connection closed).
  const other = createTcpServer((socket) => socket.end('SSH-2.0-OpenSSH_9.6\r\n'));
  await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
  const address = other.address();
  const openPort = typeof address === 'object' && address ? address.port : 0;
  try {
    const closed = await createWebhook('/hook', `http://127.0.0.1:${await freePort()}`);
    const notHttp = await createWebhook('/hook', `http://127.0.0.1:${openPort}`);
    const body = new FormData();
    body.append('file', new File(['ports'], 'ports.txt', { type: 'text/plain' }));
    const uploaded = await fetch(`${server.origin}/api/v2/upload`, { method: 'POST', headers: auth(), body });
    expect(uploaded.status).toBe(201);
    type Attempt = { status: string; lastStatusCode: number | null; lastError?: string | null };
    type Timed = Attempt & { createdAt: string; updatedAt: string };
    // Polled until a deadline, not a count: under load one round trip can take far more than 100 ms.
    const attemptOf = async (id: string) => {
      for (const deadline = Date.now() + 45_000; Date.now() < deadline; ) {
        const response = await fetch(`${server.origin}/api/v2/webhooks/${id}/deliveries`, { headers: auth() });
        const [delivery] = ((await response.json()) as { data: { deliveries: Timed[] } }).data.deliveries;
        if (delivery?.lastError) return delivery;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      throw new Error(`no attempt for ${id}`);
    };
    const [closedAttempt, notHttpAttempt] = [await attemptOf(closed.id), await attemptOf(notHttp.id)];
    const seen = ({ status, lastStatusCode, lastError }: Attempt) => ({ status, lastStatusCode, lastError });
    expect(seen(closedAttempt)).toEqual({ status: 'pending', lastStatusCode: null, lastError: 'no response' });
    expect(seen(notHttpAttempt)).toEqual(seen(closedAttempt));
    // A refused connection does not wait out the 10 s timeout.
    expect(Date.parse(closedAttempt.updatedAt) - Date.parse(closedAttempt.createdAt)).toBeLessThan(5_000);
    for (const { id } of [closed, notHttp]) {
      await fetch(`${server.origin}/api/v2/webhooks/${id}`, { method: 'DELETE', headers: auth() });
    }
  } finally {
    // Not awaited: close() waits for every connection, and a connection the runtime keeps is no failure.
    other.close();
  }
}, 120_000);

function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [`${ROOT}/scripts/cli.ts`, ...args],
      { env: { ...process.env, EDGESHARE_URL: server.origin, EDGESHARE_KEY: apiKey } },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

it('manages webhooks through the typed client and the CLI: create, list, deliveries, retry, delete', async () => {
  const client = new EdgeshareClient({ baseUrl: server.origin, apiKey });
  const created = await cli(['webhooks', 'create', `${receiverOrigin}/cli`, '--events', 'file.deleted', '--json']);
  expect(created.code, created.stderr).toBe(0);
  const hook = JSON.parse(created.stdout) as { id: string; secret: string; events: string[] };
  expect(hook.secret).toMatch(/^whsec_/);
  expect(hook.events).toEqual(['file.deleted']);
  expect((await client.listWebhooks()).map((w) => w.id)).toContain(hook.id);
  const listed = await cli(['webhooks', 'list']);
  expect(listed.stdout).toContain(hook.id);
  expect(listed.stdout).not.toContain(hook.secret);

  const file = await client.upload(new Blob(['bye'], { type: 'text/plain' }), { filename: 'bye.txt' });
  await client.delete(file.id);
  // Locally the queue runs one batch at a time: the 10 s receiver above may still hold one.
  const delivery = await waitFor(() => hits.find((hit) => hit.path === '/cli'), 25_000);
  expect(verify(hook.secret, delivery)).toBe(true);
  expect(JSON.parse(delivery.body)).toMatchObject({ type: 'file.deleted', data: { file: { id: file.id } } });

  let deliveries = await client.webhookDeliveries(hook.id);
  for (const deadline = Date.now() + 30_000; deliveries[0]?.status !== 'delivered' && Date.now() < deadline; ) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    deliveries = await client.webhookDeliveries(hook.id);
  }
  const [first] = deliveries;
  expect(first).toMatchObject({ type: 'file.deleted', status: 'delivered', attempts: 1, lastStatusCode: 200 });
  const shown = await cli(['webhooks', 'deliveries', hook.id]);
  expect(shown.stdout).toContain(first?.id ?? 'none');

  const retried = await cli(['webhooks', 'retry', hook.id, first?.id ?? '', '--json']);
  expect(retried.code, retried.stderr).toBe(0);
  await waitFor(() => (hits.filter((hit) => hit.path === '/cli').length === 2 ? true : undefined), 10_000);
  const again = hits.filter((hit) => hit.path === '/cli');
  expect(again.map((hit) => hit.headers['webhook-id'])).toEqual([first?.id, first?.id]);

  const removed = await cli(['webhooks', 'delete', hook.id]);
  expect(removed.code).toBe(0);
  expect((await client.listWebhooks()).map((w) => w.id)).not.toContain(hook.id);
  const unknown = await cli(['webhooks', 'delete', hook.id]);
  expect(unknown.code).toBe(1);
}, 60_000);
