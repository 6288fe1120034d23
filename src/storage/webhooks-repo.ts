// D1 access for webhooks, their events and deliveries. No HTTP here.
import { placeholders } from './files-repo';

export type WebhookRow = {
  id: string;
  account_id: string;
  url: string;
  events: string;
  secret: string;
  created_at: string;
  updated_at: string;
};

export type DeliveryRow = {
  id: string;
  webhook_id: string;
  event_id: string;
  type: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
  next_attempt_at: string | null;
};

const WEBHOOK_COLUMNS = 'id, account_id, url, events, secret, created_at, updated_at';
const DELIVERY_COLUMNS =
  'id, webhook_id, event_id, type, status, attempts, last_status_code, last_error, created_at, updated_at, next_attempt_at';

export async function insertWebhook(db: D1Database, row: WebhookRow): Promise<void> {
  await db
    .prepare(`INSERT INTO webhooks (${WEBHOOK_COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)`)
    .bind(row.id, row.account_id, row.url, row.events, row.secret, row.created_at, row.updated_at)
    .run();
}

export async function countWebhooks(db: D1Database, accountId: string): Promise<number> {
  const row = await db
    .prepare('SELECT COUNT(*) AS n FROM webhooks WHERE account_id = ?1')
    .bind(accountId)
    .first<{ n: number }>();
  return row?.n ?? 0;
}

export async function listWebhooks(db: D1Database, accountId: string): Promise<WebhookRow[]> {
  const { results } = await db
    .prepare(`SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE account_id = ?1 ORDER BY created_at DESC, id DESC`)
    .bind(accountId)
    .all<WebhookRow>();
  return results;
}

export function findWebhook(db: D1Database, id: string, accountId: string) {
  return db
    .prepare(`SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE id = ?1 AND account_id = ?2`)
    .bind(id, accountId)
    .first<WebhookRow>();
}

export function updateWebhook(
  db: D1Database,
  id: string,
  accountId: string,
  changes: { url?: string; events?: string },
  now: string,
) {
  return db
    .prepare(
      `UPDATE webhooks SET url = COALESCE(?3, url), events = COALESCE(?4, events), updated_at = ?5
       WHERE id = ?1 AND account_id = ?2 RETURNING ${WEBHOOK_COLUMNS}`,
    )
    .bind(id, accountId, changes.url ?? null, changes.events ?? null, now)
    .first<WebhookRow>();
}

/** Deletes the webhook and its deliveries (one transaction); false when the account has no such webhook. */
export async function deleteWebhook(db: D1Database, id: string, accountId: string): Promise<boolean> {
  const [gone] = await db.batch([
    db.prepare('DELETE FROM webhooks WHERE id = ?1 AND account_id = ?2 RETURNING id').bind(id, accountId),
    db
      .prepare(
        'DELETE FROM webhook_deliveries WHERE webhook_id = ?1 AND NOT EXISTS (SELECT 1 FROM webhooks WHERE id = ?1)',
      )
      .bind(id),
  ]);
  return (gone?.results.length ?? 0) > 0;
}

/** The webhooks of these accounts (an events message holds a few): id, account and subscribed types. */
export async function webhooksOfAccounts(
  db: D1Database,
  accountIds: string[],
): Promise<Pick<WebhookRow, 'id' | 'account_id' | 'events'>[]> {
  const rows: Pick<WebhookRow, 'id' | 'account_id' | 'events'>[] = [];
  for (let start = 0; start < accountIds.length; start += 100) {
    const ids = accountIds.slice(start, start + 100);
    const { results } = await db
      .prepare(`SELECT id, account_id, events FROM webhooks WHERE account_id IN (${placeholders(ids.length)})`)
      .bind(...ids)
      .all<Pick<WebhookRow, 'id' | 'account_id' | 'events'>>();
    rows.push(...results);
  }
  return rows;
}

export type NewEventRow = { id: string; account_id: string; type: string; payload: string; created_at: string };
export type NewDeliveryRow = { id: string; webhook_id: string; event_id: string; type: string; created_at: string };

/**
 * Records events and their deliveries in one transaction. A redelivered events message
 * records nothing twice (the event id, and one delivery per webhook and event).
 */
export async function insertEventsAndDeliveries(
  db: D1Database,
  events: NewEventRow[],
  deliveries: NewDeliveryRow[],
): Promise<void> {
  const insertEvent = db.prepare(
    'INSERT OR IGNORE INTO webhook_events (id, account_id, type, payload, created_at) VALUES (?1, ?2, ?3, ?4, ?5)',
  );
  const insertDelivery = db.prepare(
    `INSERT OR IGNORE INTO webhook_deliveries (id, webhook_id, event_id, type, status, attempts, created_at, updated_at)
     VALUES (?1, ?2, ?3, ?4, 'pending', 0, ?5, ?5)`,
  );
  await db.batch([
    ...events.map((e) => insertEvent.bind(e.id, e.account_id, e.type, e.payload, e.created_at)),
    ...deliveries.map((d) => insertDelivery.bind(d.id, d.webhook_id, d.event_id, d.type, d.created_at)),
  ]);
}

