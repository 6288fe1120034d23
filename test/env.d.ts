import type { D1Migration } from 'cloudflare:test';

declare global {
  namespace Cloudflare {
    interface Env {
      TEST_MIGRATIONS: D1Migration[];
      ADMIN_TOKEN?: string;
      /** The operator's webhook secret (vitest.config.ts), beside OPERATOR_WEBHOOK_URL. */
      OPERATOR_WEBHOOK_SECRET?: string;
    }
  }
}
