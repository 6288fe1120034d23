import { DurableObject } from 'cloudflare:workers';

export type AdmitRequest = {
  limit: number;
  windowSeconds: number;
  now?: number;
  /** Reserve storage in the same call (an upload that announced its length). */
  reserve?: ReserveRequest;
};

export type AdmitResult = {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Unix seconds (UTC) when the current window ends. */
  reset: number;
  reservation?: Reservation;
};

export type ReserveRequest = { keyId: string; want: number; quota: number; reservationId?: string };
/** Bytes granted to one upload request; granted may be less than wanted (0 when the key is full). */
export type Reservation = { id: string; granted: number };
export type Usage = { usedBytes: number; reservedBytes: number };

type WindowState = { start: number; count: number };
type Held = { bytes: number; at: number };

const WINDOW_KEY = 'window';
const USED_KEY = 'used';
const HELD_KEY = 'reservations';
// A reservation whose upload never settles (its Worker died) gives its bytes back after this.
const RESERVATION_TTL_MS = 60 * 60 * 1000;

/**
 * One object per API key (named by the key's id). It counts requests in fixed windows aligned
 * to multiples of the window length, and keeps the key's storage account: bytes used by stored
 * files plus bytes reserved by uploads in flight. The object handles one call at a time, so
 * both are exact however many requests race for them.
 */
export class KeyLimiter extends DurableObject<Env> {
  async admit(request: AdmitRequest): Promise<AdmitResult> {
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
    const result: AdmitResult = { allowed: true, limit: request.limit, remaining: request.limit - count - 1, reset };
    if (request.reserve) result.reservation = await this.reserve(request.reserve);
    return result;
  }

  /** Grants up to `want` more bytes to a reservation (a new one without reservationId). */
  async reserve(request: ReserveRequest): Promise<Reservation> {
    const used = await this.#used(request.keyId);
    const held = this.#held();
    const id = request.reservationId ?? crypto.randomUUID();
    const reserved = Object.values(held).reduce((sum, entry) => sum + entry.bytes, 0);
    const granted = Math.max(0, Math.min(request.want, request.quota - used - reserved));
    const entry = held[id] ?? { bytes: 0, at: Date.now() };
    held[id] = { bytes: entry.bytes + granted, at: Date.now() };
    this.ctx.storage.kv.put(HELD_KEY, held);
    return { id, granted };
  }

  /** The upload is stored: `bytes` become used and the rest of the reservation is given back. */
  async settle(request: { keyId: string; reservationId: string; bytes: number }): Promise<void> {
    const known = this.ctx.storage.kv.get<number>(USED_KEY);
    // Unknown until now: the sum of the rows already includes the files just written.
    if (known === undefined) await this.#used(request.keyId);
    else this.ctx.storage.kv.put(USED_KEY, known + request.bytes);
    this.release(request.reservationId);
  }

  release(reservationId: string): void {
    const held = this.#held();
    if (!(reservationId in held)) return;
    delete held[reservationId];
    this.ctx.storage.kv.put(HELD_KEY, held);
  }

  /** Files were deleted or expired: their bytes are free again. */
  async free(request: { keyId: string; bytes: number }): Promise<void> {
    const known = this.ctx.storage.kv.get<number>(USED_KEY);
    // Unknown until now: the rows are already deleted, so their sum is the truth as it is.
    if (known === undefined) await this.#used(request.keyId);
    else this.ctx.storage.kv.put(USED_KEY, Math.max(0, known - request.bytes));
  }

  async usage(keyId: string): Promise<Usage> {
    const usedBytes = await this.#used(keyId);
    const reservedBytes = Object.values(this.#held()).reduce((sum, entry) => sum + entry.bytes, 0);
    return { usedBytes, reservedBytes };
  }

  /** Sets used bytes from the sum of the key's rows (see docs/quota.md). */
  reconcile(usedBytes: number): void {
    this.ctx.storage.kv.put(USED_KEY, usedBytes);
  }

  /** Reservations of uploads that never settled are dropped after RESERVATION_TTL_MS. */
  #held(): Record<string, Held> {
    const held = this.ctx.storage.kv.get<Record<string, Held>>(HELD_KEY) ?? {};
    const cutoff = Date.now() - RESERVATION_TTL_MS;
    for (const [id, entry] of Object.entries(held)) if (entry.at < cutoff) delete held[id];
    return held;
  }

  /**
   * Used bytes; the first time, the sum of the key's rows in D1 (a key that had files before
   * its object existed starts from the truth). Other calls wait while that query runs.
   */
  async #used(keyId: string): Promise<number> {
    const known = this.ctx.storage.kv.get<number>(USED_KEY);
    if (known !== undefined) return known;
    let used = 0;
    await this.ctx.blockConcurrencyWhile(async () => {
      const again = this.ctx.storage.kv.get<number>(USED_KEY);
      if (again !== undefined) {
        used = again;
        return;
      }
      const row = await this.env.DB.prepare('SELECT COALESCE(SUM(size), 0) AS used FROM files WHERE key_id = ?1')
        .bind(keyId)
        .first<{ used: number }>();
      used = row?.used ?? 0;
      this.ctx.storage.kv.put(USED_KEY, used);
    });
    return used;
  }
}