/** Deliveries of these events never attempted yet: the ones to put on the queue. */
export async function unattemptedDeliveries(db: D1Database, eventIds: string[]): Promise<string[]> {
  const ids: string[] = [];
  for (let start = 0; start < eventIds.length; start += 100) {
    const chunk = eventIds.slice(start, start + 100);
    const { results } = await db
      .prepare(
        `SELECT id FROM webhook_deliveries WHERE event_id IN (${placeholders(chunk.length)}) AND status = 'pending' AND attempts = 0`,
      )
      .bind(...chunk)
      .all<{ id: string }>();
    ids.push(...results.map((row) => row.id));
  }
  return ids;
}

export type DeliveryJob = DeliveryRow & { url: string; secret: string; payload: string };

/** A delivery with what sending it needs (the webhook's URL and secret, the event's body). */
export function findDeliveryJob(db: D1Database, id: string) {
  return db
    .prepare(
      `SELECT d.id, d.webhook_id, d.event_id, d.type, d.status, d.attempts, d.last_status_code, d.last_error,
              d.created_at, d.updated_at, d.next_attempt_at, w.url, w.secret, e.payload
       FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id JOIN webhook_events e ON e.id = d.event_id
       WHERE d.id = ?1`,
    )
    .bind(id)
    .first<DeliveryJob>();
}

/** Records one attempt's outcome: delivered, failed for good, or still pending with its next attempt's time. */
export async function recordAttempt(
  db: D1Database,
  id: string,
  outcome: {
    /** Where the attempt leaves the delivery; undefined: as it is (pending, to be retried). */
    settled: 'delivered' | 'failed' | undefined;
    statusCode: number | null;
    error: string | null;
    nextAttemptAt: string | null;
  },
  now: string,
): Promise<void> {
  await db
    .prepare(
      `UPDATE webhook_deliveries SET attempts = attempts + 1, status = COALESCE(?2, status),
         last_status_code = ?3, last_error = ?4, next_attempt_at = ?5, updated_at = ?6
       WHERE id = ?1`,
    )
    .bind(id, outcome.settled ?? null, outcome.statusCode, outcome.error, outcome.nextAttemptAt, now)
    .run();
}

/** Gives up on deliveries still pending (their retries are used up). */
export async function markFailed(db: D1Database, ids: string[], now: string): Promise<void> {
  for (let start = 0; start < ids.length; start += 99) {
    const chunk = ids.slice(start, start + 99);
    await db
      .prepare(
        `UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL, updated_at = ?1
         WHERE status = 'pending' AND id IN (${placeholders(chunk.length, 2)})`,
      )
      .bind(now, ...chunk)
      .run();
  }
}

export async function listDeliveries(db: D1Database, webhookId: string, limit: number): Promise<DeliveryRow[]> {
  const { results } = await db
    .prepare(
      `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE webhook_id = ?1 ORDER BY created_at DESC, id DESC LIMIT ?2`,
    )
    .bind(webhookId, limit)
    .all<DeliveryRow>();
  return results;
}

/** Puts a delivery of the account's webhook back to pending for a resend; null when there is none. */
export function resetDelivery(db: D1Database, webhookId: string, deliveryId: string, accountId: string, now: string) {
  return db
    .prepare(
      `UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = ?4, updated_at = ?4
       WHERE id = ?1 AND webhook_id = ?2 AND webhook_id IN (SELECT id FROM webhooks WHERE account_id = ?3)
       RETURNING ${DELIVERY_COLUMNS}`,
    )
    .bind(deliveryId, webhookId, accountId, now)
    .first<DeliveryRow>();
}

/**
 * Retention, bounded per run: deliveries (and then events) older than `before` go; deliveries
 * still pending long after their last planned retry (a lost message) are marked failed.
 */
export async function pruneDeliveries(
  db: D1Database,
  options: { before: string; staleBefore: string; now: string; limit: number },
): Promise<{ removed: number; failed: number }> {
  const [removed, , failed] = await db.batch([
    db
      .prepare(
        'DELETE FROM webhook_deliveries WHERE id IN (SELECT id FROM webhook_deliveries WHERE created_at < ?1 ORDER BY created_at LIMIT ?2) RETURNING id',
      )
      .bind(options.before, options.limit),
    db
      .prepare(
        `DELETE FROM webhook_events WHERE id IN (
           SELECT id FROM webhook_events e WHERE created_at < ?1
             AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.id)
           ORDER BY created_at LIMIT ?2)`,
      )
      .bind(options.before, options.limit),
    db
      .prepare(
        `UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL, updated_at = ?2
         WHERE id IN (SELECT id FROM webhook_deliveries WHERE status = 'pending' AND updated_at < ?1 LIMIT ?3) RETURNING id`,
      )
      .bind(options.staleBefore, options.now, options.limit),
  ]);
  return { removed: removed?.results.length ?? 0, failed: failed?.results.length ?? 0 };
}
