import { DurableObject } from 'cloudflare:workers';
import { releaseHold } from '../accounts/account-storage-client';
import { Sha256, type Sha256State } from '../lib/sha256';
import { log } from '../log';
import { tailPrefix } from './protocol';

/** What the Worker decided from Upload-Metadata at creation (validated like the multipart form's fields). */
export type UploadMeta = {
  /** The cleaned original name (src/files/names.ts). */
  originalName: string;
  /** `filetype`, as declared. */
  declaredType: string | undefined;
  isPublic: boolean;
  expiresInSeconds: number | undefined;
  /** `sha256` from Upload-Metadata: the whole file's SHA-256 (hex) as the client asserts it. */
  sha256?: string | undefined;
};

export type CreateUpload = {
  id: string;
  /** The owner: any key of this account may resume the upload. */
  accountId: string;
  length: number;
  /** The raw Upload-Metadata header, echoed on HEAD. */
  metadata: string | undefined;
  meta: UploadMeta;
  r2Key: string;
  partSize: number;
  /** The account's reservation of `length` bytes and one file (AccountStorage). */
  holdId: string;
  expiresAt: number;
  /** The latest the upload may live, however often it is resumed (R2 aborts multipart uploads after 7 days). */
  deadline: number;
  now?: number;
};

export type UploadStatus = 'active' | 'completed' | 'terminated' | 'expired';

type Tail = { key: string; size: number };

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
  lease: { token: string; until: number } | null;
  /** Whether everything the upload held (R2 multipart, tail objects, the reservation) is given back. */
  cleaned: boolean;
  /** When a finished upload's record is forgotten (then 404 instead of 410, HEAD from D1). */
  forgetAt: number | null;
};

/** Uploads created before accounts name their key, whose id is its account's. */
const ownerOf = (state: State) => state.accountId ?? (state as { keyId?: string }).keyId ?? '';

/** What a request may see of an upload. */
export type UploadView = {
  id: string;
  status: UploadStatus;
  length: number;
  offset: number;
  metadata: string | undefined;
  expiresAt: number;
};

/** Everything a PATCH needs to continue the upload. */
export type UploadSnapshot = UploadView & {
  accountId: string;
  r2Key: string;
  partSize: number;
  multipartId: string | null;
  partCount: number;
  tail: Tail | null;
  mimeType: string | null;
  hash: Sha256State | null;
  meta: UploadMeta;
  holdId: string;
  deadline: number;
};

export type BeginResult =
  | { status: 'ok'; lease: string; upload: UploadSnapshot }
  | { status: 'not-found' }
  | { status: 'gone' }
  | { status: 'completed' | 'conflict' | 'busy'; offset: number; length: number };

export type Progress = {
  lease: string;
  offset: number;
  parts: R2UploadedPart[];
  tail: Tail | null;
  /** The part size the upload's first PATCH chose (part-writer.ts); kept only from that PATCH. */
  partSize?: number;
  mimeType: string | null;
  /** The hash state after this PATCH's bytes. */
  hash: Sha256State | null;
  expiresAt: number;
};

const STATE_KEY = 'upload';
/** A PATCH's lease lasts this long past its last sign of life (see docs/limits.md, tus). */
export const LEASE_TTL_MS = 2 * 60 * 1000;
/** How long a finished upload is remembered: 410 for a terminated or expired one, then 404. */
export const RETAIN_MS = 7 * 24 * 60 * 60 * 1000;
const RETRY_CLEANUP_MS = 60 * 1000;

/**
 * One object per tus upload (named by the upload's id, which becomes the file's id). It keeps
 * the upload's state and serialises its PATCHes: a PATCH takes a lease at the upload's offset
 * (anything else is a conflict), streams its bytes into R2 parts, and reports the new offset to
 * end the lease. Its alarm expires an abandoned upload: the R2 multipart upload is aborted, the
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
      mimeType: null,
      hash: new Sha256().save(),
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
    if (state.status === 'completed') return { status: 'completed', offset: state.offset, length: state.length };
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

  /** The parts uploaded so far, in order: what completing the R2 multipart upload needs. */
  parts(request: { lease: string }): R2UploadedPart[] {
    const state = this.#state();
    if (!state || state.lease?.token !== request.lease) throw new Error('lease lost');
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
    // Set by the PATCH that stored the first bytes; once parts exist their size never changes.
    if (state.offset === 0 && progress.partSize !== undefined) state.partSize = progress.partSize;
    state.partCount = Math.max(state.partCount, ...progress.parts.map((part) => part.partNumber));
    state.offset = progress.offset;
    state.tail = progress.tail;
    state.mimeType = progress.mimeType;
    state.hash = progress.hash;
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
    // The file's commit ended the reservation; the multipart upload is now the file.
    await this.#finish(state, 'completed', request.now ?? Date.now());
    return true;
  }

  /** Terminates an active upload (or forgets a completed one): everything it held is given back. */
  async terminate(request: { accountId: string; now?: number }): Promise<UploadView | { status: 'not-found' }> {
    const now = request.now ?? Date.now();
    const state = await this.#current(now);
    if (!state || ownerOf(state) !== request.accountId) return { status: 'not-found' };
    if (state.status === 'active') await this.#finish(state, 'terminated', now);
    else if (state.status === 'completed') {
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
    if (!state.cleaned) await this.#cleanUp(state, now);
    if (!state.cleaned) return;
    if (state.forgetAt !== null && state.forgetAt <= now) {
      await this.ctx.storage.deleteAll();
      return;
    }
    await this.ctx.storage.setAlarm(state.forgetAt ?? now + RETAIN_MS);
  }

  /** The state, with an upload past its expiry (and not being written) expired first. */
  async #current(now: number): Promise<State | undefined> {
    const state = this.#state();
    if (state?.status !== 'active') return state;
    const leased = state.lease !== null && state.lease.until > now;
    if (!leased && now >= Math.min(state.expiresAt, state.deadline)) await this.#finish(state, 'expired', now);
    return state;
  }

  async #finish(state: State, status: Exclude<UploadStatus, 'active'>, now: number): Promise<void> {
    state.status = status;
    state.lease = null;
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
        if (state.multipartId) await abortMultipart(this.env.FILES, state.r2Key, state.multipartId);
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
      hash: state.hash ?? (state.offset === 0 ? new Sha256().save() : null),
      meta: state.meta,
      holdId: state.holdId,
      deadline: state.deadline,
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
