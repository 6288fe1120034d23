// Serving a shared file once the visitor may have it (src/links/access.ts decides that): through
// a made link, within its cap and counting its downloads, or through the file's default link.
import { type EventSink, emitEvents, type NewEvent } from '../events/emit';
import { bytesCarried, countsAsDownload, planDownload, servedFile, serveFile } from '../files/download';
import { fileEventData } from '../files/records';
import type { FileRow } from '../storage/files-repo';
import type { LinkRow, SharedByLink } from '../storage/links-repo';
import { EXHAUSTED, GONE, type Refusal } from '../visitors/service';
import {
  countDefaultLinkDownload,
  giveBackBytes,
  type LinkCounterNamespace,
  meteredForBudget,
  reserveBytes,
} from './link-counter-client';
import type { ReserveResult } from './link-counter-contract';

export type ServeDeps = {
  bucket: R2Bucket;
  db: D1Database;
  counters: LinkCounterNamespace;
  /** Where a counted download's events go (file.downloaded, link.exhausted). */
  events: EventSink;
  /** Keeps work alive past the answer (giving back what a broken-off download did not send). */
  waitUntil: (promise: Promise<unknown>) => void;
};

/** The file, through its default link or a made one (`view`: the page's preview, never counted). */
export const serveShared = (
  deps: ServeDeps,
  request: Request,
  shared: { file: FileRow; link: LinkRow | null; header?: string | null },
  view: boolean,
) =>
  shared.link
    ? serveThroughLink(deps, request, { link: shared.link, file: shared.file, header: shared.header ?? null }, view)
    : serveDefaultLink(deps, request, shared.file, view);

/**
 * Serves the file through a live link the visitor may open. Every answer that carries bytes
 * (whole, any range, the preview) reserves them from the link's budget first (a cap of N is N ×
 * the file's size), atomically in the link's counter object: one that would pass the budget is
 * refused like an exhausted link (404). What a broken-off answer did not send is given back, so a broken
 * download can still be resumed within the cap. A download (`view` false) of the whole file (a
 * GET answered 200, or 206 from byte 0 to the end) is also counted and is a `file.downloaded` event; the
 * reservation that spends the budget, and only it, is `link.exhausted`.
 */
export async function serveThroughLink(
  deps: ServeDeps,
  request: Request,
  shared: SharedByLink,
  view: boolean,
): Promise<Response | Refusal> {
  const { link } = shared;
  // An encrypted file is this link's header and the payload: its size is what the budget counts.
  const file = await servedFile(shared.file, shared.header);
  if (!file) return GONE;
  const plan = planDownload(request.headers, file);
  const counts = !view && request.method === 'GET' && countsAsDownload(plan, file.size);
  const capped = link.max_downloads !== null;
  if (!capped && !counts) return serveFile(deps, file, plan, request.method);
  const bytes = bytesCarried(plan, file.size, request.method);
  const reserved = await reserveBytes(deps.counters, link, file.size, bytes, counts);
  if (!reserved.ok) return EXHAUSTED;
  let response: Response;
  try {
    response = await serveFile(deps, file, plan, request.method);
  } catch (error) {
    deps.waitUntil(giveBackBytes(deps.counters, link.id, bytes));
    throw error;
  }
  emitEvents(deps.events, downloadEvents(shared, reserved, counts));
  if (!capped || bytes === 0 || !response.body) return response;
  const body = meteredForBudget(deps.counters, link.id, response.body, bytes, {
    signal: request.signal,
    waitUntil: deps.waitUntil,
  });
  return new Response(body, { status: response.status, headers: response.headers });
}

/** The events of one answer through a made link: a counted download, and the one that spent the cap. */
function downloadEvents({ link, file }: SharedByLink, reserved: ReserveResult, counted: boolean): NewEvent[] {
  const events: NewEvent[] = [];
  if (counted) {
    events.push({
      accountId: link.account_id,
      type: 'file.downloaded',
      data: { file: fileEventData(file), via: 'link', linkId: link.id },
    });
  }
  if (reserved.exhausted) {
    events.push({ accountId: link.account_id, type: 'link.exhausted', data: { linkId: link.id, fileId: file.id } });
  }
  return events;
}

/**
 * Serves a file through its default link (its share token; no cap): a whole download is
 * counted in a counter object named after the file, which adds it to the file's row a few
 * seconds later, so a busy file costs D1 one read per download and one write per few seconds.
 */
export async function serveDefaultLink(
  deps: ServeDeps,
  request: Request,
  row: FileRow,
  view: boolean,
): Promise<Response | Refusal> {
  // An encrypted file is the owner's header and the payload.
  const served = await servedFile(row, row.e2e_header);
  if (!served) return GONE;
  const plan = planDownload(request.headers, served);
  const counts = !view && request.method === 'GET' && countsAsDownload(plan, served.size);
  if (counts) await countDefaultLinkDownload(deps.counters, row.id);
  const response = await serveFile(deps, served, plan, request.method);
  if (counts) {
    const file = fileEventData({ ...row, download_count: row.download_count + 1 });
    emitEvents(deps.events, [{ accountId: row.account_id, type: 'file.downloaded', data: { file, via: 'share' } }]);
  }
  return response;
}
