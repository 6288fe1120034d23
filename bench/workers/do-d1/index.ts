// Baseline for GET /api/v2/files/:id: the floor of an authenticated, rate-limited read — one call
// to a per-caller Durable Object that counts the request in its storage, then one D1 read by
// primary key. No key lookup, no validation, no response shaping.
//   GET /files/:id                         the baseline request (DO named by the Authorization header)
//   GET /costs/{d1-read,d1-write,do-call}?n=N&id=ID
//       N sequential operations timed inside the Worker (Date.now() moves on after each I/O):
//       inputs of the load model (bench/load-model.ts), not a benchmark of their own.
//   GET /costs/{sha256-js,sha256-native}?n=N
//       N MiB hashed, 1 MiB a call: by edgeshare's resumable SHA-256 in JavaScript (what a tus
//       upload must use, its state kept between requests) and by crypto.DigestStream (native, what
//       a single request uses). Timed the same way, with a 1 ms timer after the hashing.
import { DurableObject } from 'cloudflare:workers';
import { Sha256 } from '../../../src/lib/sha256.ts';

type BaselineEnv = { DB: D1Database; COUNTER: DurableObjectNamespace<Counter> };

export class Counter extends DurableObject<BaselineEnv> {
  hit(): number {
    const count = (this.ctx.storage.kv.get<number>('count') ?? 0) + 1;
    this.ctx.storage.kv.put('count', count);
    return count;
  }
}

const json = (body: unknown, status = 200) => Response.json(body, { status });

async function timed(n: number, operation: (i: number) => Promise<unknown>): Promise<Response> {
  const started = Date.now();
  for (let i = 0; i < n; i++) await operation(i);
  return json({ n, ms: Date.now() - started });
}

/** n MiB hashed by one implementation; Date.now() moves on only at I/O, so a 1 ms timer closes the span. */
async function hashed(kind: 'sha256-js' | 'sha256-native', n: number): Promise<Response> {
  const chunk = new Uint8Array(1024 * 1024);
  for (let at = 0; at < chunk.length; at += 65536) crypto.getRandomValues(chunk.subarray(at, at + 65536));
  const started = Date.now();
  if (kind === 'sha256-js') {
    const hash = new Sha256();
    for (let i = 0; i < n; i++) hash.update(chunk);
    hash.digest();
  } else {
    const digest = new crypto.DigestStream('SHA-256');
    const writer = digest.getWriter();
    for (let i = 0; i < n; i++) await writer.write(chunk);
    await writer.close();
    await digest.digest;
  }
  await scheduler.wait(1);
  return json({ n, ms: Math.max(0, Date.now() - started - 1) });
}

export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    const [, route, name] = url.pathname.split('/');
    if (request.method !== 'GET' || !name) return json({ error: 'not found' }, 404);
    if (route === 'files') {
      await env.COUNTER.getByName(request.headers.get('authorization') ?? 'anonymous').hit();
      const row = await env.DB.prepare('SELECT * FROM files WHERE id = ?1').bind(name).first();
      return row ? json({ success: true, data: row }) : json({ error: 'not found' }, 404);
    }
    if (route === 'costs') {
      const n = Math.min(Number(url.searchParams.get('n') ?? '100'), 10_000);
      const id = url.searchParams.get('id') ?? '';
      const db = env.DB;
      if (name === 'd1-read') return timed(n, () => db.prepare('SELECT * FROM files WHERE id = ?1').bind(id).first());
      if (name === 'd1-write')
        return timed(n, () =>
          db.prepare('UPDATE files SET download_count = download_count + 1 WHERE id = ?1').bind(id).run(),
        );
      if (name === 'do-call') return timed(n, () => env.COUNTER.getByName('costs').hit());
      if (name === 'sha256-js' || name === 'sha256-native') return hashed(name, Math.min(n, 1024));
    }
    return json({ error: 'not found' }, 404);
  },
} satisfies ExportedHandler<BaselineEnv>;
