// Where visits reach the access log. openForVisitor tells deps.record how a visit ended; the
// visitor routers' recordVisits() middleware waits for the route's final answer (its status,
// and for a download its body, counted as the client takes it), adds what the request says of
// the client (the `cf` object, the kind of User-Agent, the address the visitor id is made
// from), and queues the event (src/access-log/recorder.ts). Nothing here is awaited by the
// answer: recording happens after it, in waitUntil, bounded. A new door needs nothing more
// than being served by a router that uses recordVisits(), told which objects keep its logs.
import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import type { AccessOutcome } from '../access-log/access-log-contract';
import { type PendingEntry, type RecorderDeps, recordAccess, recordUnidentified } from '../access-log/recorder';
import { VISITOR_PERIOD_MS } from '../access-log/visitor-id';
import { visitorSecret } from '../accounts/account-storage-client';
import type { AppEnv } from '../env';
import { meteredStream, onMeteredEnd } from '../lib/metered-stream';
import { clientKind } from '../lib/user-agent';
import { clientAddress } from '../limiter/auth-guard-client';
import type { VisitEvent, VisitKind } from '../visitors/service';

/** How each request's visit ended, until its answer is final (one visit per request). */
const visits = new WeakMap<Request, VisitEvent & { received?: number }>();

/** deps.record of openForVisitor: the event waits for the route's answer. */
export const noteVisit = (request: Request) => (event: VisitEvent) => {
  visits.set(request, event);
};

/** The bytes an upload route received (the files' own bytes), for its visit's event. */
export function noteReceived(c: Context<AppEnv>, bytes: number): void {
  const event = visits.get(c.req.raw);
  if (event) event.received = bytes;
}

/**
 * What an uncapped download's bytes are counted by: the body is pumped this much at a time, so
 * counting costs next to nothing per byte, and a download cut short is counted up to this low.
 */
const COUNTED_PIECE = 256 * 1024;

/** Kinds whose answer carries the shared content: their bytes are counted as they go out. */
const CARRIES_CONTENT = new Set<VisitKind>(['download', 'preview', 'archive']);

/**
 * The outcome the log shows. A refusal stays what it was; a visit that was let in is judged by
 * the route's final answer (an upload let in may still be refused: a full request is gone). An
 * answer that is none of these (a bad range, an upload refused for its size, a server error)
 * is not an event.
 */
function finalOutcome(event: VisitEvent, status: number): AccessOutcome | null {
  if (event.outcome === 'failed') return null;
  if (event.outcome !== 'served' && event.outcome !== 'partial' && event.outcome !== 'not-modified') {
    return event.outcome;
  }
  if (status === 206) return 'partial';
  if (status === 304) return 'not-modified';
  if (status < 400) return 'served';
  if (status === 429) return 'throttled';
  if (status === 404 || status === 410) return 'refused-gone';
  return null;
}

/** tus answers say where the upload stands: what this request added to it. */
function tusReceived(c: Context<AppEnv>): number {
  const after = Number(c.res.headers.get('upload-offset') ?? Number.NaN);
  if (!Number.isSafeInteger(after)) return 0;
  if (c.req.method === 'POST') return after;
  const before = Number(c.req.header('upload-offset') ?? Number.NaN);
  return c.req.method === 'PATCH' && Number.isSafeInteger(before) ? Math.max(0, after - before) : 0;
}

const text = (value: unknown, max: number) => (typeof value === 'string' && value !== '' ? value.slice(0, max) : null);

/** What the request says of its client: the `cf` object's place and network (null where none), the kind of client. */
function clientFacts(c: Context<AppEnv>) {
  const cf = c.req.raw.cf as Record<string, unknown> | undefined;
  const asn = cf?.asn;
  return {
    country: text(cf?.country, 8),
    asn: typeof asn === 'number' && Number.isSafeInteger(asn) ? asn : null,
    asOrganization: text(cf?.asOrganization, 200),
    colo: text(cf?.colo, 8),
    client: clientKind(c.req.header('user-agent')),
  };
}

/** Where a router's visits are logged: the objects of its subjects (links' counters, requests' counters). */
export type LogAppender = (env: Env) => RecorderDeps['append'];

const recorderDeps = (c: Context<AppEnv>, appender: LogAppender): RecorderDeps => ({
  append: appender(c.env),
  secrets: (accountId, now) => visitorSecret(c.env.ACCOUNT_STORAGE, accountId, VISITOR_PERIOD_MS, now),
  waitUntil: (promise) => c.executionCtx.waitUntil(promise),
});

/**
 * Records the visit of each request it wraps, once the route has answered, in the logs `appender`
 * reaches. ACCESS_LOG=off records nothing (and wraps no body).
 */
export const recordVisits = (appender: LogAppender) =>
  createMiddleware<AppEnv>(async function recordVisits(c, next) {
    await next();
    const event = visits.get(c.req.raw);
    if (!event || c.get('config')?.ACCESS_LOG !== 'on') return;
    const status = c.res.status;
    const outcome = finalOutcome(event, status);
    if (outcome === null) return;
    const deps = recorderDeps(c, appender);
    const base = {
      at: Date.now(),
      kind: event.kind,
      outcome,
      status,
      range: c.req.header('range') !== undefined,
      ...clientFacts(c),
      address: clientAddress(c.req.raw.headers),
    };
    const record = (bytes: number) => {
      const entry: PendingEntry = { ...base, bytes };
      if (event.subject) recordAccess(deps, event.subject, entry);
      else if (event.identify) recordUnidentified(deps, event.identify, entry);
    };
    const body = c.res.body;
    if (CARRIES_CONTENT.has(event.kind) && body && (status === 200 || status === 206)) {
      // A capped link's answer is metered already (its budget): its meter tells the end too.
      if (onMeteredEnd(body, record)) return;
      const length = Number(c.res.headers.get('content-length') ?? Number.NaN);
      const counted = meteredStream(body, Number.isSafeInteger(length) ? length : null, {
        onEnd: record,
        waitUntil: deps.waitUntil,
        signal: c.req.raw.signal,
        readBytes: COUNTED_PIECE,
      });
      c.res = new Response(counted, c.res);
      return;
    }
    record(event.kind === 'upload' ? (event.received ?? tusReceived(c)) : 0);
  });
