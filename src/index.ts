import { createApp } from './app';
import { getConfig, orphanGraceMs } from './config';
import { log } from './log';
import { sweep } from './maintenance/sweep';

export { AccountStorage } from './accounts/account-storage-object';
export { AuthGuard } from './limiter/auth-guard-object';
export { KeyLimiter } from './limiter/key-limiter-object';
export { TusUpload } from './tus/tus-upload-object';

const app = createApp();

export default {
  fetch: app.fetch,
  /** Cron (wrangler.toml [triggers]): expired files, failed blob deletes, R2/D1 drift. */
  async scheduled(_controller, env, ctx) {
    const graceMs = orphanGraceMs(getConfig(env));
    const run = sweep({
      db: env.DB,
      bucket: env.FILES,
      accounts: env.ACCOUNT_STORAGE,
      uploads: env.TUS_UPLOADS,
      graceMs,
    }).then((report) => log('info', 'sweep', report));
    ctx.waitUntil(run);
    await run;
  },
} satisfies ExportedHandler<Env>;
