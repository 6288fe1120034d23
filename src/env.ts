import type { Config } from './config';
import type { Timings } from './http/timing';
import type { Grant, Usage } from './limiter/key-limiter-contract';

export type Bindings = Env & { ADMIN_TOKEN?: string };

/** The key that authenticated the request, with its effective limits. */
export type ApiKeyContext = {
  id: string;
  rateLimitRequests: number;
  rateLimitWindowSeconds: number;
  storageQuotaBytes: number;
  maxFiles: number;
  /** How long a storage hold of this key's uploads may live (see config.holdTtlMs). */
  holdTtlMs: number;
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
    /** Set on uploads that announced their length: storage held while admitting them. */
    grant?: Grant;
    /** The key's rate-limit window as the response reports it (X-RateLimit-*). */
    rateLimit?: RateLimitState;
    /** Set on GET /api/v2/usage: the key's account, read in the call that admitted the request. */
    usage?: Usage;
  };
};
