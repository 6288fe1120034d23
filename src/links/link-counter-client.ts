// How the Worker talks to a link's LinkCounter object (src/links/link-counter-object.ts).

import type { AccessPage, AppendRequest, PageRequest } from '../access-log/access-log-contract';
import { meteredStream } from '../lib/metered-stream';
import { log } from '../log';
import type { LinkRow } from '../storage/links-repo';
import {
  type CountView,
  isSpent,
  type ReserveResult,
  remainingBytes,
  type WindowRequest,
  type WindowResult,
} from './link-counter-contract';
import type { LinkCounter } from './link-counter-object';

export type LinkCounterNamespace = DurableObjectNamespace<LinkCounter>;

const counterOf = (namespace: LinkCounterNamespace, linkId: string) => namespace.getByName(linkId);
/** A file's default link has no id of its own: its counter is named after the file. */
const defaultLinkCounter = (namespace: LinkCounterNamespace, fileId: string) => namespace.getByName(`file:${fileId}`);

/**
 * Reserves `bytes` of the link's budget for one response (`counts`: a whole download, 200 or 206 from byte 0 to the end).
 * `ok` false: the response would pass the cap, so the link answers as exhausted.
 */
export async function reserveBytes(
  namespace: LinkCounterNamespace,
  link: LinkRow,
  size: number,
  bytes: number,
  counts: boolean,
): Promise<ReserveResult> {
  const result = await counterOf(namespace, link.id).reserve({
    linkId: link.id,
    max: link.max_downloads,
    size,
    bytes,
    counts,
    seed: link.download_count,
  });
  return { ok: result.ok, count: result.count, exhausted: result.exhausted };
}

/** Gives back what a response reserved and did not send. A failure is logged (the cap only errs tight). */
export async function giveBackBytes(namespace: LinkCounterNamespace, linkId: string, bytes: number): Promise<void> {
  if (bytes <= 0) return;
  await counterOf(namespace, linkId)
    .giveBack({ linkId, bytes })
    .catch((error: unknown) => log('error', 'link budget not given back', { linkId, bytes, error: String(error) }));
}

/**
 * How a capped link's answer is metered: the body is pumped this much at a time (the runtime's
 * own chunks are 4 KiB, and a write per chunk doubled a download's CPU), and a body cut short is
 * counted up to this low, so at most this much more of the budget goes back than was unsent.
 */
const BUDGET_PIECE = 64 * 1024;

/**
 * A capped link's answer `body` of `bytes` (reserved with reserveBytes), metered: what the client
 * never took goes back to the link's budget after the answer (giveBackBytes, in waitUntil).
 */
export function meteredForBudget(
  namespace: LinkCounterNamespace,
  linkId: string,
  body: ReadableStream<Uint8Array>,
  bytes: number,
  request: { signal: AbortSignal; waitUntil: (promise: Promise<unknown>) => void },
): ReadableStream<Uint8Array> {
  return meteredStream(body, bytes, {
    onShort: (unsent) => giveBackBytes(namespace, linkId, unsent),
    waitUntil: request.waitUntil,
    signal: request.signal,
    readBytes: BUDGET_PIECE,
  });
}

/**
 * The exact count and budget, `size` being the length of what the link shares now (a file's
 * size, a collection's archive's length). If the object cannot be reached: D1's count (possibly
 * a few seconds behind), and a budget as if every byte served had been a counted download.
 */
export async function countOf(namespace: LinkCounterNamespace, link: LinkRow, size: number): Promise<CountView> {
  try {
    const view = await counterOf(namespace, link.id).peek({
      linkId: link.id,
      seed: link.download_count,
      max: link.max_downloads,
      size,
    });
    return {
      count: view.count,
      lastDownloadedAt: view.lastDownloadedAt,
      exhausted: view.exhausted,
      remaining: view.remaining,
      access: view.access,
    };
  } catch (error) {
    log('error', 'link counter unreachable', { linkId: link.id, error: String(error) });
    const spent = { count: link.download_count, served: link.download_count * size };
    return {
      count: link.download_count,
      lastDownloadedAt: link.last_downloaded_at,
      exhausted: isSpent(spent, link.max_downloads, size),
      remaining: remainingBytes(spent, link.max_downloads, size),
      access: { lastAccessAt: null, visitors: 0, droppedEvents: 0 },
    };
  }
}

/**
 * True once the link's budget is spent (asked of its object: exact). `size`: the length of what
 * it shares now (a file's size, a collection's archive's length).
 */
export async function isExhausted(namespace: LinkCounterNamespace, link: LinkRow, size: number): Promise<boolean> {
  if (link.max_downloads === null) return false;
  return (await countOf(namespace, link, size)).exhausted;
}

/** Counts one download through a file's default link; D1 hears of it from the object's alarm. */
export const countDefaultLinkDownload = (namespace: LinkCounterNamespace, fileId: string) =>
  defaultLinkCounter(namespace, fileId).countFileDownload({ fileId });

export const passwordBlocked = (namespace: LinkCounterNamespace, linkId: string, window: WindowRequest) =>
  counterOf(namespace, linkId).passwordBlocked(window) as Promise<WindowResult>;

export const passwordFailed = (namespace: LinkCounterNamespace, linkId: string, window: WindowRequest) =>
  counterOf(namespace, linkId).passwordFailed(window) as Promise<WindowResult>;

/** The object that keeps a log: a made link's own, or a file's default link's (`file:<fileId>`). */
const logObject = (namespace: LinkCounterNamespace, log: { type: 'link' | 'file'; id: string }) =>
  log.type === 'link' ? counterOf(namespace, log.id) : defaultLinkCounter(namespace, log.id);

/** Where share visits are logged (recordVisits, src/http/visit-log.ts): a made link's object, or a default link's. */
export const linkLogs =
  (env: { LINK_COUNTERS: LinkCounterNamespace }) =>
  async (log: { type: string; id: string }, batch: AppendRequest): Promise<void> => {
    if (log.type !== 'link' && log.type !== 'file') throw new Error(`no link log of a ${log.type}`);
    await logObject(env.LINK_COUNTERS, { type: log.type, id: log.id }).appendAccess(batch);
  };

/** A page of a link's log (or a default link's), newest first. */
export const linkAccessPage = (
  namespace: LinkCounterNamespace,
  log: { type: 'link' | 'file'; id: string },
  request: PageRequest,
): Promise<AccessPage> => logObject(namespace, log).accessPage(request);
