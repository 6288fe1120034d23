// Webhook and delivery rows → the API's records: the one place that decides what an owner sees.
import type { DeliveryRow, WebhookRow } from '../storage/webhooks-repo';

/** A webhook as the API shows it: never its secret (shown once, at creation). */
export function webhookRecord(row: WebhookRow) {
  return {
    id: row.id,
    url: row.url,
    events: JSON.parse(row.events) as string[],
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** A delivery as the API shows it (lastStatusCode null: no answer, or the URL refused). */
export function deliveryRecord(row: DeliveryRow) {
  return {
    id: row.id,
    eventId: row.event_id,
    type: row.type,
    status: row.status,
    attempts: row.attempts,
    lastStatusCode: row.last_status_code,
    lastError: row.last_error,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    nextAttemptAt: row.next_attempt_at,
  };
}
