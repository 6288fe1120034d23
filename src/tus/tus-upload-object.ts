import { DurableObject } from 'cloudflare:workers';
import { releaseHold } from '../accounts/account-storage-client';
import { Sha256, type Sha256State } from '../lib/sha256';
import { log } from '../log';
import { segmentReferenced } from '../storage/segments-repo';
import { partSizeOpen, tailPrefix } from './protocol';
import {
  type BeginResult,
  CLAIM_TIMEOUT_MS,
  type ClaimResult,
  COMMIT_LEASE_MS,
  type CreateUpload,
  LEASE_TTL_MS,
  type PartProgress,
  type Progress,
  RETAIN_MS,
  type Tail,
  type UploadSnapshot,
  type UploadStatus,
  type UploadView,
} from './tus-upload-contract';

type State = Omit<CreateUpload, 'now'> & {
  offset: number;
  status: UploadStatus;
  createdAt: number;
  multipartId: string | null;
  partCount: number;
  /** Bytes past the last full part, kept in R2 under uploads/<id>/ until a part is full. */
  tail: Tail | null;
  /** Decided from the first bytes; null until enough of them have arrived. */
  mimeType: string | null;
  /**
   * SHA-256 of the bytes up to `offset` (tail included), saved at every PATCH's end so the hash
   * goes on in the next PATCH, on any isolate, after any restart. Null (or absent, in a state
   * saved before digests) when the upload began without it: its file gets no digest until the
   * sweep's backfill.
   */
  hash?: Sha256State | null;
  /**
   * CRC-32 of the bytes up to `offset` (tail included), kept beside the hash and saved with it (a
   * plain number). A partial keeps its own once complete, for the final that takes it (concat.ts).
   * Null (or absent, in a state saved before CRCs) when the upload began without it: its file
   * gets one from the sweep's backfill.
   */
  crc32?: number | null;
  lease: { token: string; until: number } | null;
  /** Whether everything the upload held (R2 multipart, tail objects, the reservation) is given back. */
  cleaned: boolean;
  /** When a finished upload's record is forgotten (then 404 instead of 410, HEAD from D1). */
  forgetAt: number | null;
  /** A complete partial upload's object's ETag (its object is at r2Key, no file row). */
  etag?: string;
  /**
   * The final upload that took this partial (src/tus/concat.ts): pending until the final's row
   * is written, then confirmed. A claimed partial never expires, and its object is the file's.
   */
  claim?: Claim | null;
  /** An age upload's header bytes so far (ASCII), kept until the upload is complete (see PartWriter). */
  e2eHeader?: string | null;
};
type Claim = { finalId: string; at: number; confirmed: boolean };
/** Uploads created before accounts name their key, whose id is its account's. */
const ownerOf = (state: State) => state.accountId ?? (state as { keyId?: string }).keyId ?? '';
const STATE_KEY = 'upload';
const RETRY_CLEANUP_MS = 60 * 1000;
/** A partial's bytes are not a file: their type is the final's to decide, never sniffed per partial. */
const PARTIAL_TYPE = 'application/octet-stream';
/**
 * One object per tus upload (named by the upload's id, which becomes the file's id). It keeps
 * the upload's state and serialises its PATCHes: a PATCH takes a lease at the upload's offset
 * (anything else is a conflict), streams its bytes into R2 parts, records each part as it lands,
 * and reports the new offset to end the lease. A lease not renewed for LEASE_TTL_MS (its Worker
 * died) is taken over by the next PATCH at the recorded offset. Its alarm expires an abandoned upload: the R2 multipart upload is aborted, the
 * tail objects deleted, and the key's reservation released. Termination does the same at once.
 */

