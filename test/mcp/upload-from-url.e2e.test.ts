// upload_from_url against a real `wrangler dev` and a local HTTP server (127.0.0.1, loopback, which
// the address rule allows for local development), driven by the official MCP SDK client: bodies
// that lie about their length, a body past MAX_FILE_SIZE without a Content-Length, a slow body,
// redirects (at most 3, each checked), other schemes, the type rules and the quota under
// concurrent calls. Nothing past a limit is ever kept: not a file, not a byte of quota, not a blob.
import { createHash } from 'node:crypto';
import { readdirSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createServer as createTcpServer } from 'node:net';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DevServer, freePort, startDevServer } from '../helpers/dev-server.ts';

const MAX_FILE_SIZE = 64 * 1024;
const TIMEOUT_SECONDS = 3;
const PNG_1X1 = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=',
  'base64',
);

let server: DevServer;
let origin: Server;
let source: string;
const open = new Set<import('node:net').Socket>();

/** The bodies the tests fetch, by path. */
function serve(request: import('node:http').IncomingMessage, response: import('node:http').ServerResponse) {
  const path = new URL(request.url ?? '/', 'http://x').pathname;
  const raw = (head: string, body: string) => response.socket?.end(`HTTP/1.1 ${head}\r\nConnection: close\r\n${body}`);
  const redirect = (location: string) => {
    response.writeHead(302, { Location: location });
    response.end();
  };
  const hop = /^\/hops\/(\d+)$/.exec(path);
  if (hop) {
    const left = Number(hop[1]);
    return left === 0 ? redirect('/files/report.txt') : redirect(`/hops/${left - 1}`);
  }
  switch (path) {
    case '/files/report.txt':
      response.writeHead(200, { 'Content-Type': 'text/plain' });
      return response.end('a report fetched by the service\n');
    case '/files/pixel':
      response.writeHead(200, { 'Content-Type': 'image/png', 'Content-Length': PNG_1X1.length });
      return response.end(PNG_1X1);
    case '/sized/300':
      response.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': 300 });
      return response.end('q'.repeat(300));
    case '/longer-than-declared':
      return raw('200 OK', `Content-Type: text/plain\r\nContent-Length: 10\r\n\r\n${'x'.repeat(5000)}`);
    case '/shorter-than-declared':
      return raw('200 OK', `Content-Type: text/plain\r\nContent-Length: 5000\r\n\r\n${'x'.repeat(10)}`);
    case '/declared-too-large':
      response.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': MAX_FILE_SIZE + 1 });
      return response.end('x'.repeat(MAX_FILE_SIZE + 1));
    case '/chunked-too-large': {
      // No Content-Length: chunks until well past MAX_FILE_SIZE.
      response.writeHead(200, { 'Content-Type': 'text/plain' });
      for (let i = 0; i < 20; i++) response.write('y'.repeat(16 * 1024));
      return response.end();
    }
    case '/slow':
      // A first piece, then nothing: the deadline must end it.
      response.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': 1000 });
      return response.write('z'.repeat(100));
    case '/executable':
      response.writeHead(200, { 'Content-Type': 'application/x-msdownload' });
      return response.end(Buffer.concat([Buffer.from('MZ'), Buffer.alloc(200)]));
    case '/not-found':
      response.writeHead(404);
      return response.end('no');
    case '/to-private':
      return redirect('http://10.1.2.3/secret');
    case '/to-metadata':
      return redirect('http://169.254.169.254/latest/meta-data/');
    case '/to-ftp':
      return redirect('ftp://127.0.0.1/file');
    default:
      response.writeHead(404);
      response.end();
  }
}

beforeAll(async () => {
  server = await startDevServer({
    vars: { MAX_FILE_SIZE: String(MAX_FILE_SIZE), UPLOAD_TIMEOUT_SECONDS: String(TIMEOUT_SECONDS) },
  });
  origin = createServer(serve);
  origin.on('connection', (socket) => {
    open.add(socket);
    socket.on('close', () => open.delete(socket));
  });
  await new Promise<void>((resolve) => origin.listen(0, '127.0.0.1', resolve));
  const address = origin.address();
  source = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
}, 180_000);

