// Baselines for a collection's ZIP archive (bench: zip-*), over the same objects in one bucket:
//   PUT /object/:key                  request.body into one put() (seeding, untimed), as edgeshare's
//                                     raw upload with a Content-Length stores a file
//   GET /object/:key                  the object, or the one range its Range header asks for (206):
//                                     the floor of a ranged download of one file
//   GET /concat?prefix=P&count=N      the first N objects under P (key order) streamed back to back
//                                     in one response with their total as Content-Length: each
//                                     body piped into one FixedLengthStream. The least any archive
//                                     of those objects can cost: no headers, no layout, no checks
//   GET /concat?prefix=P&count=N&header=H
//                                     the same, with one write of H bytes (zeros) before each object:
//                                     the writes a ZIP's local headers need, without the ZIP. What
//                                     one more small write per member costs in this runtime
//   GET /concat-js?prefix=P&count=N   the same bytes, each chunk passed through JavaScript: a pulled
//                                     ReadableStream (high-water mark 0) reading each body in turn,
//                                     piped into a FixedLengthStream, the shape of edgeshare's
//                                     archive stream without the ZIP: what that shape costs here
//   GET /client-zip?prefix=P&count=N  the peer a user would write: the same objects zipped on the
//                                     fly by client-zip's downloadZip, as its README shows (stored
//                                     entries, CRC-32 computed while streaming, data descriptors,
//                                     no Content-Length, no ranges); objects fetched one at a time
//                                     as the zip asks for the next
import { downloadZip } from 'client-zip';

type ZipEnv = { BUCKET: R2Bucket };

/** The first `count` objects under `prefix`, in key order (R2 lists in key order, 1,000 a page). */
async function listed(bucket: R2Bucket, prefix: string, count: number): Promise<R2Object[]> {
  const found: R2Object[] = [];
  let cursor: string | undefined;
  do {
    const page = await bucket.list({ prefix, cursor, limit: 1000 });
    found.push(...page.objects);
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor && found.length < count);
  return found.slice(0, count);
}

function concat(bucket: R2Bucket, objects: R2Object[], headerBytes: number): Response {
  const total = objects.reduce((sum, object) => sum + object.size + headerBytes, 0);
  const { readable, writable } = new FixedLengthStream(total);
  const pump = async () => {
    for (const { key } of objects) {
      if (headerBytes > 0) {
        const writer = writable.getWriter();
        await writer.write(new Uint8Array(headerBytes));
        writer.releaseLock();
      }
      const object = await bucket.get(key);
      if (!object) throw new Error(`${key} is gone`);
      await object.body.pipeTo(writable, { preventClose: true });
    }
    await writable.close();
  };
  pump().catch((error: unknown) => writable.abort(error).catch(() => undefined));
  return new Response(readable, {
    headers: { 'content-type': 'application/octet-stream', 'content-length': String(total) },
  });
}

function concatJs(bucket: R2Bucket, objects: R2Object[]): Response {
  const total = objects.reduce((sum, object) => sum + object.size, 0);
  let next = 0;
  let reader: ReadableStreamDefaultReader<Uint8Array> | null = null;
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        for (;;) {
          if (!reader) {
            const listedObject = objects[next++];
            if (!listedObject) return controller.close();
            const object = await bucket.get(listedObject.key);
            if (!object) throw new Error(`${listedObject.key} is gone`);
            reader = object.body.getReader();
          }
          const { done, value } = await reader.read();
          if (done) reader = null;
          else if (value.byteLength > 0) return controller.enqueue(value);
        }
      },
      async cancel(reason) {
        await reader?.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
  return new Response(body.pipeThrough(new FixedLengthStream(total)), {
    headers: { 'content-type': 'application/octet-stream', 'content-length': String(total) },
  });
}

function clientZip(bucket: R2Bucket, objects: R2Object[]): Response {
  async function* members() {
    for (const { key } of objects) {
      const object = await bucket.get(key);
      if (!object) throw new Error(`${key} is gone`);
      yield { name: `${key}.bin`, lastModified: object.uploaded, input: object.body };
    }
  }
  return downloadZip(members());
}

export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    const [, route, key] = url.pathname.split('/');
    if (request.method === 'PUT' && route === 'object' && key && request.body) {
      const object = await env.BUCKET.put(key, request.body);
      return Response.json({ key, size: object?.size });
    }
    if (request.method === 'GET' && route === 'object' && key) {
      const object = await env.BUCKET.get(key, { range: request.headers });
      if (!object) return new Response('not found', { status: 404 });
      const range = object.range as { offset: number; length: number } | undefined;
      const partial = request.headers.has('range') && range !== undefined;
      const length = partial ? range.length : object.size;
      return new Response(object.body, {
        status: partial ? 206 : 200,
        headers: {
          'content-type': 'application/octet-stream',
          'content-length': String(length),
          ...(partial ? { 'content-range': `bytes ${range.offset}-${range.offset + length - 1}/${object.size}` } : {}),
        },
      });
    }
    const streams = { concat, 'concat-js': concatJs, 'client-zip': clientZip };
    if (request.method === 'GET' && route && route in streams) {
      const prefix = url.searchParams.get('prefix') ?? '';
      const count = Number(url.searchParams.get('count') ?? '1000');
      const objects = await listed(env.BUCKET, prefix, count);
      const header = Number(url.searchParams.get('header') ?? '0');
      return streams[route as keyof typeof streams](env.BUCKET, objects, header);
    }
    return new Response('not found', { status: 404 });
  },
} satisfies ExportedHandler<ZipEnv>;
