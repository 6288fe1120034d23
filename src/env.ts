import type { Config } from './config';
import type { RouteNeeds } from './http/route-needs';
import type { Timings } from './lib/timing';
import type { Grant, Usage } from './limiter/key-limiter-contract';
import type { Scope } from './limiter/scopes';

export type Bindings = Env & { ADMIN_TOKEN?: string };

/**
 * The key that authenticated the request, with its effective limits: the rate limit is the
 * key's, the storage quota and file limit its account's.
 */
export type ApiKeyContext = {
  id: string;
  /** The owner of everything the request reads or stores (files, and what is attached to them). */
  accountId: string;
  /** null: every scope (keys made before scopes). */
  scopes: Scope[] | null;
  /** ms since the epoch, or null (never expires). */
  expiresAt: number | null;
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
    /** What the answering route declared it needs (route-needs.ts), set by authentication. */
    needs?: RouteNeeds;
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
