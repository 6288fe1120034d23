// Baseline for scanning: the least a Worker can do to have clamd scan an object in R2.
//   PUT /object/:key      the body stored by R2 multipart in 8 MiB parts, as edgeshare stores a large upload
//   GET /scan-reads/:key  the object's body streamed to clamd (CLAMD = host:port) over connect(): zINSTREAM,
//                         then chunks read 1 MiB at a time into one reused buffer (readAtLeast, a workerd
//                         extension of the BYOB reader), each after its 4-byte big-endian length, then a
//                         zero length; answers clamd's reply ({ reply, bytes })
// (Writing each chunk as R2 hands it over, a few KiB, was 2.5x slower at 24 MiB and lost its connection
// at 300 MiB on a loaded machine: no baseline worth measuring against.)
// No timeouts, no checks, nothing recorded.
import { connect } from 'cloudflare:sockets';
import { putMultipart } from '../shared/multipart.ts';

type ScanEnv = { BUCKET: R2Bucket; CLAMD: string };

const READ_BYTES = 1024 * 1024;

const length = (value: number) => {
  const prefix = new Uint8Array(4);
  new DataView(prefix.buffer).setUint32(0, value);
  return prefix;
};

/** The body read READ_BYTES at a time into one buffer, each chunk valid until the next. */
async function* inLargeReads(body: ReadableStream<Uint8Array>) {
  const reader = body.getReader({ mode: 'byob' });
  let buffer = new ArrayBuffer(READ_BYTES);
  for (;;) {
    const { value, done } = await reader.readAtLeast(READ_BYTES, new Uint8Array(buffer));
    if (value && value.length > 0) {
      yield value;
      buffer = value.buffer as ArrayBuffer;
    }
    if (done || !value) return;
  }
}

async function scan(env: ScanEnv, key: string): Promise<Response> {
  const object = await env.BUCKET.get(key);
  if (!object) return new Response('not found', { status: 404 });
  const [hostname = '', port = ''] = env.CLAMD.split(':');
  const socket = connect({ hostname, port: Number(port) }, { secureTransport: 'off', allowHalfOpen: false });
  const reply = new Response(socket.readable).text();
  const writer = socket.writable.getWriter();
  await writer.write(new TextEncoder().encode('zINSTREAM\0'));
  let bytes = 0;
  for await (const chunk of inLargeReads(object.body)) {
    await writer.write(length(chunk.length));
    await writer.write(chunk);
    bytes += chunk.length;
  }
  await writer.write(length(0));
  const text = (await reply).replace(/\0$/, '');
  await socket.close();
  return Response.json({ reply: text, bytes });
}

export default {
  async fetch(request, env) {
    const [, route, key] = new URL(request.url).pathname.split('/');
    if (!key) return new Response('not found', { status: 404 });
    if (route === 'object' && request.method === 'PUT' && request.body) {
      const object = await putMultipart(env.BUCKET, key, request.body);
      return Response.json({ key, size: object.size });
    }
    if (route === 'scan-reads' && request.method === 'GET') return scan(env, key);
    return new Response('not found', { status: 404 });
  },
} satisfies ExportedHandler<ScanEnv>;
