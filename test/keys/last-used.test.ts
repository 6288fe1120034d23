// lastUsedAt: the key's object notes every use and writes it to D1 from an alarm, at most once a
// minute per key, never once per request.
import { env, runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../src/lib/crypto';
import { call, createKey } from '../helpers/worker';

const lastUsed = async (id: string) =>
  (
    await env.DB.prepare('SELECT last_used_at FROM api_keys WHERE id = ?1')
      .bind(id)
      .first<{ last_used_at: string | null }>()
  )?.last_used_at ?? null;

async function use(auth: Record<string, string>, times: number): Promise<number> {
  let last = 0;
  for (let i = 0; i < times; i++) {
    last = Date.now();
    const response = await call('/api/v1/files', { headers: auth });
    expect(response.status).toBe(200);
    await response.arrayBuffer();
  }
  return last;
}

describe('lastUsedAt', () => {
  it('reaches D1 from the key’s alarm, not from requests: at most one write a minute', async () => {
    const { id, auth } = await createKey('used');
    expect(await lastUsed(id)).toBeNull();
    const stub = env.KEY_LIMITER.getByName(id);

    // The first use is written soon (its alarm is due at once); run it rather than wait for it.
    const first = await use(auth, 3);
    await runDurableObjectAlarm(stub);
    const written = await lastUsed(id);
    expect(Date.parse(written ?? '')).toBeGreaterThanOrEqual(first);

    // More requests within the minute change nothing in D1…
    const later = await use(auth, 10);
    expect(await lastUsed(id)).toBe(written);
    // …until the next write, due a minute after the last one, carries the latest use.
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    const rewritten = await lastUsed(id);
    expect(Date.parse(rewritten ?? '')).toBeGreaterThanOrEqual(later);
    expect(rewritten).not.toBe(written);

    // The keys API shows it.
    const list = await call('/api/v2/keys', { headers: auth });
    const keys = ((await list.json()) as { data: { keys: { id: string; lastUsedAt: string | null }[] } }).data.keys;
    expect(keys.find((key) => key.id === id)?.lastUsedAt).toBe(rewritten);
  });

  it('keeps a use noted while the alarm writes to D1, and writes it a minute later', async () => {
    const { id, key, auth } = await createKey('used meanwhile');
    const stub = env.KEY_LIMITER.getByName(id);
    await use(auth, 1);
    const keyHash = await sha256Hex(key);
    const meanwhile = await runInDurableObject(stub, async (limiter, state) => {
      await state.storage.deleteAlarm();
      const before = state.storage.kv.get<{ at: number; written: number }>('lastUsed');
      if (!before) throw new Error('no use noted');
      // The alarm awaits D1; the use below (no I/O: the key's state is fresh) lands during that write.
      const writing = limiter.alarm();
      const at = before.at + 1;
      const result = await limiter.authorize({
        keyId: id,
        keyHash,
        defaults: {
          rateLimitRequests: 100,
          rateLimitWindowSeconds: 60,
          storageQuotaBytes: 1,
          maxFiles: 1,
          holdTtlMs: 1,
        },
        scope: null,
        now: at,
      });
      expect(result.admission?.allowed).toBe(true);
      await writing;
      expect(state.storage.kv.get('lastUsed')).toEqual({ at, written: before.at });
      expect(await state.storage.getAlarm()).toBe(before.at + 60_000);
      return at;
    });
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect(Date.parse((await lastUsed(id)) ?? '')).toBe(meanwhile);
  });
});
