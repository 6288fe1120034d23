import type { ApiKeyContext } from '../env';
import type { AdmitResult, KeyLimiter } from './key-limiter';

/** Asks the key's own Durable Object (named by the key's id) to admit one request. */
export function admitRequest(namespace: DurableObjectNamespace<KeyLimiter>, key: ApiKeyContext): Promise<AdmitResult> {
  return namespace.getByName(key.id).admit({ limit: key.rateLimitRequests, windowSeconds: key.rateLimitWindowSeconds });
}