export class TusUpload extends DurableObject<Env> {
  async create(request: CreateUpload): Promise<UploadView> {
    if (this.#state()) throw new Error(`upload ${request.id} exists already`);
    // Made here, not in the constructor: an object asked about an id that names no upload (a
    // probe, the sweep checking a blob) stores nothing at all.
    this.ctx.storage.sql.exec('CREATE TABLE IF NOT EXISTS parts (number INTEGER PRIMARY KEY, etag TEXT NOT NULL)');
    const { now = Date.now(), ...init } = request;
    const state: State = {
      ...init,
      offset: 0,
      status: 'active',
      createdAt: now,
      multipartId: null,
      partCount: 0,
      tail: null,
      // Neither a partial's bytes nor an age payload are sniffed: they are no file of a type.
      mimeType: init.concat === 'partial' || init.meta.e2e ? PARTIAL_TYPE : null,
      hash: new Sha256().save(),
      crc32: 0,
      lease: null,
      cleaned: false,
      forgetAt: null,
    };
    this.#save(state);
    await this.ctx.storage.setAlarm(Math.min(state.expiresAt, state.deadline));
    return view(state);
  }

  /** The upload as its account may see it; another account's upload does not exist. */
  async view(request: { accountId: string; now?: number }): Promise<UploadView | { status: 'not-found' }> {
    const state = await this.#current(request.now ?? Date.now());
    if (!state || ownerOf(state) !== request.accountId) return { status: 'not-found' };
    return view(state);
  }

  /** Takes the lease for a PATCH at `offset`: the upload's offset, while no other PATCH holds it. */
  async begin(request: { accountId: string; offset: number; now?: number }): Promise<BeginResult> {
    const now = request.now ?? Date.now();
    const state = await this.#current(now);
    if (!state || ownerOf(state) !== request.accountId) return { status: 'not-found' };
    if (state.status === 'completed') {
      const partial = state.concat === 'partial';
      return { status: 'completed', offset: state.offset, length: state.length, partial, expiresAt: state.expiresAt };
    }
    if (state.status !== 'active') return { status: 'gone' };
    const position = { offset: state.offset, length: state.length };
    if (state.lease && state.lease.until > now) return { status: 'busy', ...position };
    if (request.offset !== state.offset) return { status: 'conflict', ...position };
    state.lease = { token: crypto.randomUUID(), until: now + LEASE_TTL_MS };
    this.#save(state);
    return { status: 'ok', lease: state.lease.token, upload: this.#snapshot(state) };
  }

  /** Extends the lease; false when it is no longer the PATCH's (the upload ended or another took over). */
  renew(request: { lease: string; multipartId?: string; now?: number }): boolean {
    const now = request.now ?? Date.now();
    const state = this.#state();
    if (state?.status !== 'active' || state.lease?.token !== request.lease) return false;
    state.lease.until = now + LEASE_TTL_MS;
    // Recorded at once, so an expiry can abort it even if the PATCH never reports.
    if (request.multipartId) state.multipartId = request.multipartId;
    this.#save(state);
    return true;
  }

  /**
   * Records a part the moment it is in R2, and the offset, type and hash at its end, renewing the
   * lease: a PATCH whose Worker dies later keeps it, and HEAD offers its end. False (nothing
   * recorded) when the lease is no longer the PATCH's.
   */
  recordPart(progress: PartProgress): boolean {
    const now = progress.now ?? Date.now();
    const state = this.#state();
    if (state?.status !== 'active' || !state.lease || state.lease.token !== progress.lease) return false;
    // The part and the offset past it in one step (no await between): never one without the other.
    this.ctx.storage.sql.exec(
      'INSERT OR REPLACE INTO parts (number, etag) VALUES (?, ?)',
      progress.part.partNumber,
      progress.part.etag,
    );
    // Set by the PATCH that stored the first part's bytes (an age upload's header is in no part);
    // once parts or a tail exist their size never changes.
    if (partSizeOpen(state)) state.partSize = progress.partSize;
    state.partCount = Math.max(state.partCount, progress.part.partNumber);
    state.offset = progress.offset;
    // A stored tail went into the part (the first one this PATCH wrote).
    state.tail = null;
    state.mimeType = progress.mimeType;
    state.hash = progress.hash;
    state.crc32 = progress.crc32 ?? null;
    if (progress.e2eHeader !== undefined) state.e2eHeader = progress.e2eHeader;
    state.lease.until = now + LEASE_TTL_MS;
    // The alarm, set to the earlier expiry, finds the upload active and comes back at this one.
    state.expiresAt = Math.min(progress.expiresAt, state.deadline);
    this.#save(state);
    return true;
  }

  /**
   * The PATCH has the last byte: its lease now lasts COMMIT_LEASE_MS, while it writes the last
   * part and makes the multipart upload the file. Returns the parts recorded so far, in order
   * (what completing the multipart upload needs), or null when the lease is no longer the PATCH's.
   */
  assemble(request: { lease: string; now?: number }): R2UploadedPart[] | null {
    const state = this.#state();
    if (state?.status !== 'active' || !state.lease || state.lease.token !== request.lease) return null;
    state.lease.until = (request.now ?? Date.now()) + COMMIT_LEASE_MS;
    this.#save(state);
    return this.ctx.storage.sql
      .exec<{ number: number; etag: string }>('SELECT number, etag FROM parts ORDER BY number')
      .toArray()
      .map((row) => ({ partNumber: row.number, etag: row.etag }));
  }

  /**
   * Records what a PATCH stored and ends its lease. Returns false (nothing recorded) when the
   * lease is no longer the PATCH's; the caller then removes what it wrote.
   */
  async end(progress: Progress): Promise<{ ok: boolean; expiresAt: number }> {
    const state = this.#state();
    if (state?.status !== 'active' || state.lease?.token !== progress.lease) {
      return { ok: false, expiresAt: 0 };
    }
    for (const part of progress.parts) {
      this.ctx.storage.sql.exec(
        'INSERT OR REPLACE INTO parts (number, etag) VALUES (?, ?)',
        part.partNumber,
        part.etag,
      );
    }
    // Set by the PATCH that stored the first part's bytes (see recordPart).
    if (partSizeOpen(state) && progress.partSize !== undefined) {
      state.partSize = progress.partSize;
    }
    state.partCount = Math.max(state.partCount, ...progress.parts.map((part) => part.partNumber));
    state.offset = progress.offset;
    state.tail = progress.tail;
    state.mimeType = progress.mimeType;
    state.hash = progress.hash;
    state.crc32 = progress.crc32 ?? null;
    if (progress.e2eHeader !== undefined) state.e2eHeader = progress.e2eHeader;
    state.lease = null;
    state.expiresAt = Math.min(progress.expiresAt, state.deadline);
    this.#save(state);
    await this.ctx.storage.setAlarm(state.expiresAt);
    return { ok: true, expiresAt: state.expiresAt };
  }

  /** Ends a PATCH's lease without recording anything (its bytes were discarded). */
  release(request: { lease: string }): void {
    const state = this.#state();
    if (!state || state.lease?.token !== request.lease) return;
    state.lease = null;
    this.#save(state);
  }

  /** The file is stored and recorded: the upload is complete. Its tail objects go. */
  async complete(request: { lease: string; now?: number }): Promise<boolean> {
    const state = this.#state();
    if (state?.status !== 'active' || state.lease?.token !== request.lease) return false;
    state.offset = state.length;
    state.tail = null;
    // The header is the file's row's now (its owner's header): nothing of it stays here.
    state.e2eHeader = null;
    // The file's commit ended the reservation; the multipart upload is now the file.
    await this.#finish(state, 'completed', request.now ?? Date.now());
    return true;
  }

  /**
   * A partial upload's last byte is stored: its object is complete, and waits (its reservation
   * kept) for a final upload to take it, or for its expiry, which frees both. Its CRC-32 is kept
   * for that final (null when the upload began without one).
   */
  async completePartial(request: {
    lease: string;
    etag: string;
    crc32: number | null;
    expiresAt: number;
  }): Promise<boolean> {
    const state = this.#state();
    if (state?.status !== 'active' || state.lease?.token !== request.lease || !state.concat) return false;
    state.status = 'completed';
    state.offset = state.length;
    state.tail = null;
    state.lease = null;
    state.hash = null;
    state.crc32 = request.crc32 ?? null;
    state.etag = request.etag;
    state.expiresAt = Math.min(request.expiresAt, state.deadline);
    this.#save(state);
    this.ctx.storage.sql.exec('DELETE FROM parts');
    await deletePrefix(this.env.FILES, tailPrefix(state.id)).catch((error: unknown) =>
      log('error', 'partial upload tail left behind', { uploadId: state.id, error: String(error) }),
    );
    await this.ctx.storage.setAlarm(state.expiresAt);
    return true;
  }

  /**
   * A final upload takes this partial: only a complete one of the same account that no other
   * final took (the same final may ask again). Pending until confirmed or given back.
   */
  async claim(request: { accountId: string; finalId: string; now?: number }): Promise<ClaimResult> {
    const now = request.now ?? Date.now();
    const state = await this.#current(now);
    if (!state || ownerOf(state) !== request.accountId) return { status: 'not-found' };
    if (!state.concat) return { status: 'not-partial' };
    if (state.status === 'active') return { status: 'incomplete', offset: state.offset, length: state.length };
    if (state.status !== 'completed' || !state.etag) return { status: 'gone' };
    if (state.claim && state.claim.finalId !== request.finalId) return { status: 'claimed' };
    if (!state.claim) {
      state.claim = { finalId: request.finalId, at: now, confirmed: false };
      this.#save(state);
      await this.ctx.storage.setAlarm(now + CLAIM_TIMEOUT_MS);
    }
    return {
      status: 'ok',
      r2Key: state.r2Key,
      length: state.length,
      etag: state.etag,
      holdId: state.holdId,
      crc32: state.crc32 ?? null,
    };
  }

  /** The final's row is written: the object is the file's for good (this state is forgotten in time). */
  async confirm(request: { finalId: string; now?: number }): Promise<boolean> {
    const state = this.#state();
    if (!state?.claim || state.claim.finalId !== request.finalId) return false;
    await this.#confirm(state, request.now ?? Date.now());
    return true;
  }

  /** The final failed before its row: the partial is free again (and expires as before). */
  async unclaim(request: { finalId: string }): Promise<void> {
    const state = this.#state();
    if (!state?.claim || state.claim.finalId !== request.finalId || state.claim.confirmed) return;
    state.claim = null;
    this.#save(state);
    await this.ctx.storage.setAlarm(state.expiresAt);
  }

  async #confirm(state: State, now: number): Promise<void> {
    if (!state.claim) return;
    state.claim.confirmed = true;
    // Nothing is left to give back: the reservation became the file's, the object is the file's.
    state.cleaned = true;
    state.forgetAt = now + RETAIN_MS;
    this.#save(state);
    await this.ctx.storage.setAlarm(state.forgetAt);
  }

  /** Terminates an active upload (or forgets a completed one): everything it held is given back. */
  async terminate(request: { accountId: string; now?: number }): Promise<UploadView | { status: 'not-found' }> {
    const now = request.now ?? Date.now();
    const state = await this.#current(now);
    if (!state || ownerOf(state) !== request.accountId) return { status: 'not-found' };
    if (state.status === 'active') await this.#finish(state, 'terminated', now);
    else if (state.status === 'completed' && state.concat) {
      // A complete partial: its object and reservation go, unless a final upload took it.
      if (!state.claim) await this.#finish(state, 'terminated', now);
    } else if (state.status === 'completed') {
      state.status = 'terminated';
      this.#save(state);
    }
    return view(state);
  }

  /** Expiry, retried cleanup, and forgetting a finished upload. */
  override async alarm(): Promise<void> {
    const now = Date.now();
    const state = await this.#current(now);
    if (!state) return;
    if (state.status === 'active') {
      // Still running (a PATCH holds the lease, or the upload has not expired yet).
      await this.ctx.storage.setAlarm(Math.max(state.lease?.until ?? 0, Math.min(state.expiresAt, state.deadline)));
      return;
    }
    if (state.status === 'completed' && state.concat && !state.claim?.confirmed) {
      if (await this.#partialWaits(state, now)) return;
    }
    if (!state.cleaned) await this.#cleanUp(state, now);
    if (!state.cleaned) return;
    if (state.forgetAt !== null && state.forgetAt <= now) {
      await this.ctx.storage.deleteAll();
      return;
    }
    await this.ctx.storage.setAlarm(state.forgetAt ?? now + RETAIN_MS);
  }

  /**
   * A complete partial that is not (yet) a final's: it waits for its expiry, or for the final
   * that claimed it. A claim left pending past CLAIM_TIMEOUT_MS is settled from D1: confirmed
   * if the final's row names this object, else given up. True while it still waits.
   */
  async #partialWaits(state: State, now: number): Promise<boolean> {
    const claim = state.claim;
    if (!claim) {
      await this.ctx.storage.setAlarm(state.expiresAt);
      return true;
    }
    if (now < claim.at + CLAIM_TIMEOUT_MS) {
      await this.ctx.storage.setAlarm(claim.at + CLAIM_TIMEOUT_MS);
      return true;
    }
    try {
      if (await segmentReferenced(this.env.DB, state.r2Key)) {
        await this.#confirm(state, now);
        return false;
      }
    } catch (error) {
      log('error', 'partial upload claim not settled, retrying', { uploadId: state.id, error: String(error) });
      await this.ctx.storage.setAlarm(now + RETRY_CLEANUP_MS);
      return true;
    }
    state.claim = null;
    this.#save(state);
    await this.ctx.storage.setAlarm(Math.max(state.expiresAt, now));
    return true;
  }

  /** The state, with an upload past its expiry (and not being written) expired first. */
  async #current(now: number): Promise<State | undefined> {
    const state = this.#state();
    // A complete partial no final took expires like an unfinished upload.
    if (state?.status === 'completed' && state.concat && !state.claim && now >= state.expiresAt) {
      await this.#finish(state, 'expired', now);
      return state;
    }
    if (state?.status !== 'active') return state;
    const leased = state.lease !== null && state.lease.until > now;
    if (!leased && now >= Math.min(state.expiresAt, state.deadline)) await this.#finish(state, 'expired', now);
    return state;
  }

