import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../helpers/digests';
import { getRecord } from '../helpers/files';
import { type ApiVersion, api, readJson, VERSIONS } from '../helpers/responses';
import { PNG_1X1, uploadOk } from '../helpers/upload';
import { call, createKey, flushDefaultLink } from '../helpers/worker';

const CONTENT = '0123456789abcdefghij';
const SIZE = CONTENT.length;

async function setup(version: ApiVersion, file: { filename?: string; content?: BodyInit; type?: string } = {}) {
  const { auth } = await createKey();
  const uploaded = await uploadOk(version, auth, { filename: 'digits.txt', content: CONTENT, ...file });
  const path = api(version, `/files/${uploaded.id}/download`);
  const fetchFile = (headers: Record<string, string> = {}, method = 'GET') =>
    call(path, { method, headers: { ...auth, ...headers } });
  const count = async () => (await getRecord(auth, uploaded.id, version)).downloadCount;
  return { auth, uploaded, fetchFile, count };
}

describe.each(VERSIONS)('GET /api/%s/files/:id/download', (version) => {
  describe('whole file', () => {
    it('streams the file with every documented header', async () => {
      const { uploaded, fetchFile } = await setup(version);
      const response = await fetchFile();
      expect(response.status).toBe(200);
      const headers = response.headers;
      expect(headers.get('content-type')).toBe('text/plain');
      expect(headers.get('content-length')).toBe(String(SIZE));
      expect(headers.get('content-disposition')).toBe(`attachment; filename="digits.txt"; filename*=UTF-8''digits.txt`);
      expect(headers.get('etag')).toMatch(/^"[^"]+"$/);
      expect(headers.get('last-modified')).toBe(new Date(uploaded.uploadedAt).toUTCString());
      expect(headers.get('accept-ranges')).toBe('bytes');
      expect(headers.get('x-content-type-options')).toBe('nosniff');
      expect(headers.get('cache-control')).toMatch(/(^|,\s*)private(\s*,|$)/);
      expect(headers.get('cache-control')).not.toMatch(/public/);
      if (version === 'v2') expect(headers.get('server-timing') ?? '').toContain('total;dur=');
      expect(await response.text()).toBe(CONTENT);
    });

    it('returns a stored JSON file byte for byte, untouched by the API envelope', async () => {
      const content = '{"name":"config","values":[1,2,3]}';
      const { fetchFile } = await setup(version, { filename: 'config.json', content, type: 'application/json' });
      const response = await fetchFile();
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/json');
      expect(response.headers.get('content-length')).toBe(String(content.length));
      expect(await response.text()).toBe(content);
      const ranged = await fetchFile({ Range: 'bytes=0-6' });
      expect(ranged.status).toBe(206);
      expect(await ranged.text()).toBe(content.slice(0, 7));
    });

    it('returns binary content byte for byte with its detected type', async () => {
      const { fetchFile } = await setup(version, { filename: 'pixel.png', content: PNG_1X1, type: 'image/png' });
      const response = await fetchFile();
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('image/png');
      const body = new Uint8Array(await response.arrayBuffer());
      expect(body.length).toBe(PNG_1X1.length);
      expect(await sha256Hex(body)).toBe(await sha256Hex(PNG_1X1));
    });

    it('keeps the same ETag across downloads', async () => {
      const { fetchFile } = await setup(version);
      const first = await fetchFile();
      const second = await fetchFile();
      await Promise.all([first.arrayBuffer(), second.arrayBuffer()]);
      expect(first.headers.get('etag')).toBe(second.headers.get('etag'));
    });
  });

  describe('ranges', () => {
    it('answers bytes=0-4 with 206 and the first five bytes', async () => {
      const { fetchFile } = await setup(version);
      const response = await fetchFile({ Range: 'bytes=0-4' });
      expect(response.status).toBe(206);
      expect(response.headers.get('content-range')).toBe(`bytes 0-4/${SIZE}`);
      expect(response.headers.get('content-length')).toBe('5');
      expect(response.headers.get('content-type')).toBe('text/plain');
      expect(response.headers.get('etag')).toMatch(/^"[^"]+"$/);
      expect(await response.text()).toBe('01234');
    });

    it('answers a suffix range bytes=-3 with the last three bytes', async () => {
      const { fetchFile } = await setup(version);
      const response = await fetchFile({ Range: 'bytes=-3' });
      expect(response.status).toBe(206);
      expect(response.headers.get('content-range')).toBe(`bytes ${SIZE - 3}-${SIZE - 1}/${SIZE}`);
      expect(response.headers.get('content-length')).toBe('3');
      expect(await response.text()).toBe('hij');
    });

    it('answers an open range bytes=5- with everything from byte 5', async () => {
      const { fetchFile } = await setup(version);
      const response = await fetchFile({ Range: 'bytes=5-' });
      expect(response.status).toBe(206);
      expect(response.headers.get('content-range')).toBe(`bytes 5-${SIZE - 1}/${SIZE}`);
      expect(response.headers.get('content-length')).toBe(String(SIZE - 5));
      expect(await response.text()).toBe(CONTENT.slice(5));
    });

    it('clamps a range that runs past the end to the last byte', async () => {
      const { fetchFile } = await setup(version);
      const response = await fetchFile({ Range: 'bytes=15-1000' });
      expect(response.status).toBe(206);
      expect(response.headers.get('content-range')).toBe(`bytes 15-${SIZE - 1}/${SIZE}`);
      expect(await response.text()).toBe(CONTENT.slice(15));
    });

    it('answers an unsatisfiable range with 416 and Content-Range bytes */size', async () => {
      const { fetchFile } = await setup(version);
      const response = await fetchFile({ Range: 'bytes=999999-' });
      expect(response.status).toBe(416);
      expect(response.headers.get('content-range')).toBe(`bytes */${SIZE}`);
      const body = await readJson<{ error: unknown; code: unknown }>(version, response);
      expect(typeof body.error).toBe('string');
      expect(typeof body.code).toBe('string');
    });

    it('answers a range starting exactly at the size with 416', async () => {
      const { fetchFile } = await setup(version);
      const response = await fetchFile({ Range: `bytes=${SIZE}-` });
      expect(response.status).toBe(416);
      expect(response.headers.get('content-range')).toBe(`bytes */${SIZE}`);
      await response.arrayBuffer();
    });
  });

  describe('conditional requests and HEAD', () => {
    it('answers If-None-Match with the current ETag with 304 and no body', async () => {
      const { fetchFile } = await setup(version);
      const first = await fetchFile();
      const etag = first.headers.get('etag') ?? '';
      await first.arrayBuffer();
      const response = await fetchFile({ 'If-None-Match': etag });
      expect(response.status).toBe(304);
      expect(response.headers.get('etag')).toBe(etag);
      expect(await response.text()).toBe('');
    });

    it('answers If-None-Match with another ETag with the whole file', async () => {
      const { fetchFile } = await setup(version);
      const response = await fetchFile({ 'If-None-Match': '"not-the-etag"' });
      expect(response.status).toBe(200);
      expect(await response.text()).toBe(CONTENT);
    });

    it('answers HEAD with 200, the download headers and no body', async () => {
      const { fetchFile } = await setup(version);
      const response = await fetchFile({}, 'HEAD');
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/plain');
      expect(response.headers.get('content-length')).toBe(String(SIZE));
      expect(response.headers.get('content-disposition')).toMatch(/^attachment; /);
      expect(response.headers.get('etag')).toMatch(/^"[^"]+"$/);
      expect(response.headers.get('accept-ranges')).toBe('bytes');
      expect(await response.text()).toBe('');
    });
  });

  describe('downloadCount', () => {
    it('counts 200s and ranges of the whole file, but not other ranges, HEAD, 304 or 416', async () => {
      const { fetchFile, count } = await setup(version);
      expect(await count()).toBe(0);

      const steps: [Record<string, string>, string, number, number][] = [
        // headers, method, expected status, expected count afterwards
        [{}, 'GET', 200, 1],
        // From byte 0 but short of the end: not the whole file, not a download.
        [{ Range: 'bytes=0-4' }, 'GET', 206, 1],
        [{ Range: 'bytes=0-0' }, 'GET', 206, 1],
        [{ Range: 'bytes=0-' }, 'GET', 206, 2],
        [{ Range: `bytes=0-${SIZE - 1}` }, 'GET', 206, 3],
        [{ Range: `bytes=-${SIZE}` }, 'GET', 206, 4],
        [{ Range: 'bytes=5-' }, 'GET', 206, 4],
        [{ Range: 'bytes=-3' }, 'GET', 206, 4],
        [{}, 'HEAD', 200, 4],
        [{ Range: 'bytes=999999-' }, 'GET', 416, 4],
        [{ 'If-None-Match': '"not-the-etag"' }, 'GET', 200, 5],
      ];
      for (const [headers, method, status, after] of steps) {
        const response = await fetchFile(headers, method);
        expect(response.status, `${method} ${JSON.stringify(headers)}`).toBe(status);
        await response.arrayBuffer();
        expect(await count(), `count after ${method} ${JSON.stringify(headers)}`).toBe(after);
      }

      const etag = (await fetchFile({}, 'HEAD')).headers.get('etag') ?? '';
      const notModified = await fetchFile({ 'If-None-Match': etag });
      expect(notModified.status).toBe(304);
      expect(await count()).toBe(5);
    });

    it('counts 20 concurrent downloads exactly', async () => {
      const { fetchFile, count } = await setup(version);
      const responses = await Promise.all(Array.from({ length: 20 }, () => fetchFile()));
      const bodies = await Promise.all(responses.map((response) => response.text()));
      expect(responses.map((response) => response.status)).toEqual(Array(20).fill(200));
      expect(bodies).toEqual(Array(20).fill(CONTENT));
      expect(await count()).toBe(20);
    });

    it('counts share-link downloads too', async () => {
      const { uploaded, count } = await setup(version);
      const response = await call(`${new URL(uploaded.shareUrl).pathname}/download`);
      expect(response.status).toBe(200);
      expect(await response.text()).toBe(CONTENT);
      // Default-link downloads reach the file's row from their counter's alarm (a few seconds later).
      await flushDefaultLink(uploaded.id);
      expect(await count()).toBe(1);
    });
  });
});
