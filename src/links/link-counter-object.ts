import { DurableObject } from 'cloudflare:workers';
import type { AccessPage, AppendRequest, PageRequest } from '../access-log/access-log-contract';
import { AccessLogTable } from '../access-log/access-log-table';
import { getConfig } from '../config';
import { flushFileDownloads } from '../storage/files-repo';
import { flushLinkCount } from '../storage/links-repo';
import {
  admits,
  type CountView,
  type FileCountRequest,
  type GiveBackRequest,
  isSpent,
  type PeekRequest,
  type ReserveRequest,
  type ReserveResult,
  remainingBytes,
  type WindowRequest,
  type WindowResult,
} from './link-counter-contract';

/**
 * A made link's state. `served`: bytes reserved by responses and not given back (the cap's
 * budget). The length of what the link shares is not kept: every caller says it as it is now (a
 * collection's archive changes with its members). Objects written before kept it as `size`.
 */
type CountState = {
  linkId: string;
  count: number;
  flushed: number;
  last: string | null;
  served?: number;
};
/** A default link's downloads not yet added to its file's row. */
type FileCountState = { fileId: string; pending: number; last: string };
type WindowState = { start: number; count: number };

/** How long a counted download may wait before D1 hears of it: one D1 write per link per this. */
export const FLUSH_DELAY_MS = 5_000;

/**
 * One object per share link: a made link (named by its id) or a file's default link (named
 * `file:<fileId>`). The serialised owner of the link's download count and, for a capped link, of
 * its byte budget: a reservation checks the budget and takes from it in one step, so a cap of N
 * never serves more than N × the file's size however many requests arrive at once. D1
 * (share_links.download_count, and the file's download_count) learns the count from an alarm a
 * few seconds later, so a busy link costs D1 one write per FLUSH_DELAY_MS, not one per download;
 * the owner's view reads the count here. The object also counts wrong passwords for its link,
 * and keeps its link's access log (src/access-log/access-log-table.ts) in its own SQLite.
 */
export class LinkCounter extends DurableObject<Env> {
  /** Reserves a response's bytes (and counts a whole download) unless the budget is spent. */
  async reserve(request: ReserveRequest): Promise<ReserveResult> {
    const state = this.#state(request.linkId, request.seed, request.size);
    const served = state.served ?? 0;
    if (!admits({ count: state.count, served }, request.max, request.size, request.bytes)) {
      return { ok: false, count: state.count, exhausted: false };
    }
    const wasSpent = isSpent({ count: state.count, served }, request.max, request.size);
    state.served = served + request.bytes;
    if (request.counts) {
      state.count += 1;
      state.last = new Date(request.now ?? Date.now()).toISOString();
    }
    this.ctx.storage.kv.put('count', state);
    const count = state.count;
    if (request.counts) await this.#scheduleFlush();
    const exhausted = !wasSpent && isSpent({ count, served: state.served }, request.max, request.size);
    return { ok: true, count, exhausted };
  }

  /** Returns unsent bytes to the budget (a response whose client broke off). */
  giveBack(request: GiveBackRequest): void {
    const state = this.ctx.storage.kv.get<CountState>('count');
    if (!state || request.bytes <= 0) return;
    state.served = Math.max(0, (state.served ?? 0) - request.bytes);
    this.ctx.storage.kv.put('count', state);
  }

  /**
   * The exact count (and last download), what the budget still allows over `size` bytes and
   * whether it is spent, and the log's summary, without counting.
   */
  peek(request: PeekRequest): CountView {
    const state = this.#state(request.linkId, request.seed, request.size);
    const spent = { count: state.count, served: state.served ?? 0 };
    return {
      count: state.count,
      lastDownloadedAt: state.last,
      exhausted: isSpent(spent, request.max, request.size),
      remaining: remainingBytes(spent, request.max, request.size),
      access: this.#log().summary(request.now),
    };
  }

  /** Adds a batch of the link's access events (and the count of those dropped on the way). */
  async appendAccess(request: AppendRequest): Promise<void> {
    const expires = this.#log().append(request);
    if (expires !== null) await this.#wakeBy(expires);
  }

  /** A page of the link's access log, newest first. */
  accessPage(request: PageRequest): AccessPage {
    return this.#log().page(request);
  }

