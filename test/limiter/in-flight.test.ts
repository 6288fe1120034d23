// Uploads still running: the sweep never takes their blobs, a hold that outlived its lifetime
// cannot pass the quota, an upload past UPLOAD_TIMEOUT_SECONDS records nothing, and a client
// that goes away mid-upload leaves nothing behind, cleaned up from ctx.waitUntil.
import { createExecutionContext, env, waitOnExecutionContext } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import worker from '../../src/index';
import { tokenOf } from '../helpers/files';
import { expectError } from '../helpers/responses';
import {
  blobKeys,
  eventually,
  expectAccountSettled,
  expectStored,
  GRACE_MS,
  gatedBody,
  newKey,
  rowIds,
  sweepUntilQuiet,
  textBytes,
  type Uploaded,
  uploadSizedOk,
  usage,
} from '../helpers/storage';
import { fieldPart, filePartHeaders, MULTIPART, rawMultipart, TEST_BOUNDARY } from '../helpers/upload';
import { call, ORIGIN, someAddress } from '../helpers/worker';

/** A bulk body of two text files; the second one's bytes start with SECOND-FILE. */
function twoFiles(first = 2_000) {
  return rawMultipart([
    { headers: filePartHeaders('first.txt', 'text/plain', 'files'), content: textBytes(first, 'first') },
    { headers: filePartHeaders('second.txt', 'text/plain', 'files'), content: 'SECOND-FILE and more text' },
  ]);
}

const post = (path: string, auth: Record<string, string>, body: ReadableStream, overrides = {}) =>
  call(path, { method: 'POST', headers: { ...MULTIPART, ...auth }, body }, overrides);

describe('an upload still running', () => {
  it('keeps its blobs through a sweep hours later (a slow bulk upload), and answers 201 with whole files', async () => {
    const key = await newKey('slow bulk');
    const { stream, open } = gatedBody(twoFiles(), 'SECOND-FILE');
    const pending = post('/api/v2/upload/bulk', key.auth, stream);
    // The first file is in R2; its row waits for the whole body.
    await eventually(async () => (await blobKeys(key.id)).length === 1);
    expect(await rowIds(key.id)).toEqual([]);

    // The sweep, its clock well past an hour (what it once took for an orphan's age), but within
    // the grace (the longest upload, plus an hour): the blob may still belong to this upload.
    expect(GRACE_MS).toBeGreaterThan(90 * 60 * 1000);
    await sweepUntilQuiet(Date.now() + 90 * 60 * 1000);
    expect(await blobKeys(key.id)).toHaveLength(1);

    open();
    const response = await pending;
    const body = await response.json<{ data: { successful: number; results: { data: Uploaded }[] } }>();
    expect(response.status).toBe(201);
    expect(body.data.successful).toBe(2);
    const ids = body.data.results.map((item) => item.data.id);
    await expectStored(key.id, ids);
    for (const id of ids) {
      expect((await call(`/api/v2/files/${id}/download`, { headers: key.auth })).status).toBe(200);
    }
  });

  it('keeps the blob of a single upload whose form field comes slowly after the file', async () => {
    const key = await newKey('slow field');
    const body = rawMultipart([
      { headers: filePartHeaders('report.txt', 'text/plain'), content: textBytes(3_000) },
      fieldPart('expiresIn', '3600'),
    ]);
    // Waits before the field's value: the file has ended, the form has not.
    const { stream, open } = gatedBody(body, '3600');
    const pending = post('/api/v1/upload', key.auth, stream);
    await eventually(async () => (await blobKeys(key.id)).length === 1);
    await sweepUntilQuiet(Date.now() + 90 * 60 * 1000);
    open();
    const response = await pending;
    expect(response.status).toBe(201);
    const { data } = await response.json<{ data: Uploaded }>();
    await expectStored(key.id, [data.id]);
    expect((await call(`/share/${tokenOf(data.shareUrl)}/download`)).status).toBe(200);
  });

  it('records nothing once it has run longer than UPLOAD_TIMEOUT_SECONDS: 408, no blob, no row, no hold', async () => {
    const key = await newKey('too slow');
    const { stream, open } = gatedBody(twoFiles(), 'SECOND-FILE');
    const overrides = { UPLOAD_TIMEOUT_SECONDS: '1' };
    const pending = post('/api/v2/upload/bulk', key.auth, stream, overrides);
    await eventually(async () => (await blobKeys(key.id)).length === 1);
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    open();
    const response = await pending;
    await expectError(response, 408, 'REQUEST_TIMEOUT');
    await expectStored(key.id, []);
    await expectAccountSettled(key.id, 0);
  });

  it('cannot pass the quota after its hold has outlived its lifetime: the commit refuses it', async () => {
    const key = await newKey('hold expired', 100_000);
    // Past the bytes the type check reads first, so the upload holds storage while it waits.
    const body = rawMultipart([{ headers: filePartHeaders('a.txt', 'text/plain'), content: textBytes(80_000) }]);
    // Waits before the closing delimiter: the file's bytes are in, its end is not.
    const { stream, open } = gatedBody(body, `--${TEST_BOUNDARY}--`);
    const pending = post('/api/v1/upload', key.auth, stream);
    await eventually(async () => (await usage(key.id)).heldBytes > 0);

    // Its hold is dropped as a dead request's would be (its lifetime is over, on the object's clock)…
    const limiter = env.KEY_LIMITER.getByName(key.id);
    const limits = { quotaBytes: 100_000, maxFiles: 100, holdTtlMs: 0 };
    const purge = await limiter.reserve({
      keyId: key.id,
      needBytes: 0,
      needFiles: 0,
      aheadBytes: 0,
      aheadFiles: 0,
      limits,
      now: Date.now() + 1,
    });
    await limiter.release(purge.grant?.id ?? '');
    expect((await usage(key.id)).heldBytes).toBe(0);
    // …so another upload takes the room…
    const other = await uploadSizedOk(key.auth, 80_000);
    // …and the first, finishing, is refused rather than taking the key over its quota.
    open();
    await expectError(await pending, 413, 'STORAGE_EXCEEDED');
    await expectStored(key.id, [other.id]);
    await expectAccountSettled(key.id, 80_000);
  });
});

