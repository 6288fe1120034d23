import { DurableObject } from 'cloudflare:workers';
import type { FailureRequest, FailureResult } from './auth-guard-contract';

type WindowState = { start: number; count: number };

/**
 * One object per client address (see auth-guard-client.ts for how addresses are grouped). It counts failed
 * authentications in fixed windows, separately for API keys and the admin token, and for share
 * links wrong passwords and downloads (one window per scope). A request with a good key never
 * reaches it.
 */
export class AuthGuard extends DurableObject<Env> {
  fail(request: FailureRequest): FailureResult {
    const now = request.now ?? Date.now();
    const windowMs = request.windowSeconds * 1000;
    const start = Math.floor(now / windowMs) * windowMs;
    const stored = this.ctx.storage.kv.get<WindowState>(request.scope);
    const count = (stored && stored.start === start ? stored.count : 0) + 1;
    this.ctx.storage.kv.put(request.scope, { start, count } satisfies WindowState);
    return { blocked: count > request.limit, failures: count, reset: Math.ceil((start + windowMs) / 1000) };
  }
}
