// The only code that talks to a request's Durable Object.

import type { AccessPage, AppendRequest, PageRequest } from '../access-log/access-log-contract';
import { type AccountsNamespace, QuotaTicket } from '../accounts/account-storage-client';
import type { AccountFile, StorageOwner } from '../accounts/account-storage-contract';
import { ApiError } from '../errors';
import { formatBytes } from '../lib/format';
import { log } from '../log';
import type { RequestCounts, RequestLimits, SlotGrant, SlotResult, WindowResult } from './request-counter-contract';
import type { FileRequestCounter } from './request-counter-object';

export type CounterNamespace = DurableObjectNamespace<FileRequestCounter>;
export type CounterStub = DurableObjectStub<FileRequestCounter>;

export const counterOf = (namespace: CounterNamespace, requestId: string): CounterStub =>
  namespace.getByName(requestId);

const unavailable = (cause: unknown) =>
  new ApiError('SERVICE_UNAVAILABLE', 'The file request cannot be reached, try again', { cause });

/** The 413 for a file that does not fit in what the request may still take. */
export const overRequestBytes = (maxBytes: number | null) =>
  new ApiError(
    'FILE_TOO_LARGE',
    `The file does not fit in what this request can still take (at most ${maxBytes} bytes (${formatBytes(maxBytes ?? 0)}) in all)`,
  );

/** Calls the request's object; an unreachable object is a 503 (nothing is kept without it). */
export async function onCounter<T>(stub: CounterStub, work: (stub: CounterStub) => Promise<T>): Promise<T> {
  try {
    return await work(stub);
  } catch (error) {
    if (error instanceof ApiError) throw error;
    throw unavailable(error);
  }
}

/** Gives a hold back; a failure is logged (the hold lapses at its end anyway). */
export async function releaseSlot(stub: CounterStub, holdId: string, ended = false): Promise<void> {
  await stub
    .release(holdId, ended)
    .catch((error: unknown) => log('error', 'request hold not released', { error: String(error) }));
}

/** Counts one event in a window of the request's object (`count` false: only reads it). */
export async function hitWindow(
  stub: CounterStub,
  request: { scope: string; limit: number; windowSeconds: number; count?: boolean },
): Promise<WindowResult | undefined> {
  try {
    return await stub.hit(request);
  } catch (error) {
    // Throttling fails open: an unreachable counter must not stop honest uploads.
    log('error', 'request throttle unreachable', { scope: request.scope, error: String(error) });
    return undefined;
  }
}

/** Where a request's visits are logged (recordVisits, src/http/visit-log.ts): its own object. */
export const requestLogs =
  (env: { FILE_REQUESTS: CounterNamespace }) =>
  async (log: { type: string; id: string }, batch: AppendRequest): Promise<void> => {
    if (log.type !== 'request') throw new Error(`no request log of a ${log.type}`);
    await counterOf(env.FILE_REQUESTS, log.id).appendAccess(batch);
  };

/** A page of a request's access log, newest first. */
export const requestAccessPage = (
  namespace: CounterNamespace,
  requestId: string,
  request: PageRequest,
): Promise<AccessPage> => counterOf(namespace, requestId).accessPage(request);

const MIN_AHEAD = 256 * 1024;
const MAX_AHEAD = 8 * 1024 * 1024;

/**
 * The storage one upload through a request may use: the owner's quota (the QuotaTicket it
 * extends) and the request's slots and bytes (its object). A slot is held before a file is read,
 * with the file's declared length when it has one; the bytes of a file without one are held as
 * they arrive, with headroom the object grants but does not hold (so uploads arriving together
 * that fit are all admitted). Before anything counts, the hold becomes exactly the files'
 * bytes, so neither the request nor the account ever takes more than its limits, however many
 * uploads run at once. `checkSize` is the rule each file's size must pass (a request's exact size,
 * limits.ts): on a declared length before the slot is held, on every file before its commit.
 */
export class RequestTicket extends QuotaTicket {
  readonly #stub: CounterStub;
  readonly #limits: RequestLimits;
  readonly #until: number;
  readonly #checkSize: (size: number) => void;
  #grant: SlotGrant | undefined;
  /** What the object holds for this upload (the grant may reach further). */
  #held = { files: 0, bytes: 0 };
  readonly #needs = new Map<string, number>();
  /** Slots held for files not read yet: each one's declared length (0 when unknown). */
  #pending: number[] = [];

