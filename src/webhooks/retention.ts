// Recent deliveries stay bounded: the scheduled run removes old ones and gives up lost ones.
import { pruneDeliveries } from '../storage/webhooks-repo';
import { isoNow } from '../time';

/** Deliveries (and their events) are kept 7 days: the retry window (about 38 h) and then some. */
export const DELIVERY_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;
/** A delivery still pending this long after its last change lost its queue message: failed. */
const DELIVERY_STALE_MS = 3 * 24 * 60 * 60 * 1000;
/** Rows removed per run (every 10 minutes): far more than deliveries are made meanwhile. */
const PRUNE_LIMIT = 1000;

export function pruneWebhookDeliveries(db: D1Database, now = Date.now()) {
  return pruneDeliveries(db, {
    before: isoNow(now - DELIVERY_RETENTION_MS),
    staleBefore: isoNow(now - DELIVERY_STALE_MS),
    now: isoNow(now),
    limit: PRUNE_LIMIT,
  });
}
