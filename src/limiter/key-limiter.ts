import { DurableObject } from 'cloudflare:workers';

export type AdmitRequest = { limit: number; windowSeconds: number; now?: number };

export type AdmitResult = {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Unix seconds (UTC) when the current window ends. */
  reset: number;
};

type WindowState = { start: number; count: number };

const WINDOW_KEY = 'window';

/**
 * One object per API key (named by the key's id). A fixed window counter, aligned to
 * multiples of the window length: the object handles one call at a time, so the count
 * is exact however many requests race for it.
 */
export class KeyLimiter extends DurableObject<Env> {
  admit(request: AdmitRequest): AdmitResult {
    const now = request.now ?? Date.now();
    const windowMs = request.windowSeconds * 1000;
    const start = Math.floor(now / windowMs) * windowMs;
    const reset = Math.ceil((start + windowMs) / 1000);

    // Only the current window is kept: storage stays one small value per key.
    const stored = this.ctx.storage.kv.get<WindowState>(WINDOW_KEY);
    const count = stored && stored.start === start ? stored.count : 0;

    if (count >= request.limit) {
      return { allowed: false, limit: request.limit, remaining: 0, reset };
    }
    this.ctx.storage.kv.put(WINDOW_KEY, { start, count: count + 1 } satisfies WindowState);
    return { allowed: true, limit: request.limit, remaining: request.limit - count - 1, reset };
  }
}
