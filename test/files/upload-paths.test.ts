// How an upload reaches R2: a file of one part or less in one put of the whole file (measured
// locally faster than streaming its chunks into a put, and far faster to read back than a
// multipart object: docs/benchmarks.md); a larger file through R2 multipart, part by part.
import { env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { PART_SIZE } from '../../src/storage/blobs';
import { sha256Hex } from '../helpers/digests';
import { fieldPart, filePartHeaders, rawMultipart, TEST_BOUNDARY } from '../helpers/upload';
import { call, createKey } from '../helpers/worker';

function countingBucket() {
  const calls: string[] = [];
  const bucket = new Proxy(env.FILES, {
    get(target, property) {
      const value = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        calls.push(String(property));
        return Reflect.apply(value, target, args);
      };
    },
  });
  return { bucket, calls };
}

function bytesOf(size: number): Uint8Array {
  const out = new Uint8Array(size);
  for (let i = 0; i < size; i++) out[i] = 97 + (i % 26);
  return out;
}

async function uploadWith(parts: Parameters<typeof rawMultipart>[0]) {
  const { auth } = await createKey();
  const { bucket, calls } = countingBucket();
  const body = rawMultipart(parts);
  const response = await call(
    '/api/v2/upload',
    {
      method: 'POST',
      headers: {
        ...auth,
        'Content-Type': `multipart/form-data; boundary=${TEST_BOUNDARY}`,
        'Content-Length': String(body.length),
      },
      body,
    },
    { FILES: bucket },
  );
  const json = await response.json<{ data: { id: string } }>();
  expect(response.status, JSON.stringify(json)).toBe(201);
  const download = await call(`/api/v2/files/${json.data.id}/download`, { headers: auth });
  return { calls, bytes: new Uint8Array(await download.arrayBuffer()) };
}

describe('a single upload reaches R2', () => {
  it('in one put when it is one part or less', async () => {
    const content = bytesOf(1024 * 1024 + 17);
    const { calls, bytes } = await uploadWith([
      fieldPart('isPublic', 'true'),
      { headers: filePartHeaders('a.txt', 'text/plain'), content },
    ]);
    expect(calls.filter((name) => name === 'put')).toHaveLength(1);
    expect(await sha256Hex(bytes)).toBe(await sha256Hex(content));
  });

  it('in one put, intact, with form fields after the file', async () => {
    const content = bytesOf(300_000);
    const { calls, bytes } = await uploadWith([
      { headers: filePartHeaders('a.txt', 'text/plain'), content },
      fieldPart('expiresIn', '3600'),
    ]);
    expect(calls.filter((name) => name === 'put')).toHaveLength(1);
    expect(await sha256Hex(bytes)).toBe(await sha256Hex(content));
  });

  it('through R2 multipart when it is larger than one part', async () => {
    const content = bytesOf(PART_SIZE + 5);
    const { calls, bytes } = await uploadWith([{ headers: filePartHeaders('big.txt', 'text/plain'), content }]);
    expect(calls).toContain('createMultipartUpload');
    expect(calls).not.toContain('put');
    expect(await sha256Hex(bytes)).toBe(await sha256Hex(content));
  });
});