afterAll(async () => {
  for (const socket of open) socket.destroy();
  await new Promise((resolve) => origin?.close(resolve));
  await server?.stop();
});

async function connect(key: string) {
  const client = new Client({ name: 'e2e', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${server.origin}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${key}` } },
    }),
  );
  return client;
}

type Result = { isError?: boolean; structuredContent?: Record<string, unknown> };
const fromUrl = async (client: Client, args: Record<string, unknown>) =>
  (await client.callTool({ name: 'upload_from_url', arguments: args })) as Result;

/** Every blob in the local R2 state (files land there; a refused one must not). */
function blobCount(): number {
  let count = 0;
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (dir.includes(`${join('r2')}`) && dir.endsWith('blobs')) count++;
    }
  };
  walk(server.persistTo);
  return count;
}

/** The account's usage once its holds are released (cleanup runs after the answer). */
async function settledUsage(client: Client) {
  for (const deadline = Date.now() + 30_000; ; ) {
    const result = (await client.callTool({ name: 'get_usage', arguments: {} })) as Result;
    const usage = result.structuredContent as { usedBytes: number; reservedBytes: number; files: number };
    if (usage.reservedBytes === 0 || Date.now() > deadline) return usage;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

describe('upload_from_url', () => {
  it('stores a fetched body (the v2 upload record with sha256), the name from the URL', async () => {
    const client = await connect(await server.createKey('fetch'));
    const result = await fromUrl(client, { url: `${source}/files/report.txt`, isPublic: false });
    expect(result.isError, JSON.stringify(result)).toBeFalsy();
    const body = 'a report fetched by the service\n';
    expect(result.structuredContent).toMatchObject({
      size: body.length,
      mimeType: 'text/plain',
      isPublic: false,
      sha256: createHash('sha256').update(body).digest('hex'),
    });
    const pixel = await fromUrl(client, { url: `${source}/files/pixel`, filename: 'dot.png' });
    expect(pixel.structuredContent).toMatchObject({ size: PNG_1X1.length, mimeType: 'image/png' });
    const listed = (await client.callTool({ name: 'list_files', arguments: { sort: 'name' } })) as Result;
    const files = (listed.structuredContent?.files ?? []) as { originalName: string }[];
    const names = files.map((file) => file.originalName);
    expect(names).toEqual(['dot.png', 'report.txt']);
  });

  it('follows at most 3 redirects, each checked; a redirect to a private, metadata or non-http target is refused', async () => {
    const client = await connect(await server.createKey('redirects'));
    expect((await fromUrl(client, { url: `${source}/hops/2` })).structuredContent).toMatchObject({
      mimeType: 'text/plain',
    });
    for (const [path, message] of [
      ['/hops/3', /more than 3/],
      ['/to-private', /non-public address/],
      ['/to-metadata', /link-local/],
      ['/to-ftp', /http or https/],
      ['/not-found', /404/],
    ] as const) {
      const refused = await fromUrl(client, { url: `${source}${path}` });
      expect(refused.isError, path).toBe(true);
      expect(refused.structuredContent, path).toMatchObject({ code: 'VALIDATION_ERROR' });
      expect(String(refused.structuredContent?.error), path).toMatch(message);
    }
    const report = 'a report fetched by the service\n';
    expect(await settledUsage(client)).toMatchObject({ usedBytes: report.length, files: 1 });
  });

  it('answers a closed port, a port that speaks no HTTP and one that says nothing alike: "could not be fetched"', async () => {
    const client = await connect(await server.createKey('ports'));
    // A server closes once its last connection has, so every one is ended at the close, and one the
    // runtime opens late (after its answer) at once. (The greeting's ended only its own half.)
    const held: import('node:net').Socket[] = [];
    let closing = false;
    const keep = (socket: import('node:net').Socket) => (closing ? socket.destroy() : held.push(socket));
    const greeting = createTcpServer((socket) => {
      keep(socket);
      socket.end('SSH-2.0-OpenSSH_9.6\r\n');
    });
    const silent = createTcpServer(keep);
    const listening: import('node:net').Server[] = [greeting, silent];
    const ports: number[] = [];
    for (const tcp of listening) {
      await new Promise<void>((resolve) => tcp.listen(0, '127.0.0.1', resolve));
      const address = tcp.address();
      ports.push(typeof address === 'object' && address ? address.port : 0);
    }
    try {
      const answers = [];
      for (const port of [await freePort(), ...ports]) {
        const refused = await fromUrl(client, { url: `http://127.0.0.1:${port}/file.txt` });
        expect(refused.isError, String(port)).toBe(true);
        answers.push(refused.structuredContent);
      }
      expect(answers[0]).toEqual({
        error: expect.stringContaining('could not be fetched'),
        code: 'VALIDATION_ERROR',
        details: [{ field: 'url', message: 'could not be fetched' }],
      });
      expect(answers[1]).toEqual(answers[0]);
      expect(answers[2]).toEqual(answers[0]);
    } finally {
      closing = true;
      for (const socket of held) socket.destroy();
      for (const tcp of listening) await new Promise((resolve) => tcp.close(resolve));
    }
    expect(await settledUsage(client)).toEqual(expect.objectContaining({ usedBytes: 0, reservedBytes: 0, files: 0 }));
  });

  it('keeps nothing of a body that breaks its Content-Length, passes MAX_FILE_SIZE, or is too slow', async () => {
    const client = await connect(await server.createKey('limits'));
    const blobsBefore = blobCount();
    const cases = [
      ['/declared-too-large', 'FILE_TOO_LARGE'],
      ['/chunked-too-large', 'FILE_TOO_LARGE'],
      ['/shorter-than-declared', 'VALIDATION_ERROR'],
      ['/slow', 'REQUEST_TIMEOUT'],
      ['/executable', 'INVALID_FILE_TYPE'],
    ] as const;
    for (const [path, code] of cases) {
      const started = Date.now();
      const refused = await fromUrl(client, { url: `${source}${path}` });
      expect(refused.structuredContent, path).toMatchObject({ code });
      if (path === '/slow') expect(Date.now() - started).toBeLessThan((TIMEOUT_SECONDS + 5) * 1000);
    }
    expect(await settledUsage(client)).toEqual(expect.objectContaining({ usedBytes: 0, reservedBytes: 0, files: 0 }));
    expect(blobCount()).toBe(blobsBefore);

    // A body longer than its Content-Length: the runtime frames the body by the header, so the
    // declared bytes are the file and the rest is never read, let alone kept.
    const longer = await fromUrl(client, { url: `${source}/longer-than-declared` });
    expect(longer.structuredContent).toMatchObject({
      size: 10,
      sha256: createHash('sha256').update('x'.repeat(10)).digest('hex'),
    });
    expect(await settledUsage(client)).toMatchObject({ usedBytes: 10, reservedBytes: 0, files: 1 });
    expect(blobCount()).toBe(blobsBefore + 1);
  });

  it('holds the quota exactly under concurrent calls', async () => {
    const client = await connect(await server.createKey('quota', ['--quota', '1000']));
    const blobsBefore = blobCount();
    const results = await Promise.all(Array.from({ length: 6 }, () => fromUrl(client, { url: `${source}/sized/300` })));
    const stored = results.filter((result) => !result.isError);
    expect(stored).toHaveLength(3);
    for (const refused of results.filter((result) => result.isError)) {
      expect(refused.structuredContent).toMatchObject({ code: 'STORAGE_EXCEEDED' });
    }
    expect(await settledUsage(client)).toMatchObject({ usedBytes: 900, reservedBytes: 0, files: 3 });
    expect(blobCount()).toBe(blobsBefore + 3);
  });
});