  /** One counted download through a file's default link (no cap), added to its row by the alarm. */
  async countFileDownload(request: FileCountRequest): Promise<void> {
    const stored = this.ctx.storage.kv.get<FileCountState>('file');
    const last = new Date(request.now ?? Date.now()).toISOString();
    this.ctx.storage.kv.put('file', { fileId: request.fileId, pending: (stored?.pending ?? 0) + 1, last });
    await this.#scheduleFlush();
  }

  /** Whether wrong passwords for this link are over their allowance right now. */
  passwordBlocked(request: WindowRequest): WindowResult {
    return this.#window(request, false);
  }

  /** Records a wrong password; `blocked` once the link has had `limit` in the window. */
  passwordFailed(request: WindowRequest): WindowResult {
    return this.#window(request, true);
  }

  override async alarm(): Promise<void> {
    this.#alarmAt = null;
    await Promise.all([this.#flushLink(), this.#flushFile()]);
    // Events past the retention period go even when nobody visits or reads the log any more.
    const log = this.#log();
    log.prune();
    const expires = log.nextExpiry();
    if (expires !== null) await this.#wakeBy(expires);
  }

  async #flushLink(): Promise<void> {
    const state = this.ctx.storage.kv.get<CountState>('count');
    if (!state || state.count <= state.flushed) return;
    const { count, last } = state;
    // Downloads may be counted while D1 answers: only what was sent is marked flushed.
    await flushLinkCount(this.env.DB, state.linkId, count, last);
    const now = this.ctx.storage.kv.get<CountState>('count') ?? state;
    now.flushed = Math.max(now.flushed, count);
    this.ctx.storage.kv.put('count', now);
    if (now.count > now.flushed) await this.#scheduleFlush();
  }

  async #flushFile(): Promise<void> {
    const state = this.ctx.storage.kv.get<FileCountState>('file');
    if (!state || state.pending <= 0) return;
    const sent = state.pending;
    await flushFileDownloads(this.env.DB, state.fileId, sent);
    // Downloads counted while D1 answered stay pending for the next alarm.
    const now = this.ctx.storage.kv.get<FileCountState>('file') ?? state;
    now.pending -= sent;
    this.ctx.storage.kv.put('file', now);
    if (now.pending > 0) await this.#scheduleFlush();
  }

  #state(linkId: string, seed: number, size: number): CountState {
    const stored = this.ctx.storage.kv.get<CountState>('count');
    if (stored) {
      // D1 can only be ahead if this object's storage was lost: never count below it.
      if (seed > stored.count) stored.count = seed;
      // A link counted before budgets existed: each download it gave was whole.
      if (stored.served === undefined) stored.served = stored.count * size;
      return stored;
    }
    return { linkId, count: seed, flushed: seed, last: null, served: seed * size };
  }

  #accessLog: AccessLogTable | undefined;

  #log(): AccessLogTable {
    this.#accessLog ??= new AccessLogTable(this.ctx.storage, getConfig(this.env).ACCESS_LOG_RETENTION_DAYS);
    return this.#accessLog;
  }

  /** When the one alarm is set for (ms), null: none; undefined: not read yet. */
  #alarmAt: number | null | undefined;

  /** The alarm serves the flush and the log's retention: it is set for the earlier of what each needs. */
  async #wakeBy(at: number): Promise<void> {
    if (this.#alarmAt === undefined) this.#alarmAt = await this.ctx.storage.getAlarm();
    if (this.#alarmAt !== null && this.#alarmAt <= at) return;
    await this.ctx.storage.setAlarm(at);
    this.#alarmAt = at;
  }

  #scheduleFlush(): Promise<void> {
    return this.#wakeBy(Date.now() + FLUSH_DELAY_MS);
  }

  #window(request: WindowRequest, fail: boolean): WindowResult {
    const now = request.now ?? Date.now();
    const windowMs = request.windowSeconds * 1000;
    const start = Math.floor(now / windowMs) * windowMs;
    const stored = this.ctx.storage.kv.get<WindowState>('password');
    let count = stored && stored.start === start ? stored.count : 0;
    if (fail) {
      count += 1;
      this.ctx.storage.kv.put('password', { start, count } satisfies WindowState);
    }
    return { blocked: count >= request.limit, reset: Math.ceil((start + windowMs) / 1000) };
  }
}
