// What one upload request owns until its rows are written: blobs in R2, R2 multipart uploads,
// a storage hold. If the request fails, times out or its client goes away, all of it is given
// back, from ctx.waitUntil so the cleanup outlives the request. Every upload path (a form, a bulk
// form, a raw body, a file request, a tus upload's last byte) opens its session with openUpload.

import type { AccountsNamespace, QuotaTicket } from '../accounts/account-storage-client';
import { type Config, uploadTimeoutMs } from '../config';
import type { E2eAdmission } from '../e2e/age-checks';
import { ApiError } from '../errors';
import type { EventSink } from '../events/emit';
import { log } from '../log';
import type { ScanQueue } from '../scanning/scan-queue';
import type { UploadOwner } from './upload-owner';

/** What an upload needs before it starts: storage, the rules it runs under, its owner, its request's lifetime. */
export type UploadContext = {
  bucket: R2Bucket;
  db: D1Database;
  accounts: AccountsNamespace;
  /** Every recorded file is a file.uploaded event of its account. */
  events: EventSink;
  /** Where a recorded file's scan is queued (SCANNER, SCAN_MODE: src/scanning/scan-queue.ts). */
  scans: ScanQueue;
  /** The server's configuration, or a file request's narrowing of it (MAX_FILE_SIZE, ALLOWED_FILE_TYPES). */
  config: Config;
  owner: UploadOwner;
  /** Whether this way in takes age files (the account's policy), and only them (an e2e file request). */
  e2e: E2eAdmission;
  /** Fires when the client goes away (request.signal, with the enable_request_signal flag). */
  signal?: AbortSignal;
  waitUntil: (promise: Promise<unknown>) => void;
};

/** An upload under way: its context and its session. */
export type UploadDeps = Omit<UploadContext, 'signal' | 'waitUntil'> & { session: UploadSession };

/**
 * Opens an upload for its owner: a session with the request's deadline (UPLOAD_TIMEOUT_SECONDS
 * from now) whose storage is `quota`, the owner's ticket (with what was held for it already: a
 * grant at admission, a tus reservation, a file request's slots).
 */
export function openUpload(context: UploadContext, quota: QuotaTicket): UploadDeps {
  const { bucket, db, accounts, events, scans, config, owner, e2e } = context;
  const session = new UploadSession({
    bucket,
    quota,
    deadline: Date.now() + uploadTimeoutMs(config),
    timeoutSeconds: config.UPLOAD_TIMEOUT_SECONDS,
    signal: context.signal,
    waitUntil: context.waitUntil,
  });
  return { bucket, db, accounts, events, scans, config, owner, e2e, session };
}

type SessionOptions = {
  bucket: R2Bucket;
  quota: QuotaTicket;
  /** The request's deadline (ms since the epoch): past it the upload records nothing. */
  deadline: number;
  timeoutSeconds: number;
  signal?: AbortSignal;
  waitUntil: (promise: Promise<unknown>) => void;
};

/** Opened by openUpload (never by hand: the deadline and the cleanup's waitUntil are its to set). */
export class UploadSession {
  readonly #options: SessionOptions;
  /** Blobs written (or being written) and not yet recorded, with how to abort a multipart upload. */
  readonly #owned = new Map<string, (() => Promise<void>) | undefined>();
  #recording: Promise<unknown> | undefined;
  #ended: Promise<void> | undefined;
  #resolveEnded: (work: Promise<void>) => void = () => undefined;

  constructor(options: SessionOptions) {
    this.#options = options;
    // Registered up front: if the request is cancelled, the continuation that would clean up
    // never runs, but this promise keeps the invocation alive until the cleanup is done.
    options.waitUntil(
      new Promise<void>((resolve) => {
        this.#resolveEnded = (work) => resolve(work);
      }),
    );
    options.signal?.addEventListener('abort', () => void this.finish(), { once: true });
  }

  get quota(): QuotaTicket {
    return this.#options.quota;
  }

  /** A blob about to be written: it belongs to this request until recorded. */
  own(key: string, abort?: () => Promise<void>): void {
    this.check();
    this.#owned.set(key, abort);
  }

  /** The blob was removed (or its write aborted) by its writer. */
  disown(key: string): void {
    this.#owned.delete(key);
  }

  /** Throws when the request may no longer store anything: its client left, or its time is up. */
  check(): void {
    if (this.#ended) throw new ApiError('UPLOAD_FAILED', 'The upload was cancelled');
    if (Date.now() > this.#options.deadline) {
      throw new ApiError(
        'REQUEST_TIMEOUT',
        `The upload took longer than ${this.#options.timeoutSeconds} seconds; nothing was stored`,
      );
    }
  }

  /**
   * Runs the step that makes blobs permanent (quota commit, then rows). `recorded` hands over
   * the blobs that now have rows. A cleanup that starts meanwhile waits for the step, then
   * spares what it recorded.
   */
  async record<T>(work: (recorded: (keys: string[]) => void) => Promise<T>): Promise<T> {
    this.check();
    const running = work((keys) => {
      for (const key of keys) this.#owned.delete(key);
    });
    this.#recording = running.then(
      () => undefined,
      () => undefined,
    );
    return running;
  }

  /**
   * The request is over (answered, failed or cancelled): blobs it still owns (files that were
   * refused, or all of them on failure) are deleted and its hold is released. Idempotent.
   */
  finish(): Promise<void> {
    return this.#end(this.#cleanUp());
  }

  #end(work: Promise<void>): Promise<void> {
    this.#ended ??= work;
    this.#resolveEnded(this.#ended);
    return this.#ended;
  }

  async #cleanUp(): Promise<void> {
    await this.#recording;
    const owned = [...this.#owned];
    this.#owned.clear();
    const { bucket, quota } = this.#options;
    await Promise.all([
      ...owned.map(([, abort]) => abort?.().catch(() => undefined)),
      owned.length > 0
        ? bucket.delete(owned.map(([key]) => key)).catch((error: unknown) => {
            log('error', 'orphan blob left behind', { count: owned.length, error: String(error) });
          })
        : undefined,
      quota.release(),
    ]);
  }
}

/** Runs an upload in its session: whatever happens, the session finishes (and cleans up). */
export async function inSession<T>(session: UploadSession, upload: () => Promise<T>): Promise<T> {
  try {
    return await upload();
  } finally {
    await session.finish();
  }
}
