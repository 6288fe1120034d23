// A made link's maxDownloads is a byte budget: N × the file's size over every answer that carries
// bytes (whole, any range, the preview), reserved before the answer starts, given back for what a
// broken-off answer did not send.
import { describe, expect, it } from 'vitest';
import { concat } from '../../src/lib/bytes';
import { json, makeLink, owner, pathOf, readLink, readThenBreakOff, statusAfterGiveBack } from '../helpers/links';
import { call } from '../helpers/worker';

const SIZE = 1000;
const content = (size = SIZE) =>
  Array.from({ length: size }, (_, index) => String.fromCharCode(97 + (index % 26))).join('');

/** Bytes each answer carried (0 for a refusal), read whole. */
async function bytesOf(responses: Response[]): Promise<number[]> {
  return Promise.all(
    responses.map(async (response) => {
      const body = new Uint8Array(await response.arrayBuffer());
      return response.status === 200 || response.status === 206 ? body.byteLength : 0;
    }),
  );
}

const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);

async function cappedLink(max: number, size = SIZE) {
  const { auth, fileId } = await owner({ filename: 'budget.txt', content: content(size) });
  const link = await makeLink(auth, fileId, { maxDownloads: max });
  return { auth, link, path: pathOf(link) };
}

describe('maxDownloads as a byte budget', () => {
  it('serves at most the file’s size on a cap of 1: the preview spends it, then every path is 404', async () => {
    const { path } = await cappedLink(1);
    const view = await call(`${path}/view`);
    expect(view.status).toBe(200);
    expect((await view.arrayBuffer()).byteLength).toBe(SIZE);
    for (const range of ['bytes=1-', 'bytes=0-0']) {
      expect((await call(`${path}/download`, { headers: { Range: range } })).status).toBe(404);
    }
    expect((await call(`${path}/download`)).status).toBe(404);
    expect((await call(path)).status).toBe(404);
  });

  it('counts `bytes=1-` and repeated `bytes=0-0` against the cap, though they are not downloads', async () => {
    const { auth, link, path } = await cappedLink(1);
    const tail = await call(`${path}/download`, { headers: { Range: 'bytes=1-' } });
    expect(tail.status).toBe(206);
    expect((await tail.arrayBuffer()).byteLength).toBe(SIZE - 1);
    // The file less one byte, again: it would pass the budget.
    expect((await call(`${path}/download`, { headers: { Range: 'bytes=1-' } })).status).toBe(404);
    const first = await call(`${path}/download`, { headers: { Range: 'bytes=0-0' } });
    expect(first.status).toBe(206);
    expect(await first.text()).toBe('a');
    // The whole budget is spent: another single byte, the preview and a whole download are refused.
    expect((await call(`${path}/download`, { headers: { Range: 'bytes=0-0' } })).status).toBe(404);
    expect((await call(`${path}/view`)).status).toBe(404);
    expect((await call(`${path}/download`)).status).toBe(404);
    expect(await readLink(auth, link.id)).toMatchObject({ downloadCount: 0, status: 'exhausted', remainingBytes: 0 });
  });

  it('never returns more than the file’s size when the preview, ranges and a whole download arrive together', async () => {
    const { path } = await cappedLink(1);
    const requests = [
      call(`${path}/view`),
      call(`${path}/download`, { headers: { Range: 'bytes=1-' } }),
      ...Array.from({ length: 6 }, () => call(`${path}/download`, { headers: { Range: 'bytes=0-0' } })),
      call(`${path}/download`),
    ];
    const served = await bytesOf(await Promise.all(requests));
    expect(sum(served)).toBeLessThanOrEqual(SIZE);
    expect(sum(served)).toBeGreaterThan(0);
  });

  it('stays within N × size under concurrent ranges and downloads on a cap of 2', async () => {
    const { path } = await cappedLink(2);
    const ranges = ['bytes=0-499', 'bytes=500-', 'bytes=100-899', 'bytes=-300', 'bytes=0-', undefined];
    const requests = Array.from({ length: 24 }, (_, index) => {
      const range = ranges[index % ranges.length];
      return call(`${path}/download`, range ? { headers: { Range: range } } : {});
    });
    const served = await bytesOf(await Promise.all(requests));
    expect(sum(served)).toBeLessThanOrEqual(2 * SIZE);
    // Something was refused: 24 answers of these sizes cannot all fit in 2,000 bytes.
    expect(served.filter((bytes) => bytes === 0).length).toBeGreaterThan(0);
  });

  it('gives back what a broken-off download did not send, so it resumes within the cap', async () => {
    const size = 4 * 1024 * 1024;
    const { auth, link, path } = await cappedLink(1, size);
    const whole = await call(`${path}/download`);
    expect(whole.status).toBe(200);
    const { received, got } = await readThenBreakOff(whole, size / 4);
    // The give-back runs after the answer: wait until the link opens again.
    expect(await statusAfterGiveBack(auth, link.id)).toBe('active');
    const rest = await call(`${path}/download`, { headers: { Range: `bytes=${got}-` } });
    expect(rest.status).toBe(206);
    const tail = new Uint8Array(await rest.arrayBuffer());
    expect(got + tail.byteLength).toBe(size);
    const joined = concat([...received, tail]);
    expect(new TextDecoder().decode(joined)).toBe(content(size));
    // The resumed download spent the rest: nothing more is served.
    expect((await call(`${path}/download`, { headers: { Range: 'bytes=0-0' } })).status).toBe(404);
    expect(await readLink(auth, link.id)).toMatchObject({ downloadCount: 1, status: 'exhausted' });
  });

  it('shows no preview of a capped link’s file on its page, so viewing it spends nothing', async () => {
    const { path } = await cappedLink(1);
    const html = await (await call(path, { headers: { Accept: 'text/html' } })).text();
    expect(html).toContain('budget.txt');
    expect(html).not.toContain(`${path}/view`);
    expect(html).not.toContain('<pre');
    expect((await call(`${path}/download`)).status).toBe(200);
  });

  it('lets an empty file’s cap count downloads (its budget is 0 bytes: remainingBytes 0 throughout)', async () => {
    const { auth, fileId } = await owner({ filename: 'empty.txt', content: '' });
    const link = await makeLink(auth, fileId, { maxDownloads: 2 });
    expect(link).toMatchObject({ status: 'active', remainingBytes: 0 });
    for (let i = 0; i < 2; i++) expect((await call(`${pathOf(link)}/download`)).status).toBe(200);
    expect((await call(`${pathOf(link)}/download`)).status).toBe(404);
    expect(await readLink(auth, link.id)).toMatchObject({ downloadCount: 2, status: 'exhausted', remainingBytes: 0 });
  });
});

