// Downloads under Accept-Encoding, through a real `wrangler dev`: the runtime's HTTP layer is
// where responses get compressed, so this cannot be seen through worker.fetch. Node's http
// module is the client, so no transparent decoding hides what was on the wire.
import { request } from 'node:http';
import { beforeAll, describe, expect, it } from 'vitest';
import { type SharedDevServer, sharedDevServer } from '../helpers/dev-server.ts';

type Wire = { status: number; headers: Record<string, string | string[] | undefined>; body: Buffer };

/** One request with exactly the headers given; the body as raw bytes. */
function get(url: string, headers: Record<string, string>, method = 'GET'): Promise<Wire> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

const BROWSER_ENCODINGS = { 'Accept-Encoding': 'gzip, deflate, br, zstd' };
const COMPRESSED = /gzip|br|deflate|zstd|compress/i;

/**
 * The length a response announces must be the stored bytes'. One exception, local only:
 * wrangler dev's own proxy runs every text/html response through HTMLRewriter (to insert its
 * live-reload script when that is on, wrangler-dist/ProxyWorker.js insertLiveReloadScript),
 * which streams the same bytes without Content-Length. A deployed Worker has no such proxy.
 */
function expectStoredLength(response: Wire, type: string, length: number) {
  if (type === 'text/html' && response.headers['content-length'] === undefined) {
    expect(response.headers['transfer-encoding']).toBe('chunked');
    return;
  }
  expect(response.headers['content-length']).toBe(String(length));
  expect(response.headers['transfer-encoding']).toBeUndefined();
}

// Compressible types (text/plain, text/html, application/json are on Cloudflare's list) and long
// enough that any compression would kick in.
const FILES = [
  {
    filename: 'notes.txt',
    type: 'text/plain',
    content: 'a line of notes that repeats and compresses well\n'.repeat(80),
  },
  {
    filename: 'page.html',
    type: 'text/html',
    content: `<!doctype html><html><body>${'<p>a paragraph that compresses well</p>'.repeat(80)}</body></html>`,
  },
  {
    filename: 'data.json',
    type: 'application/json',
    content: JSON.stringify({ items: Array.from({ length: 120 }, (_, i) => ({ id: i, name: 'compressible' })) }),
  },
];

type Uploaded = { id: string; size: number; mimeType: string; shareUrl: string; bytes: Buffer };

let server: SharedDevServer | undefined;
let auth: Record<string, string> = {};
const uploaded = new Map<string, Uploaded>();

beforeAll(async () => {
  server = await sharedDevServer('e2eServer');
  auth = { Authorization: `Bearer ${await server.createKey('downloads')}` };
  for (const file of FILES) {
    const form = new FormData();
    form.append('file', new File([file.content], file.filename, { type: file.type }));
    const response = await fetch(`${server.origin}/api/v1/upload`, { method: 'POST', headers: auth, body: form });
    const body = (await response.json()) as { data: Omit<Uploaded, 'bytes'> };
    if (response.status !== 201) throw new Error(`upload failed: ${response.status} ${JSON.stringify(body)}`);
    uploaded.set(file.filename, { ...body.data, bytes: Buffer.from(file.content) });
  }
});

const ROUTES = [
  { name: 'v1 owner download', path: (file: Uploaded) => `/api/v1/files/${file.id}/download`, owner: true },
  { name: 'v2 owner download', path: (file: Uploaded) => `/api/v2/files/${file.id}/download`, owner: true },
  { name: 'share download', path: (file: Uploaded) => `${new URL(file.shareUrl).pathname}/download`, owner: false },
];

describe.each(FILES.map((file) => file.filename))('%s under Accept-Encoding', (filename) => {
  const file = () => {
    const found = uploaded.get(filename);
    if (!found || !server) throw new Error('not uploaded');
    return { ...found, url: (path: string) => `${server?.origin}${path}` };
  };

  it('was stored with its compressible type', () => {
    expect(file().mimeType).toBe(FILES.find((spec) => spec.filename === filename)?.type);
  });

  it.each(ROUTES)('$name: 200 with the stored bytes, their length and the same ETag', async (route) => {
    const f = file();
    const headers = route.owner ? auth : {};
    const plain = await get(f.url(route.path(f)), headers);
    const encoded = await get(f.url(route.path(f)), { ...headers, ...BROWSER_ENCODINGS });
    for (const response of [plain, encoded]) {
      expect(response.status).toBe(200);
      expect(response.headers['content-encoding'] ?? '').not.toMatch(COMPRESSED);
      expectStoredLength(response, f.mimeType, f.size);
      expect(response.body.equals(f.bytes)).toBe(true);
    }
    expect(encoded.headers.etag).toMatch(/^"[^"]+"$/);
    expect(encoded.headers.etag).toBe(plain.headers.etag);
  });

  it.each(ROUTES)('$name: fetch(), which asks for compression and decodes, gets the stored bytes', async (route) => {
    const f = file();
    const response = await fetch(f.url(route.path(f)), { headers: route.owner ? auth : {} });
    expect(response.status).toBe(200);
    expect(Buffer.from(await response.arrayBuffer()).equals(f.bytes)).toBe(true);
  });

  it.each(ROUTES)('$name: HEAD announces the stored length', async (route) => {
    const f = file();
    const response = await get(f.url(route.path(f)), { ...(route.owner ? auth : {}), ...BROWSER_ENCODINGS }, 'HEAD');
    expect(response.status).toBe(200);
    expect(response.headers['content-length']).toBe(String(f.size));
    expect(response.headers['content-encoding'] ?? '').not.toMatch(COMPRESSED);
  });

  it.each(ROUTES)('$name: a resumed download (Range: bytes=5-) gets exactly the rest', async (route) => {
    const f = file();
    const response = await get(f.url(route.path(f)), {
      ...(route.owner ? auth : {}),
      ...BROWSER_ENCODINGS,
      Range: 'bytes=5-',
    });
    expect(response.status).toBe(206);
    expect(response.headers['content-encoding'] ?? '').not.toMatch(COMPRESSED);
    expect(response.headers['content-range']).toBe(`bytes 5-${f.size - 1}/${f.size}`);
    expectStoredLength(response, f.mimeType, f.size - 5);
    expect(response.body.equals(f.bytes.subarray(5))).toBe(true);
  });
});
