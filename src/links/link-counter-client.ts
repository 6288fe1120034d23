// How the Worker talks to a link's LinkCounter object (src/links/link-counter-object.ts).
import { log } from '../log';
import type { LinkRow } from '../storage/links-repo';
import type { ClaimResult, CountView, WindowRequest, WindowResult } from './link-counter-contract';
import type { LinkCounter } from './link-counter-object';

export type LinkCounterNamespace = DurableObjectNamespace<LinkCounter>;

const counterOf = (namespace: LinkCounterNamespace, linkId: string) => namespace.getByName(linkId);

/** Counts one download through the link: `ok` false when the link is exhausted; `count` the link's count after it. */
export async function claimDownload(namespace: LinkCounterNamespace, link: LinkRow): Promise<ClaimResult> {
  const result = await counterOf(namespace, link.id).claim({
    linkId: link.id,
    max: link.max_downloads,
    seed: link.download_count,
  });
  return { ok: result.ok, count: result.count };
}

/** The exact count; D1's (possibly a few seconds behind) if the object cannot be reached. */
export async function countOf(namespace: LinkCounterNamespace, link: LinkRow): Promise<CountView> {
  try {
    return await counterOf(namespace, link.id).peek({ linkId: link.id, seed: link.download_count });
  } catch (error) {
    log('error', 'link counter unreachable', { linkId: link.id, error: String(error) });
    return { count: link.download_count, lastDownloadedAt: link.last_downloaded_at };
  }
}

/** True once the link has given all the downloads its cap allows (asked of its object: exact). */
export async function isExhausted(namespace: LinkCounterNamespace, link: LinkRow): Promise<boolean> {
  if (link.max_downloads === null) return false;
  const { count } = await counterOf(namespace, link.id).peek({ linkId: link.id, seed: link.download_count });
  return count >= link.max_downloads;
}

export const passwordBlocked = (namespace: LinkCounterNamespace, linkId: string, window: WindowRequest) =>
  counterOf(namespace, linkId).passwordBlocked(window) as Promise<WindowResult>;

export const passwordFailed = (namespace: LinkCounterNamespace, linkId: string, window: WindowRequest) =>
  counterOf(namespace, linkId).passwordFailed(window) as Promise<WindowResult>;
