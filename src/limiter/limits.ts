// Pure helpers shared by the Worker and the key's Durable Object (no runtime imports, so Node
// tools that load the app, like the OpenAPI document test, can import them).
import type { KeyLimits, KeyState } from './key-limiter-contract';

/** A key's limits: each override where it has one, else the configured default. */
export function effectiveLimits(overrides: KeyState['overrides'], defaults: KeyLimits): KeyLimits {
  return {
    rateLimitRequests: overrides.rateLimitRequests ?? defaults.rateLimitRequests,
    rateLimitWindowSeconds: overrides.rateLimitWindowSeconds ?? defaults.rateLimitWindowSeconds,
    storageQuotaBytes: overrides.storageQuotaBytes ?? defaults.storageQuotaBytes,
    maxFiles: overrides.maxFiles ?? defaults.maxFiles,
    holdTtlMs: defaults.holdTtlMs,
  };
}
