// What a handler hands a service: the request's origins, its account, events and storage (timed on v2).
import type { Context } from 'hono';
import type { AppEnv, Origins } from '../env';
import { type EventSink, eventSink } from '../events/emit';
import { timed } from '../lib/timing';
import type { ScanQueue } from '../scanning/scan-queue';

// A request URL's scheme and authority (everything before the path) → its origin. A deployment
// sees a handful of them, so each is parsed once; bounded all the same.
const originsSeen = new Map<string, string>();
const MAX_ORIGINS_SEEN = 64;

/** The origin of an absolute URL (as `new URL(url).origin`), without parsing the whole URL each time. */
export function originOf(url: string): string {
  const pathStart = url.indexOf('/', url.indexOf('//') + 2);
  const authority = pathStart === -1 ? url : url.slice(0, pathStart);
  let origin = originsSeen.get(authority);
  if (origin === undefined) {
    origin = new URL(authority).origin;
    if (originsSeen.size >= MAX_ORIGINS_SEEN) originsSeen.clear();
    originsSeen.set(authority, origin);
  }
  return origin;
}

export function origins(c: Context<AppEnv>): Origins {
  const config = c.get('config');
  if (config.PUBLIC_BASE_URL !== undefined && config.SITE_URL !== undefined) {
    return { api: config.PUBLIC_BASE_URL, site: config.SITE_URL };
  }
  const requestOrigin = originOf(c.req.url);
  return { api: config.PUBLIC_BASE_URL ?? requestOrigin, site: config.SITE_URL ?? requestOrigin };
}

/** The account that owns what the request reads and makes (a key's account outlives its rotation). */
export const accountId = (c: Context<AppEnv>): string => c.get('apiKey').accountId;

/** Where the request's events go (webhooks): the events queue, sent in the request's waitUntil. */
export const events = (c: Context<AppEnv>): EventSink =>
  // The execution context is read only when an event is emitted (app.request() in tests has none).
  eventSink(c.env, { waitUntil: (promise) => c.executionCtx.waitUntil(promise) });

/** What services get to store and read with: R2, D1, the key and account objects, the events sink, the scan queue. */
export type StorageDeps = {
  bucket: R2Bucket;
  db: D1Database;
  limiter: Env['KEY_LIMITER'];
  accounts: Env['ACCOUNT_STORAGE'];
  events: EventSink;
  scans: ScanQueue;
};

/** R2, D1 and the key limiters for the request; on v2 every storage call is timed for Server-Timing. */
export function storage(c: Context<AppEnv>): StorageDeps {
  const timings = c.get('timings');
  const limiter = c.env.KEY_LIMITER;
  const accounts = c.env.ACCOUNT_STORAGE;
  const scans = c.env.SCANS as ScanQueue;
  if (!timings) return { bucket: c.env.FILES, db: c.env.DB, limiter, accounts, events: events(c), scans };
  return {
    bucket: timed(c.env.FILES, 'r2', timings),
    db: timed(c.env.DB, 'd1', timings),
    limiter,
    accounts,
    events: events(c),
    scans,
  };
}