  async #finish(state: State, status: Exclude<UploadStatus, 'active'>, now: number): Promise<void> {
    state.status = status;
    state.lease = null;
    state.e2eHeader = null;
    state.forgetAt = now + RETAIN_MS;
    this.#save(state);
    await this.#cleanUp(state, now);
  }

  /**
   * Gives back what the upload held: its R2 multipart upload (unless it became the file), its
   * tail objects and its reservation. A failure is retried by the alarm.
   */
  async #cleanUp(state: State, now: number): Promise<void> {
    try {
      if (state.status !== 'completed') {
        if (state.multipartId && !state.etag) await abortMultipart(this.env.FILES, state.r2Key, state.multipartId);
        if (state.concat) await this.#dropPartialObject(state);
        await releaseHold(this.env.ACCOUNT_STORAGE, ownerOf(state), state.holdId, { rethrow: true });
      }
      await deletePrefix(this.env.FILES, tailPrefix(state.id));
      state.cleaned = true;
      this.#save(state);
      this.ctx.storage.sql.exec('DELETE FROM parts');
      await this.ctx.storage.setAlarm(state.forgetAt ?? now + RETAIN_MS);
    } catch (error) {
      log('error', 'upload cleanup failed, retrying', { uploadId: state.id, error: String(error) });
      await this.ctx.storage.setAlarm(now + RETRY_CLEANUP_MS);
    }
  }

  /**
   * A partial upload ended without a final: its object goes (it may have completed even if
   * the state never heard). Never one a file's segment names: that is the file's.
   */
  async #dropPartialObject(state: State): Promise<void> {
    if (await segmentReferenced(this.env.DB, state.r2Key)) {
      log('error', 'ended partial upload is a file segment, object kept', { uploadId: state.id });
      return;
    }
    await this.env.FILES.delete(state.r2Key);
  }

  #state(): State | undefined {
    return this.ctx.storage.kv.get<State>(STATE_KEY);
  }

  #save(state: State): void {
    this.ctx.storage.kv.put(STATE_KEY, state);
  }

  #snapshot(state: State): UploadSnapshot {
    return {
      ...view(state),
      accountId: ownerOf(state),
      r2Key: state.r2Key,
      partSize: state.partSize,
      multipartId: state.multipartId,
      partCount: state.partCount,
      tail: state.tail,
      mimeType: state.mimeType,
      // A state from before digests: an upload that has not started can still be hashed whole.
      // A partial's bytes are never a file's on their own: nothing to hash (see concat.ts).
      hash: state.concat ? null : (state.hash ?? (state.offset === 0 ? new Sha256().save() : null)),
      // Likewise for the CRC-32, which a partial keeps too: its final combines the partials'.
      crc32: state.crc32 ?? (state.offset === 0 ? 0 : null),
      meta: state.meta,
      holdId: state.holdId,
      deadline: state.deadline,
      e2eHeader: state.e2eHeader ?? null,
    };
  }
}

const view = (state: State): UploadView => ({
  id: state.id,
  status: state.status,
  length: state.length,
  offset: state.offset,
  metadata: state.metadata,
  expiresAt: Math.min(state.expiresAt, state.deadline),
  ...(state.concat ? { concat: state.concat, claimed: Boolean(state.claim) } : {}),
});

/** Aborts an R2 multipart upload; one that no longer exists (completed or aborted before) is fine. */
async function abortMultipart(bucket: R2Bucket, key: string, uploadId: string): Promise<void> {
  try {
    await bucket.resumeMultipartUpload(key, uploadId).abort();
  } catch (error) {
    if (/NoSuchUpload|does not exist|not found/i.test(String(error))) return;
    throw error;
  }
}

/** Deletes every object under a prefix (a tus upload's tail objects: a handful at most). */
export async function deletePrefix(bucket: R2Bucket, prefix: string): Promise<void> {
  let cursor: string | undefined;
  do {
    const page = await bucket.list({ prefix, cursor });
    if (page.objects.length > 0) await bucket.delete(page.objects.map((object) => object.key));
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor);
}
