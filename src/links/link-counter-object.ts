import { DurableObject } from 'cloudflare:workers';
import { flushLinkCount } from '../storage/links-repo';
import type { ClaimRequest, ClaimResult, CountView, WindowRequest, WindowResult } from './link-counter-contract';

type CountState = { linkId: string; count: number; flushed: number; last: string | null };
type WindowState = { start: number; count: number };

/** How long a counted download may wait before D1 hears of it: one D1 write per link per this. */
export const FLUSH_DELAY_MS = 5_000;

/**
 * One object per share link (named by the link's id): the serialised owner of its download
 * count. A claim checks the cap and counts in one step, so a cap of N lets exactly N downloads
 * through however many arrive at once. D1 (share_links.download_count, and the file's
 * download_count) learns the count from an alarm a few seconds later, so a busy link costs D1
 * one write per FLUSH_DELAY_MS, not one per download; the owner's view reads the count here.
 * The object also counts wrong passwords for its link.
 */
export class LinkCounter extends DurableObject<Env> {
  /** Counts one download unless the link is exhausted. */
  async claim(request: ClaimRequest): Promise<ClaimResult> {
    const state = this.#state(request.linkId, request.seed);
    if (request.max !== null && state.count >= request.max) return { ok: false, count: state.count };
    state.count += 1;
    state.last = new Date(request.now ?? Date.now()).toISOString();
    this.ctx.storage.kv.put('count', state);
    const count = state.count;
    await this.#scheduleFlush();
    return { ok: true, count };
  }

  /** The exact count (and last download) without counting. */
  peek(request: { linkId: string; seed: number }): CountView {
    const state = this.#state(request.linkId, request.seed);
    return { count: state.count, lastDownloadedAt: state.last };
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
    this.#alarmSet = false;
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

  #state(linkId: string, seed: number): CountState {
    const stored = this.ctx.storage.kv.get<CountState>('count');
    if (stored) {
      // D1 can only be ahead if this object's storage was lost: never count below it.
      if (seed > stored.count) stored.count = seed;
      return stored;
    }
    return { linkId, count: seed, flushed: seed, last: null };
  }

  #alarmSet = false;

  async #scheduleFlush(): Promise<void> {
    if (this.#alarmSet) return;
    if ((await this.ctx.storage.getAlarm()) === null) await this.ctx.storage.setAlarm(Date.now() + FLUSH_DELAY_MS);
    this.#alarmSet = true;
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
