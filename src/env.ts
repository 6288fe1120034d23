import type { Config } from './config';
import type { Timings } from './http/timing';
import type { QuotaTicket } from './limiter/client';

export type Bindings = Env & { ADMIN_TOKEN?: string };

/** The key that authenticated the request, with its effective limits. */
export type ApiKeyContext = {
  id: string;
  rateLimitRequests: number;
  rateLimitWindowSeconds: number;
  storageQuotaBytes: number;
};

export type RateLimitState = { limit: number; remaining: number; reset: number };

export type AppEnv = {
  Bindings: Bindings;
  Variables: {
    requestId: string;
    config: Config;
    apiKey: ApiKeyContext;
    /** Set on v2 requests only. */
    timings?: Timings;
    /** Set on uploads that announced their length: storage reserved while admitting them. */
    quota?: QuotaTicket;
  };
};
