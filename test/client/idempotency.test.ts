// The typed client's writes carry an Idempotency-Key and are retried with it: an answer lost on
// the way back (the server ran the request) and a 503 are sent again, and one file is stored.
import { describe, expect, it } from 'vitest';
import { EdgeshareClient } from '../../src/client/edgeshare';
import { blobKeys, newKey, rowIds } from '../helpers/storage';
import { call, ORIGIN } from '../helpers/worker';

/** A fetch into the Worker that loses the first `lose` answers after the server produced them. */
function lossyFetch(lose: number, seen: Request[]) {
  let lost = 0;
  return async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    seen.push(request.clone());
    const response = await call(request.url, request);
    if (lost < lose) {
      lost++;
      await response.body?.cancel();
      throw new TypeError('network connection lost');
    }
    return response;
  };
}

describe('the typed client', () => {
  it('retries an upload whose answer was lost, with the same Idempotency-Key, and one file is stored', async () => {
    const key = await newKey('client lost answer');
    const seen: Request[] = [];
    const client = new EdgeshareClient({ baseUrl: ORIGIN, apiKey: key.key, fetch: lossyFetch(1, seen) });
    const record = await client.upload(new Blob(['hello retries']), { filename: 'r.txt' });
    expect(seen).toHaveLength(2);
    const keys = seen.map((request) => request.headers.get('idempotency-key'));
    expect(keys[0]).toMatch(/^[0-9a-f-]{32,36}$/);
    expect(keys[1]).toBe(keys[0]);
    expect(await rowIds(key.id)).toEqual([record.id]);
    expect(await blobKeys(key.id)).toHaveLength(1);
  });

  it('sends a new key for each call, and retries deletes and key calls too', async () => {
    const key = await newKey('client calls');
    const seen: Request[] = [];
    const client = new EdgeshareClient({ baseUrl: ORIGIN, apiKey: key.key, fetch: lossyFetch(0, seen) });
    const a = await client.upload(new Blob(['a']), { filename: 'a.txt' });
    await client.update(a.id, { originalName: 'b.txt' });
    await client.createKey({ name: 'second' });
    await client.delete(a.id);
    const keys = seen.map((request) => request.headers.get('idempotency-key'));
    expect(keys.every((value) => value !== null)).toBe(true);
    expect(new Set(keys).size).toBe(keys.length);

    // A delete whose answer was lost: the retry gets the first 200, not a 404.
    const b = await client.upload(new Blob(['b']), { filename: 'b.txt' });
    const lossy = new EdgeshareClient({ baseUrl: ORIGIN, apiKey: key.key, fetch: lossyFetch(1, []) });
    await expect(lossy.delete(b.id)).resolves.toBeDefined();
    expect(await rowIds(key.id)).toEqual([]);
  });

  it('retries a 503 with the same key', async () => {
    const key = await newKey('client 503');
    const seen: Request[] = [];
    let failures = 1;
    const fetcher = async (input: RequestInfo | URL, init?: RequestInit) => {
      const request = new Request(input, init);
      seen.push(request.clone());
      const overrides =
        failures-- > 0
          ? { IDEMPOTENCY: { getByName: () => ({ begin: () => Promise.reject(new Error('down')) }) } }
          : {};
      return call(request.url, request, overrides);
    };
    const client = new EdgeshareClient({ baseUrl: ORIGIN, apiKey: key.key, fetch: fetcher });
    await client.upload(new Blob(['x']), { filename: 'x.txt' });
    expect(seen).toHaveLength(2);
    expect(seen[1]?.headers.get('idempotency-key')).toBe(seen[0]?.headers.get('idempotency-key'));
    expect(await rowIds(key.id)).toHaveLength(1);
  });
});