describe('a client that goes away mid-upload', () => {
  it('leaves nothing: the cleanup runs from ctx.waitUntil while the request itself is still stuck', async () => {
    const key = await newKey('gone');
    const { stream, fail } = gatedBody(twoFiles(), 'SECOND-FILE');
    const controller = new AbortController();
    const request = new Request(`${ORIGIN}/api/v2/upload/bulk`, {
      method: 'POST',
      headers: { ...MULTIPART, ...key.auth, 'CF-Connecting-IP': someAddress() },
      body: stream,
      signal: controller.signal,
    });
    const ctx = createExecutionContext();
    const background: Promise<unknown>[] = [];
    const spy = new Proxy(ctx, {
      get(target, property) {
        if (property === 'waitUntil') {
          return (promise: Promise<unknown>) => {
            background.push(promise);
            target.waitUntil(promise);
          };
        }
        const value = Reflect.get(target, property, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const pending = worker.fetch(request, env, spy);
    await eventually(async () => (await blobKeys(key.id)).length === 1);
    expect((await usage(key.id)).heldBytes).toBeGreaterThan(0);
    expect(background.length).toBeGreaterThan(0);

    // The client disconnects: the handler stays blocked reading the body, yet the work handed
    // to waitUntil removes the blob and gives the hold back.
    controller.abort();
    await Promise.all(background);
    expect(await blobKeys(key.id)).toEqual([]);
    expect((await usage(key.id)).heldBytes).toBe(0);

    // When the body finally breaks, the request ends without storing anything either.
    fail();
    expect((await pending).status).toBeGreaterThanOrEqual(400);
    await waitOnExecutionContext(ctx);
    await expectStored(key.id, []);
    await expectAccountSettled(key.id, 0);
  });

  it('hands a failed upload’s cleanup to waitUntil, so it outlives the response', async () => {
    const key = await newKey('broken body');
    const { stream, fail } = gatedBody(twoFiles(), 'SECOND-FILE');
    const ctx = createExecutionContext();
    const background: Promise<unknown>[] = [];
    const spy = new Proxy(ctx, {
      get(target, property) {
        if (property === 'waitUntil') return (promise: Promise<unknown>) => background.push(promise);
        const value = Reflect.get(target, property, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const request = new Request(`${ORIGIN}/api/v2/upload/bulk`, {
      method: 'POST',
      headers: { ...MULTIPART, ...key.auth, 'CF-Connecting-IP': someAddress() },
      body: stream,
    });
    const pending = worker.fetch(request, env, spy);
    await eventually(async () => (await blobKeys(key.id)).length === 1);
    fail();
    const response = await pending;
    await expectError(response, 400, 'VALIDATION_ERROR');
    // The cleanup went to waitUntil (this context keeps it, not the runtime's).
    expect(background.length).toBeGreaterThan(0);
    await Promise.all(background);
    await expectStored(key.id, []);
    await expectAccountSettled(key.id, 0);
  });
});