describe('remainingBytes', () => {
  const CLIENT = { 'Accept-Encoding': 'gzip, br' };
  const download = (path: string, range?: string) =>
    call(`${path}/download`, { headers: range ? { ...CLIENT, Range: range } : CLIENT });

  it('is N × the file’s size on a fresh capped link and null on an uncapped one, in every answer', async () => {
    const { auth, fileId } = await owner({ filename: 'budget.txt', content: content() });
    const capped = await makeLink(auth, fileId, { maxDownloads: 3 });
    const open = await makeLink(auth, fileId);
    expect(capped).toMatchObject({ remainingBytes: 3 * SIZE, status: 'active' });
    expect(open).toMatchObject({ remainingBytes: null, status: 'active' });
    expect(await readLink(auth, capped.id)).toMatchObject({ remainingBytes: 3 * SIZE });
    expect(await readLink(auth, open.id)).toMatchObject({ remainingBytes: null });
    const listed = await call(`/api/v2/files/${fileId}/links`, { headers: auth });
    const links = ((await listed.json()) as { data: { links: { id: string; remainingBytes: number | null }[] } }).data
      .links;
    expect(Object.fromEntries(links.map((link) => [link.id, link.remainingBytes]))).toEqual({
      [capped.id]: 3 * SIZE,
      [open.id]: null,
    });
    // A PATCH answers with the new budget; removing the cap makes it null.
    const patched = await call(`/api/v2/links/${capped.id}`, json({ maxDownloads: 5 }, auth, 'PATCH'));
    expect(((await patched.json()) as { data: unknown }).data).toMatchObject({ remainingBytes: 5 * SIZE });
    const uncapped = await call(`/api/v2/links/${capped.id}`, json({ maxDownloads: null }, auth, 'PATCH'));
    expect(((await uncapped.json()) as { data: unknown }).data).toMatchObject({ remainingBytes: null });
  });

  it('goes down by every byte served, ranges and previews included, whether or not they count', async () => {
    const { auth, link, path } = await cappedLink(2);
    for (let i = 0; i < 3; i++) expect((await download(path, 'bytes=0-0')).status).toBe(206);
    expect(await readLink(auth, link.id)).toMatchObject({
      downloadCount: 0,
      remainingBytes: 2 * SIZE - 3,
      status: 'active',
    });
    const view = await call(`${path}/view`, { headers: CLIENT });
    expect((await view.arrayBuffer()).byteLength).toBe(SIZE);
    expect((await readLink(auth, link.id)).remainingBytes).toBe(SIZE - 3);
    expect((await (await download(path, 'bytes=100-199')).arrayBuffer()).byteLength).toBe(100);
    expect(await readLink(auth, link.id)).toMatchObject({ downloadCount: 0, remainingBytes: SIZE - 103 });
  });

  it('shows a capped link spent by ranges as exhausted, remainingBytes 0, though nothing counted', async () => {
    const { auth, link, path } = await cappedLink(1);
    const first = await download(path, 'bytes=0-499');
    expect((await first.arrayBuffer()).byteLength).toBe(500);
    expect(await readLink(auth, link.id)).toMatchObject({ status: 'active', remainingBytes: SIZE - 500 });
    const rest = await download(path, 'bytes=500-');
    expect(rest.status).toBe(206);
    expect((await rest.arrayBuffer()).byteLength).toBe(SIZE - 500);
    expect(await readLink(auth, link.id)).toMatchObject({ downloadCount: 0, status: 'exhausted', remainingBytes: 0 });
    // Exhausted means not one more byte, on any path.
    expect((await download(path, 'bytes=0-0')).status).toBe(404);
    expect((await call(path, { headers: { ...CLIENT, Accept: 'text/html' } })).status).toBe(404);
  });
});
