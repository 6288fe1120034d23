import { DurableObject } from 'cloudflare:workers';
import type { AccessPage, AppendRequest, PageRequest } from '../access-log/access-log-contract';
import { AccessLogTable } from '../access-log/access-log-table';
import { getConfig } from '../config';
import type {
  CommitResult,
  RequestCounts,
  SlotGrant,
  SlotRequest,
  SlotResult,
  WindowResult,
} from './request-counter-contract';

type Hold = { files: number; bytes: number; until: number };
/** `ended`: the latest uploads ended before their last byte (so a late request to one is told why). */
type State = { files: number; bytes: number; received: string[]; holds: Record<string, Hold>; ended?: string[] };

const MAX_ENDED = 1000;
type WindowState = { start: number; count: number };

const STATE_KEY = 'state';

/**
 * One object per file request (named by the request's id): the serialised owner of its counts.
 * An upload holds a slot (one file) and the bytes it has read before it keeps anything; the slot
 * becomes a received file at commit, or goes back at release (or when the hold lapses, if its
 * Worker died). The limits come with every call, so an owner's change applies at once. It also
 * counts the request's uploads and failed passwords in fixed windows (throttling), and keeps the
 * request's access log (src/access-log/access-log-table.ts), pruned by its alarm.
 */
export class FileRequestCounter extends DurableObject<Env> {
  /**
   * Updates (or opens) a hold to exactly what the upload has now (a declared length, or the bytes
   * read so far); refuses when that does not fit beside the received files and other holds. The
   * grant may reach `aheadBytes` further where there is room now, but that headroom is not held:
   * holding it would refuse uploads arriving alongside that fit. An upload therefore states its
   * exact bytes again before they count anywhere (RequestTicket.commit).
   */
  reserve(request: SlotRequest): SlotResult {
    const now = request.now ?? Date.now();
    const state = this.#state(now);
    // A tus upload's hold is named by the upload's id (so its later requests find it).
    const id = request.holdId ?? crypto.randomUUID();
    let files = request.limits.maxFiles - state.files;
    let bytes = request.limits.maxBytes === null ? Number.POSITIVE_INFINITY : request.limits.maxBytes - state.bytes;
    for (const [holdId, hold] of Object.entries(state.holds)) {
      if (holdId === id) continue;
      files -= hold.files;
      bytes -= hold.bytes;
    }
    if (request.files > files) return { grant: null, full: 'files' };
    if (request.bytes > bytes) return { grant: null, full: 'bytes' };
    state.holds[id] = { files: request.files, bytes: request.bytes, until: request.until };
    this.#save(state);
    const granted = Math.max(request.bytes, Math.min(request.bytes + request.aheadBytes, bytes));
    const grant: SlotGrant = { id, files: request.files, bytes: granted };
    return { grant, full: null };
  }

  /**
   * The hold's files were received: they count from now on, and the hold ends. Idempotent per
   * file id. Returns the request's counts.
   */
  commit(request: { holdId: string; files: { id: string; size: number }[]; now?: number }): CommitResult {
    const state = this.#state(request.now ?? Date.now());
    let added = 0;
    for (const file of request.files) {
      if (state.received.includes(file.id)) continue;
      state.received.push(file.id);
      state.files += 1;
      state.bytes += file.size;
      added += 1;
    }
    delete state.holds[request.holdId];
    this.#save(state);
    return { files: state.files, bytes: state.bytes, added };
  }

  /** Gives a hold back; `ended`: its upload ended unfinished (remembered for later requests to it). */
  release(holdId: string, ended = false): void {
    const state = this.#state(Date.now());
    if (!state.holds[holdId] && !ended) return;
    delete state.holds[holdId];
    if (ended) state.ended = [...(state.ended ?? []).filter((id) => id !== holdId), holdId].slice(-MAX_ENDED);
    this.#save(state);
  }

  /** Keeps a hold alive until `until`; false when it is gone (lapsed or released). */
  renew(request: { holdId: string; until: number; now?: number }): boolean {
    const state = this.#state(request.now ?? Date.now());
    const hold = state.holds[request.holdId];
    if (!hold) return false;
    hold.until = Math.max(hold.until, request.until);
    this.#save(state);
    return true;
  }

  /** Whether an upload (a tus upload's id is its hold's id) belongs to this request. */
  knows(id: string): 'held' | 'received' | 'ended' | null {
    const state = this.#state(Date.now());
    if (state.holds[id]) return 'held';
    if (state.received.includes(id)) return 'received';
    return state.ended?.includes(id) ? 'ended' : null;
  }

  /** The ids of the holds now open (the request's unfinished uploads). */
  openHolds(): string[] {
    return Object.keys(this.#state(Date.now()).holds);
  }

  counts(): RequestCounts {
    const state = this.#state(Date.now());
    return { files: state.files, bytes: state.bytes };
  }

  /** Counts one event of `scope` in a fixed window; refused past `limit` (a refused one counts too). */
  hit(request: { scope: string; limit: number; windowSeconds: number; count?: boolean; now?: number }): WindowResult {
    return countInWindow(this.ctx.storage, request);
  }

  /** Adds a batch of the request's access events (and the count of those dropped on the way). */
  async appendAccess(request: AppendRequest): Promise<void> {
    const expires = this.#log().append(request);
    if (expires !== null) await this.#wakeBy(expires);
  }

  /** A page of the request's access log, newest first. */
  accessPage(request: PageRequest): AccessPage {
    return this.#log().page(request);
  }

  /** The only alarm: events past the retention period go even when nobody uses the request any more. */
  override async alarm(): Promise<void> {
    const log = this.#log();
    log.prune();
    const expires = log.nextExpiry();
    if (expires !== null) await this.ctx.storage.setAlarm(expires);
  }

  #accessLog: AccessLogTable | undefined;

  #log(): AccessLogTable {
    this.#accessLog ??= new AccessLogTable(this.ctx.storage, getConfig(this.env).ACCESS_LOG_RETENTION_DAYS);
    return this.#accessLog;
  }

  async #wakeBy(at: number): Promise<void> {
    const current = await this.ctx.storage.getAlarm();
    if (current === null || current > at) await this.ctx.storage.setAlarm(at);
  }

  #state(now: number): State {
    const state = this.ctx.storage.kv.get<State>(STATE_KEY) ?? { files: 0, bytes: 0, received: [], holds: {} };
    for (const [id, hold] of Object.entries(state.holds)) if (hold.until < now) delete state.holds[id];
    return state;
  }

  #save(state: State): void {
    this.ctx.storage.kv.put(STATE_KEY, state);
  }
}

/** A fixed-window counter in an object's storage; `count: false` only reads it. */
function countInWindow(
  storage: DurableObjectStorage,
  request: { scope: string; limit: number; windowSeconds: number; count?: boolean; now?: number },
): WindowResult {
  const now = request.now ?? Date.now();
  const windowMs = request.windowSeconds * 1000;
  const start = Math.floor(now / windowMs) * windowMs;
  const reset = Math.ceil((start + windowMs) / 1000);
  const key = `window:${request.scope}`;
  const stored = storage.kv.get<WindowState>(key);
  const before = stored && stored.start === start ? stored.count : 0;
  if (request.count === false) return { allowed: before < request.limit, count: before, reset };
  const count = before + 1;
  storage.kv.put(key, { start, count } satisfies WindowState);
  return { allowed: count <= request.limit, count, reset };
}
