import type { Context } from 'hono';
import type { Config } from './config';
import type { Timings } from './lib/timing';
import type { Grant, Scope, Usage } from './limiter/key-limiter-contract';

/** The bindings, and the secrets `wrangler types` never sees (they are never in wrangler.toml). */
export type Bindings = Env & { ADMIN_TOKEN?: string; OPERATOR_WEBHOOK_SECRET?: string };

/** Where links point: the API's origin (PUBLIC_BASE_URL) and the site's (SITE_URL), else the request's. */
export type Origins = { api: string; site: string };

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
  /** The account's policy overrides (JSON as D1 keeps them, or null); read by src/policy/. */
  policy: string | null;
};

/** What one MCP POST asked for, as its log line shows it. */
export type McpCall = { method?: string; tool?: string; code?: string };

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
    /** Set on POST /mcp: the JSON-RPC method, the tool called and its refusal's code (the log line shows them). */
    mcp?: McpCall;
  };
};

/**
 * What an API route needs from the key that calls it, declared where the route is defined with
 * `requires(...)` (src/http/route-needs.ts).
 */
export type RouteNeeds = {
  /** The scope a key must hold; null: any valid key (the 404 and 405 answers). */
  scope: Scope | null;
  /**
   * An upload: the request's Content-Length is held in the account when it is admitted (given
   * back, less what was stored, when it ends), for at most this many files.
   */
  holdsUpload?: (config: Config) => number;
  /** Reads the account's usage: the admitting call reads it too (no second call). */
  readsUsage?: boolean;
  /**
   * Authenticates without counting against the key's rate limit (never refused by it at
   * admission): a tus PATCH, bounded by its upload's length when it stores bytes, and counted by
   * its route after the fact when it stores none (see docs/limits.md).
   */
  uncounted?: (c: Context<AppEnv>) => boolean;
  /**
   * No key at all: the URL is the capability (a file request's /api/v2/r/<token>/… paths). Such
   * routes are mounted before authentication (app.ts); authentication refuses one that reaches it.
   */
  public?: true;
};
