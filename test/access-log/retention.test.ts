// What a log keeps: nothing older than ACCESS_LOG_RETENTION_DAYS (90), deleted when the log is
// written or read and by its object's alarm when nobody comes any more; at most 2,000 events, so
// always at least the most recent 1,000; distinct visitors counted among the kept events only.
import { env, runInDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { ACCESS_LOG_FLOOR, ACCESS_LOG_MAX_EVENTS, type AccessEntry } from '../../src/access-log/access-log-contract';
import { makeLink, owner, readLink } from '../helpers/links';
import { makeRequest, newOwner } from '../helpers/requests';
import { accessLog, wholeLog } from './access-helpers';

const DAY = 24 * 60 * 60 * 1000;

const entry = (at: number, visitor: string): AccessEntry => ({
  at,
  kind: 'page',
  outcome: 'served',
  status: 200,
  bytes: 0,
  range: false,
  country: null,
  asn: null,
  asOrganization: null,
  colo: null,
  client: 'browser',
  visitor,
});

const rowsIn = (stub: DurableObjectStub) =>
  runInDurableObject(
    stub,
    (_, state) => state.storage.sql.exec<{ n: number }>('SELECT COUNT(*) AS n FROM access_events').one().n,
  );

describe('retention', () => {
  it('keeps no event older than 90 days, and counts only kept events’ visitors', async () => {
    const { auth, fileId } = await owner();
    const link = await makeLink(auth, fileId);
    const stub = env.LINK_COUNTERS.getByName(link.id);
    const now = Date.now();
    await stub.appendAccess({ events: [entry(now - 91 * DAY, 'old'), entry(now - 89 * DAY, 'kept')], dropped: 0 });
    await stub.appendAccess({ events: [entry(now - 1000, 'recent')], dropped: 0 });
    const { events } = await accessLog(auth, `/links/${link.id}`);
    expect(events.map((event) => event.visitor)).toEqual(['recent', 'kept']);
    expect(await readLink(auth, link.id)).toMatchObject({
      visitors: 2,
      lastAccessAt: new Date(now - 1000).toISOString(),
    });
  });

  it('deletes what passes 90 days by the object’s alarm, with nobody visiting or reading', async () => {
    const { auth, fileId } = await owner();
    const link = await makeLink(auth, fileId);
    const stub = env.LINK_COUNTERS.getByName(link.id);
    const at = await expiresByItsAlarm(stub);
    // The last access outlives the events.
    expect((await readLink(auth, link.id)).lastAccessAt).toBe(new Date(at).toISOString());
  });

  it('does the same for a file request’s log', async () => {
    const { auth } = await newOwner();
    const request = await makeRequest(auth);
    const stub = env.FILE_REQUESTS.getByName(request.id);
    await expiresByItsAlarm(stub);
    await stub.appendAccess({ events: [entry(Date.now() - 5000, 'stays')], dropped: 0 });
    expect((await accessLog(auth, `/requests/${request.id}`)).events.map((event) => event.visitor)).toEqual(['stays']);
  });
});

/**
 * Appends one event 1.5 seconds short of 90 days old to a log's object, checks its alarm is set
 * for the event's end, then waits (no write, no read: either would delete it too) until the alarm
 * has fired on its own and the object holds no row. Returns the event's time.
 */
async function expiresByItsAlarm(
  stub: ReturnType<typeof env.LINK_COUNTERS.getByName> | ReturnType<typeof env.FILE_REQUESTS.getByName>,
): Promise<number> {
  const at = Date.now() - 90 * DAY + 1500;
  await stub.appendAccess({ events: [entry(at, 'soon gone')], dropped: 0 });
  expect(await rowsIn(stub)).toBe(1);
  expect(await runInDurableObject(stub, (_, state) => state.storage.getAlarm())).toBe(at + 90 * DAY);
  // The rows are counted in storage, not read through the log.
  let rows = 1;
  for (const deadline = Date.now() + 30_000; rows > 0 && Date.now() < deadline; ) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    rows = await rowsIn(stub);
  }
  expect(rows).toBe(0);
  return at;
}

describe('size', () => {
  it(`keeps the most recent ${ACCESS_LOG_MAX_EVENTS} events, so never fewer than the ${ACCESS_LOG_FLOOR} newest`, async () => {
    const { auth, fileId } = await owner();
    const link = await makeLink(auth, fileId);
    const stub = env.LINK_COUNTERS.getByName(link.id);
    const start = Date.now() - 60 * 60 * 1000;
    const total = ACCESS_LOG_MAX_EVENTS + 500;
    for (let batch = 0; batch < total / 100; batch++) {
      const events = Array.from({ length: 100 }, (_, i) => entry(start + batch * 100 + i, `v${batch * 100 + i}`));
      await stub.appendAccess({ events, dropped: 0 });
    }
    const kept = await wholeLog(auth, `/links/${link.id}`);
    expect(kept).toHaveLength(ACCESS_LOG_MAX_EVENTS);
    expect(kept.slice(0, ACCESS_LOG_FLOOR).map((event) => event.visitor)).toEqual(
      Array.from({ length: ACCESS_LOG_FLOOR }, (_, i) => `v${total - 1 - i}`),
    );
    expect((await readLink(auth, link.id)).visitors).toBe(ACCESS_LOG_MAX_EVENTS);
  });
});
