// A key's limits: the configured defaults (built once per parsed configuration) and each key's
// overrides, shared by the Worker and the key's Durable Object.
import { type Config, holdTtlMs } from '../config';
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

// The configured limits, built once per parsed configuration (config is cached per env).
const defaultsFor = new WeakMap<Config, KeyLimits>();
export function keyDefaults(config: Config): KeyLimits {
  let defaults = defaultsFor.get(config);
  if (!defaults) {
    defaults = {
      rateLimitRequests: config.RATE_LIMIT_REQUESTS,
      rateLimitWindowSeconds: config.RATE_LIMIT_WINDOW_SECONDS,
      storageQuotaBytes: config.STORAGE_QUOTA_BYTES,
      maxFiles: config.MAX_FILES_PER_KEY,
      holdTtlMs: holdTtlMs(config),
    };
    defaultsFor.set(config, defaults);
  }
  return defaults;
}
