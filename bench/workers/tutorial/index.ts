// Peer: the upload Worker a user would otherwise copy from a tutorial. request.formData() reads
// the whole body into memory, then the File goes to R2 in one put().
//   POST   /upload        multipart/form-data with a `file` part
//   POST   /bulk          multipart/form-data with `files` parts: formData(), then every file put at once
//   DELETE /object/:key   clean-up between runs (not timed)

type PeerEnv = { BUCKET: R2Bucket };

export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    if (request.method === 'POST' && url.pathname === '/upload') {
      const form = await request.formData();
      const file = form.get('file');
      if (!file || typeof file === 'string') return new Response('a file part is required', { status: 400 });
      const key = crypto.randomUUID();
      const object = await env.BUCKET.put(key, file, { httpMetadata: { contentType: file.type } });
      return Response.json({ key, size: object?.size }, { status: 201 });
    }
    if (request.method === 'POST' && url.pathname === '/bulk') {
      const files = (await request.formData()).getAll('files').filter((entry) => typeof entry !== 'string');
      const keys = await Promise.all(
        files.map(async (file) => {
          const key = crypto.randomUUID();
          await env.BUCKET.put(key, file, { httpMetadata: { contentType: file.type } });
          return key;
        }),
      );
      return Response.json({ keys }, { status: 201 });
    }
    const [, route, key] = url.pathname.split('/');
    if (request.method === 'DELETE' && route === 'object' && key) {
      await env.BUCKET.delete(key);
      return new Response(null, { status: 204 });
    }
    return new Response('not found', { status: 404 });
  },
} satisfies ExportedHandler<PeerEnv>;
