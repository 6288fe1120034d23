import { createApp } from './app';
import { getConfig, orphanGraceMs } from './config';
import { eventSink } from './events/emit';
import type { EventsMessage } from './events/types';
import { log } from './log';
import { sweep } from './maintenance/sweep';
import { consumeEvents } from './webhooks/consumer';
import { pruneWebhookDeliveries } from './webhooks/retention';
import { targetRules } from './webhooks/url';

export { AccountStorage } from './accounts/account-storage-object';
export { IdempotencyStore } from './idempotency/idempotency-store-object';
export { AuthGuard } from './limiter/auth-guard-object';
export { KeyLimiter } from './limiter/key-limiter-object';
export { LinkCounter } from './links/link-counter-object';
export { FileRequestCounter } from './requests/request-counter-object';
export { TusUpload } from './tus/tus-upload-object';

const app = createApp();

export default {
  fetch: app.fetch,
  /** Cron (wrangler.toml [triggers]): expired files, failed blob deletes, R2/D1 drift, old webhook deliveries. */
  async scheduled(_controller, env, ctx) {
    const graceMs = orphanGraceMs(getConfig(env));
    const files = sweep({
      db: env.DB,
      bucket: env.FILES,
      accounts: env.ACCOUNT_STORAGE,
      uploads: env.TUS_UPLOADS,
      graceMs,
      events: eventSink(env, ctx),
    }).then((report) => log('info', 'sweep', report));
    const deliveries = pruneWebhookDeliveries(env.DB).then(
      (report) => log('info', 'webhook deliveries pruned', report),
      (error: unknown) => log('error', 'webhook deliveries not pruned', { error: String(error) }),
    );
    const run = Promise.all([files, deliveries]);
    ctx.waitUntil(run);
    await run;
  },
  /**
   * The events queue and its dead-letter queue (wrangler.toml [[queues.consumers]]): webhook
   * deliveries, the operator's included.
   */
  async queue(batch, env, _ctx) {
    const config = getConfig(env);
    const { OPERATOR_WEBHOOK_URL: url, OPERATOR_WEBHOOK_SECRET: secret } = config;
    await consumeEvents(batch as MessageBatch<EventsMessage>, {
      db: env.DB,
      queue: env.EVENTS as Queue<EventsMessage>,
      targets: targetRules(config),
      operator: url && secret ? { url, secret } : undefined,
    });
  },
} satisfies ExportedHandler<Env>;
