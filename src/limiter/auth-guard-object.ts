import { DurableObject } from 'cloudflare:workers';
import type { WindowRequest, WindowResult } from './auth-guard-contract';

type WindowState = { start: number; count: number };

/**
 * One object per client address (see auth-guard-client.ts for how addresses are grouped): the one
 * per-address throttle. It counts, in fixed windows, one per scope: failed authentications (API
 * keys, the admin token) and what visitors without a key do (wrong passwords, share downloads,
 * file-request uploads). A request with a good key never reaches it.
 */
export class AuthGuard extends DurableObject<Env> {
  hit(request: WindowRequest): WindowResult {
    const now = request.now ?? Date.now();
    const windowMs = request.windowSeconds * 1000;
    const start = Math.floor(now / windowMs) * windowMs;
    const reset = Math.ceil((start + windowMs) / 1000);
    const stored = this.ctx.storage.kv.get<WindowState>(request.scope);
    const before = stored && stored.start === start ? stored.count : 0;
    if (request.count === false) return { blocked: before >= request.limit, count: before, reset };
    const count = before + 1;
    this.ctx.storage.kv.put(request.scope, { start, count } satisfies WindowState);
    return { blocked: count > request.limit, count, reset };
  }
}
