// Webhooks end to end under `wrangler dev` (Miniflare's local queues): a real HTTP receiver on
// 127.0.0.1 gets a signed file.uploaded within seconds, while a receiver that takes 10 s to
// answer never delays the upload's own answer, and a redirecting one is not followed.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type DevServer, freePort, startDevServer } from './dev-server.ts';

type Hit = { path: string; headers: IncomingMessage['headers']; body: string; at: number };

let server: DevServer;
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
  server = await startDevServer();
  apiKey = await server.createKey('webhooks e2e');
}, 150_000);

afterAll(async () => {
  await server?.stop();
  receiver?.closeAllConnections();
  await new Promise((resolve) => receiver?.close(resolve));
});

const auth = () => ({ Authorization: `Bearer ${apiKey}` });

async function createWebhook(path: string): Promise<{ id: string; secret: string }> {
  const response = await fetch(`${server.origin}/api/v2/webhooks`, {
    method: 'POST',
    headers: { ...auth(), 'content-type': 'application/json' },
    body: JSON.stringify({ url: `${receiverOrigin}${path}`, events: ['file.uploaded'] }),
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
  expect(answeredIn).toBeLessThan(2_000);

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
  expect(Date.now() - again).toBeLessThan(2_000);

  await waitFor(() => hits.find((hit) => hit.path === '/redirect'), 10_000);
  const deliveriesOf = async (id: string) => {
    const response = await fetch(`${server.origin}/api/v2/webhooks/${id}/deliveries`, { headers: auth() });
    return ((await response.json()) as { data: { deliveries: { status: string; lastStatusCode: number | null }[] } })
      .data.deliveries;
  };
  let attempt: { status: string; lastStatusCode: number | null } | undefined;
  for (let tries = 0; tries < 50 && attempt?.lastStatusCode !== 302; tries++) {
    [attempt] = await deliveriesOf(redirect.id);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  expect(attempt).toMatchObject({ status: 'pending', lastStatusCode: 302 });
  expect(hits.filter((hit) => hit.path === '/landed')).toEqual([]);
  const [delivered2] = await deliveriesOf(fast.id);
  expect(delivered2).toMatchObject({ status: 'delivered', lastStatusCode: 200 });
}, 60_000);
