// Recording never slows or fails a visitor's request: it runs after the answer, one call per log
// at a time per isolate; a burst past what waits is dropped and counted (droppedEvents), and a
// log object that fails loses its batch as dropped events, never the visitor's download.
import { createExecutionContext, env, waitOnExecutionContext } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { MAX_WAITING } from '../../src/access-log/recorder';
import worker from '../../src/index';
import { makeLink, owner, pathOf, readLink } from '../helpers/links';
import { ORIGIN, someAddress, type TestEnv } from '../helpers/worker';
import { accessLog, visit } from './access-helpers';

/** The link counters, with `appendAccess` held (or failed) by the test: a thin wrapper, the real objects behind it. */
function heldCounters(hold: (call: () => Promise<void>) => Promise<void>) {
  const inner = env.LINK_COUNTERS;
  return new Proxy(inner, {
    get(object, property) {
      const value = Reflect.get(object, property, object);
      if (property !== 'getByName' || typeof value !== 'function') {
        return typeof value === 'function' ? value.bind(object) : value;
      }
      return (name: string) => {
        const stub = inner.getByName(name);
        return new Proxy(stub, {
          get(target, member) {
            const found = Reflect.get(target, member);
            if (member !== 'appendAccess' || typeof found !== 'function') return found;
            return (...args: unknown[]) => hold(() => Reflect.apply(found, target, args));
          },
        });
      };
    },
  });
}

describe('recording under load', () => {
  it('answers every download while the log’s object is stuck, then drops and counts what did not fit', async () => {
    const { auth, fileId } = await owner({ content: 'burst' });
    const link = await makeLink(auth, fileId);
    let open: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const counters = heldCounters(async (call) => {
      await gate;
      await call();
    });
    const visits = MAX_WAITING + 60;
    const contexts: ExecutionContext[] = [];
    const download = async () => {
      const ctx = createExecutionContext();
      contexts.push(ctx);
      const request = new Request(`${ORIGIN}${pathOf(link)}/download`, {
        headers: { 'CF-Connecting-IP': someAddress() },
      });
      const response = await worker.fetch(request, { ...env, LINK_COUNTERS: counters } as TestEnv, ctx);
      // Answered, and read to the end, while no event has reached the log.
      expect(response.status).toBe(200);
      expect(await response.text()).toBe('burst');
    };
    for (let sent = 0; sent < visits; sent += 20) await Promise.all(Array.from({ length: 20 }, download));
    open();
    for (const ctx of contexts) await waitOnExecutionContext(ctx);

    const log = await accessLog(auth, `/links/${link.id}`, '?limit=100');
    const record = await readLink(auth, link.id);
    expect(log.droppedEvents).toBeGreaterThan(0);
    expect(record.droppedEvents).toBe(log.droppedEvents);
    // Every visit is either kept or counted.
    let kept = log.events.length;
    let cursor = log.nextCursor;
    while (cursor) {
      const page = await accessLog(auth, `/links/${link.id}`, `?limit=100&cursor=${encodeURIComponent(cursor)}`);
      kept += page.events.length;
      cursor = page.nextCursor;
    }
    expect(kept + log.droppedEvents).toBe(visits);
    expect(kept).toBeLessThanOrEqual(MAX_WAITING + 1);
    expect(record.downloadCount).toBe(visits);
  });

  it('loses a failed batch as dropped events, carried by the next call, and still serves the visitor', async () => {
    const { auth, fileId } = await owner({ content: 'fault' });
    const link = await makeLink(auth, fileId);
    let fail = true;
    const counters = heldCounters(async (call) => {
      if (fail) {
        fail = false;
        throw new Error('injected: the log object is unreachable');
      }
      await call();
    });
    const first = await visit(`${pathOf(link)}/download`, {}, { LINK_COUNTERS: counters });
    expect(first.response.status).toBe(200);
    expect(new TextDecoder().decode(first.body)).toBe('fault');
    expect((await visit(`${pathOf(link)}/download`, {}, { LINK_COUNTERS: counters })).response.status).toBe(200);
    const log = await accessLog(auth, `/links/${link.id}`);
    expect(log.events).toHaveLength(1);
    expect(log.droppedEvents).toBe(1);
  });
});
