import { createApp } from './app';
import { sweep } from './maintenance/sweep';

export { KeyLimiter } from './limiter/key-limiter';

const app = createApp();

export default {
  fetch: app.fetch,
  /** Cron (wrangler.toml [triggers]): expired files, failed blob deletes, R2/D1 drift. */
  async scheduled(_controller, env, ctx) {
    const run = sweep({ db: env.DB, bucket: env.FILES, limiter: env.KEY_LIMITER }).then((report) =>
      console.log(JSON.stringify({ level: 'info', msg: 'sweep', ...report })),
    );
    ctx.waitUntil(run);
    await run;
  },
} satisfies ExportedHandler<Env>;
