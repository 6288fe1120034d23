// The only code that talks to a key's Durable Object: routes and services go through here.
import type { ApiKeyContext } from '../env';
import { ApiError } from '../errors';
import { log } from '../log';
import type { AdmitResult, KeyLimiter, Reservation } from './key-limiter';

export type LimiterNamespace = DurableObjectNamespace<KeyLimiter>;

const limiterOf = (namespace: LimiterNamespace, keyId: string) => namespace.getByName(keyId);

/** Admits one request; with `reserveBytes`, also reserves storage for it in the same call. */
export function admitRequest(
  namespace: LimiterNamespace,
  key: ApiKeyContext,
  reserveBytes?: number,
): Promise<AdmitResult> {
  return limiterOf(namespace, key.id).admit({
    limit: key.rateLimitRequests,
    windowSeconds: key.rateLimitWindowSeconds,
    reserve:
      reserveBytes === undefined ? undefined : { keyId: key.id, want: reserveBytes, quota: key.storageQuotaBytes },
  });
}

export async function freeBytes(namespace: LimiterNamespace, keyId: string, bytes: number): Promise<void> {
  if (bytes <= 0) return;
  await limiterOf(namespace, keyId)
    .free({ keyId, bytes })
    .catch((error: unknown) => {
      log('error', 'quota not given back', { keyId, bytes, error: String(error) });
    });
}

export const storageExceeded = () => new ApiError('STORAGE_EXCEEDED', 'Storage limit reached for this API key');

// The most a ticket asks for beyond what it needs: a large upload still makes few calls.
const RESERVE_STEP = 8 * 1024 * 1024;

/**
 * The storage one upload request may use. Each file being written states how many bytes it
 * has so far; when the total passes what the key's object granted, the ticket asks for more,
 * and refuses (STORAGE_EXCEEDED) when the quota has no room. Parallel uploads of one key can
 * therefore never pass its quota together.
 */
export class QuotaTicket {
  readonly #namespace: LimiterNamespace;
  readonly #key: ApiKeyContext;
  #reservationId: string | undefined;
  #granted = 0;
  readonly #needs = new Map<string, number>();

  constructor(namespace: LimiterNamespace, key: ApiKeyContext, initial?: Reservation) {
    this.#namespace = namespace;
    this.#key = key;
    if (initial) {
      this.#reservationId = initial.id;
      this.#granted = initial.granted;
    }
  }

  /** Records that `file` now holds `bytes`; throws STORAGE_EXCEEDED when that cannot be covered. */
  async need(file: string, bytes: number): Promise<void> {
    this.#needs.set(file, bytes);
    const total = this.#total();
    if (total <= this.#granted) return;
    const reservation = await this.#call((limiter) =>
      limiter.reserve({
        keyId: this.#key.id,
        // What is needed, plus as much again as was granted so far (at most RESERVE_STEP): an
        // upload holds about what it has read, so it cannot crowd out the key's other uploads.
        want: Math.max(total - this.#granted, Math.min(this.#granted, RESERVE_STEP)),
        quota: this.#key.storageQuotaBytes,
        reservationId: this.#reservationId,
      }),
    );
    this.#reservationId = reservation.id;
    this.#granted += reservation.granted;
    if (total > this.#granted) {
      this.#needs.delete(file);
      throw storageExceeded();
    }
  }

  /** The file failed: its bytes no longer count (the granted room stays for the others). */
  drop(file: string): void {
    this.#needs.delete(file);
  }

  /** The stored files' bytes become used; the rest of the reservation is given back. */
  async settle(bytes: number): Promise<void> {
    const reservationId = this.#reservationId;
    // No reservation means no byte was ever needed: only empty files were stored.
    if (!reservationId) return;
    this.#reservationId = undefined;
    this.#granted = 0;
    await this.#call((limiter) => limiter.settle({ keyId: this.#key.id, reservationId, bytes }));
  }

  /** Nothing was stored: give the whole reservation back. */
  async release(): Promise<void> {
    const reservationId = this.#reservationId;
    if (!reservationId) return;
    this.#reservationId = undefined;
    this.#granted = 0;
    await limiterOf(this.#namespace, this.#key.id)
      .release(reservationId)
      .catch(() => undefined);
  }

  #total(): number {
    let total = 0;
    for (const bytes of this.#needs.values()) total += bytes;
    return total;
  }

  async #call<T>(work: (limiter: DurableObjectStub<KeyLimiter>) => Promise<T>): Promise<T> {
    try {
      return await work(limiterOf(this.#namespace, this.#key.id));
    } catch (error) {
      // Without the key's object the quota cannot be kept: refuse rather than overfill.
      throw new ApiError('SERVICE_UNAVAILABLE', 'Storage accounting is unavailable, try again', { cause: error });
    }
  }
}
