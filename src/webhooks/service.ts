// The webhook service: an account's endpoints and their deliveries. Rules here, SQL in storage/.
import { ApiError, validationError } from '../errors';
import type { EventsMessage } from '../events/types';
import { randomBase64Url } from '../lib/crypto';
import type { TargetRules } from '../lib/public-address';
import {
  countWebhooks,
  deleteWebhook,
  findWebhook,
  insertWebhook,
  listDeliveries,
  listWebhooks,
  resetDelivery,
  updateWebhook,
  type WebhookRow,
} from '../storage/webhooks-repo';
import { isoNow } from '../time';
import { deliveryRecord, webhookRecord } from './records';
import { newWebhookSecret } from './signature';
import { checkWebhookUrl } from './url';

/** An account's webhooks are few: each event costs a delivery per webhook. */
export const MAX_WEBHOOKS_PER_ACCOUNT = 20;

const WEBHOOK_ID = /^wh_[A-Za-z0-9_-]{22}$/;
const DELIVERY_ID = /^msg_[A-Za-z0-9_-]{22}$/;

const webhookNotFound = () => new ApiError('WEBHOOK_NOT_FOUND');

export type WebhookInput = { url: string; events: string[] };

/**
 * A URL the request's schema took (which allows loopback: it knows no configuration) judged by
 * the service's rules: a loopback address only where ALLOW_LOOPBACK_TARGETS is on (400 otherwise).
 */
function checkTarget(url: string | undefined, rules: TargetRules): void {
  if (url === undefined) return;
  const checked = checkWebhookUrl(url, rules);
  if ('problem' in checked) throw validationError('url', checked.problem);
}

/** Creates a webhook; the answer is the only place its secret ever appears. */
export async function createWebhook(db: D1Database, accountId: string, input: WebhookInput, rules: TargetRules) {
  checkTarget(input.url, rules);
  if ((await countWebhooks(db, accountId)) >= MAX_WEBHOOKS_PER_ACCOUNT) {
    throw new ApiError('VALIDATION_ERROR', `At most ${MAX_WEBHOOKS_PER_ACCOUNT} webhooks per account`, {
      details: [{ field: 'url', message: `the account has ${MAX_WEBHOOKS_PER_ACCOUNT} webhooks already` }],
    });
  }
  const now = isoNow();
  const row: WebhookRow = {
    id: `wh_${randomBase64Url(16)}`,
    account_id: accountId,
    url: input.url,
    events: JSON.stringify(input.events),
    secret: newWebhookSecret(),
    created_at: now,
    updated_at: now,
  };
  await insertWebhook(db, row);
  return { ...webhookRecord(row), secret: row.secret };
}

export async function listAccountWebhooks(db: D1Database, accountId: string) {
  return (await listWebhooks(db, accountId)).map(webhookRecord);
}

/** The account's webhook; another account's id, an unknown or a malformed one: 404. */
export async function getWebhook(db: D1Database, accountId: string, id: string): Promise<WebhookRow> {
  if (!WEBHOOK_ID.test(id)) throw webhookNotFound();
  const row = await findWebhook(db, id, accountId);
  if (!row) throw webhookNotFound();
  return row;
}

export async function changeWebhook(
  db: D1Database,
  accountId: string,
  id: string,
  input: Partial<WebhookInput>,
  rules: TargetRules,
) {
  if (!WEBHOOK_ID.test(id)) throw webhookNotFound();
  checkTarget(input.url, rules);
  const row = await updateWebhook(
    db,
    id,
    accountId,
    { url: input.url, events: input.events && JSON.stringify(input.events) },
    isoNow(),
  );
  if (!row) throw webhookNotFound();
  return webhookRecord(row);
}

export async function removeWebhook(db: D1Database, accountId: string, id: string): Promise<void> {
  if (!WEBHOOK_ID.test(id) || !(await deleteWebhook(db, id, accountId))) throw webhookNotFound();
}

export async function recentDeliveries(db: D1Database, accountId: string, id: string, limit: number) {
  const webhook = await getWebhook(db, accountId, id);
  return (await listDeliveries(db, webhook.id, limit)).map(deliveryRecord);
}

/** Sends a delivery again (whatever its status): pending at once, on the queue as a new message. */
export async function resendDelivery(
  deps: { db: D1Database; queue: Queue<EventsMessage> | undefined },
  accountId: string,
  id: string,
  deliveryId: string,
) {
  if (!WEBHOOK_ID.test(id)) throw webhookNotFound();
  if (!DELIVERY_ID.test(deliveryId)) throw new ApiError('DELIVERY_NOT_FOUND');
  const row = await resetDelivery(deps.db, id, deliveryId, accountId, isoNow());
  if (!row) {
    await getWebhook(deps.db, accountId, id);
    throw new ApiError('DELIVERY_NOT_FOUND');
  }
  if (!deps.queue) throw new ApiError('SERVICE_UNAVAILABLE', 'No events queue is bound');
  try {
    await deps.queue.send({ kind: 'delivery', deliveryId: row.id }, { contentType: 'json' });
  } catch (error) {
    throw new ApiError('SERVICE_UNAVAILABLE', 'The delivery could not be queued, try again', { cause: error });
  }
  return deliveryRecord(row);
}