  constructor(
    accounts: AccountsNamespace,
    owner: StorageOwner,
    stub: CounterStub,
    limits: RequestLimits,
    until: number,
    checkSize: (size: number) => void = () => undefined,
  ) {
    super(accounts, owner);
    this.#stub = stub;
    this.#limits = limits;
    this.#until = until;
    this.#checkSize = checkSize;
  }

  /**
   * One more file is about to be read: holds its slot, and its `declared` length (a raw body's
   * Content-Length) so that a file that cannot fit is refused before its first byte. A declared
   * length `checkSize` refuses is refused before the slot; 410 REQUEST_FULL when there is no slot,
   * 413 when the length does not fit.
   */
  async slot(declared?: number): Promise<void> {
    if (declared !== undefined) this.#checkSize(declared);
    this.#pending.push(declared ?? 0);
    try {
      await this.#reserve();
    } catch (error) {
      this.#pending.pop();
      throw error;
    }
  }

  override async need(file: string, bytes: number): Promise<void> {
    // The file takes the oldest pending slot (files are read one after another).
    if (!this.#needs.has(file)) this.#pending.shift();
    this.#needs.set(file, bytes);
    try {
      await this.#reserve();
    } catch (error) {
      this.#needs.delete(file);
      throw error;
    }
    await super.need(file, bytes);
  }

  override drop(file: string): void {
    this.#needs.delete(file);
    super.drop(file);
  }

  /**
   * Each file's size is checked (`checkSize`), then the hold becomes exactly these files, then the
   * owner's account commits them: 413 when they no longer fit (other uploads took room this one
   * read into as headroom), and nothing counts. A refusal here leaves the blobs to the session to
   * delete and the hold to its release.
   */
  override async commit(files: AccountFile[]): ReturnType<QuotaTicket['commit']> {
    for (const file of files) this.#checkSize(file.size);
    const bytes = files.reduce((sum, file) => sum + file.size, 0);
    if (!this.#grant || files.length > this.#held.files || bytes > this.#held.bytes) {
      await this.#hold(files.length, bytes, 0);
    }
    return super.commit(files);
  }

  /** The files were recorded: they count for the request now. Returns the request's counts. */
  async received(files: { id: string; size: number }[]): Promise<RequestCounts | undefined> {
    const holdId = this.#grant?.id;
    this.#forget();
    if (!holdId) return undefined;
    return onCounter(this.#stub, async (stub): Promise<RequestCounts> => stub.commit({ holdId, files }));
  }

  override async release(): Promise<void> {
    const holdId = this.#grant?.id;
    this.#forget();
    await Promise.all([holdId ? releaseSlot(this.#stub, holdId) : undefined, super.release()]);
  }

  #forget(): void {
    this.#grant = undefined;
    this.#held = { files: 0, bytes: 0 };
    this.#needs.clear();
    this.#pending = [];
  }

  /** Holds the slots and bytes of every file being read or about to be; asks only past the grant. */
  async #reserve(): Promise<void> {
    let bytes = 0;
    for (const value of this.#needs.values()) bytes += value;
    for (const value of this.#pending) bytes += value;
    const files = this.#needs.size + this.#pending.length;
    if (this.#grant && files <= this.#grant.files && bytes <= this.#grant.bytes) return;
    await this.#hold(files, bytes, Math.min(MAX_AHEAD, Math.max(MIN_AHEAD, Math.floor(bytes / 8))));
  }

  async #hold(files: number, bytes: number, aheadBytes: number): Promise<void> {
    const limits = this.#limits;
    const result: SlotResult = await onCounter(this.#stub, (stub) =>
      stub.reserve({ holdId: this.#grant?.id, files, bytes, aheadBytes, limits, until: this.#until }),
    );
    if (result.grant) {
      this.#grant = result.grant;
      this.#held = { files, bytes };
      return;
    }
    if (result.full === 'files') throw new ApiError('REQUEST_FULL');
    throw overRequestBytes(limits.maxBytes);
  }
}
