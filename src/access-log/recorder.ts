// Recording, after the answer and bounded. Per isolate, each log (one subject: a link, a file's
// default link, a file request) has a queue of events waiting and at most one call to its object
// in flight; the call takes the whole queue (up to ACCESS_BATCH_MAX). Past MAX_WAITING events
// waiting, events are dropped and counted, and the count rides on the next call to the object
// (droppedEvents). So a link fetched thousands of times a minute costs its object a call per
// batch, and its visitors nothing: the request path only pushes onto an array.
import { log } from '../log';
import { ACCESS_BATCH_MAX, type AccessEntry, type AppendRequest } from './access-log-contract';
import { type VisitorSecretSource, visitorId } from './visitor-id';

/** What a log is, for the recorder: the object that keeps it, and the account whose secret names visitors. */
export type LogSubject = { type: 'link' | 'file' | 'request'; id: string; accountId: string };

/** An event as the route knows it: the client's address instead of the visitor id. */
export type PendingEntry = Omit<AccessEntry, 'visitor'> & { address: string };

export type RecorderDeps = {
  /** Sends a batch to the subject's object. */
  append: (subject: LogSubject, batch: AppendRequest) => Promise<void>;
  secrets: VisitorSecretSource;
  waitUntil: (promise: Promise<unknown>) => void;
};

/** Events waiting for one log in one isolate; beyond it they are dropped (and counted). */
export const MAX_WAITING = 200;
/** Logs with events waiting in one isolate; beyond it a new log's events are dropped (and logged). */
const MAX_LOGS = 10_000;

type Queue = { subject: LogSubject; waiting: PendingEntry[]; dropped: number; flushing: Promise<void> | null };
const queues = new Map<string, Queue>();
let uncounted = 0;

/** Queues one event for its log and makes sure a call will carry it; never waits, never throws. */
export function recordAccess(deps: RecorderDeps, subject: LogSubject, entry: PendingEntry): void {
  const name = `${subject.type}:${subject.id}`;
  let queue = queues.get(name);
  if (!queue) {
    if (queues.size >= MAX_LOGS) {
      // Nothing can carry the count: say so once in a while.
      if (uncounted++ % 1000 === 0) log('error', 'access events dropped: too many logs waiting', { uncounted });
      return;
    }
    queue = { subject, waiting: [], dropped: 0, flushing: null };
    queues.set(name, queue);
  }
  if (queue.waiting.length >= MAX_WAITING) queue.dropped += 1;
  else queue.waiting.push(entry);
  if (!queue.flushing) queue.flushing = flush(deps, name, queue);
  // Each request keeps the isolate's call alive for its own event (waitUntil lasts 30 s after it).
  deps.waitUntil(queue.flushing);
}

/** Calls the log's object until nothing waits: one call at a time, each carrying all it can. */
async function flush(deps: RecorderDeps, name: string, queue: Queue): Promise<void> {
  // Let the rest of this turn's events join the first call.
  await Promise.resolve();
  try {
    while (queue.waiting.length > 0 || queue.dropped > 0) {
      const taken = queue.waiting.splice(0, ACCESS_BATCH_MAX);
      const dropped = queue.dropped;
      queue.dropped = 0;
      try {
        const events = await Promise.all(
          taken.map(async ({ address, ...entry }) => ({
            ...entry,
            visitor: await visitorId(deps.secrets, queue.subject.accountId, address, entry.at),
          })),
        );
        await deps.append(queue.subject, { events, dropped });
      } catch (error) {
        // Lost events are dropped events: counted, and carried by the next call that gets through.
        queue.dropped += dropped + taken.length;
        log('error', 'access events not recorded', { log: queue.subject.type, error: String(error) });
        return;
      }
    }
  } finally {
    queue.flushing = null;
    if (queue.waiting.length === 0 && queue.dropped === 0) queues.delete(name);
  }
}

/** Lookups of whose a token is, running at once in one isolate; past it such events are dropped. */
const MAX_IDENTIFYING = 32;
let identifying = 0;

/**
 * An event whose log is not known yet (a dead link's visit, a download throttled before its
 * lookup): whose it is is asked after the answer, a bounded number at a time; a token nobody
 * owns leaves no event.
 */
export function recordUnidentified(
  deps: RecorderDeps,
  identify: () => Promise<LogSubject | undefined>,
  entry: PendingEntry,
): void {
  if (identifying >= MAX_IDENTIFYING) return;
  identifying += 1;
  const found = identify()
    .then((subject) => {
      if (subject) recordAccess(deps, subject, entry);
    })
    .catch((error: unknown) => log('error', 'access event not identified', { error: String(error) }))
    .finally(() => {
      identifying -= 1;
    });
  deps.waitUntil(found);
}
