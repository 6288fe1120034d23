// Baseline for GET /api/v2/files/:id: the floor of an authenticated, rate-limited read — one call
// to a per-caller Durable Object that counts the request in its storage, then one D1 read by
// primary key. No key lookup, no validation, no response shaping.
//   GET /files/:id                         the baseline request (DO named by the Authorization header)
//   GET /costs/{d1-read,d1-write,do-call}?n=N&id=ID
//       N sequential operations timed inside the Worker (Date.now() moves on after each I/O):
//       inputs of the load model (bench/load-model.ts), not a benchmark of their own.
import { DurableObject } from 'cloudflare:workers';

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
    }
    return json({ error: 'not found' }, 404);
  },
} satisfies ExportedHandler<BaselineEnv>;
