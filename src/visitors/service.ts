// A visitor's one way in. Every capability URL (a file's default link, a made share link, a file
// request's page, description and uploads) is one call: openForVisitor(deps, visit, door) takes
// the visitor from token to answer in one order (throttle, find, standing, check access, admit,
// serve) and reports how each visit ended to deps.record (where an access log plugs in). A door
// says what one kind of URL finds, guards and serves, and the standing of what it found (every
// door must: src/moderation/standing.ts decides it); no door decides the order.
import type { AccessKind, AccessOutcome } from '../access-log/access-log-contract';
import type { ApiError } from '../errors';
import { type GuardNamespace, throttleAddress } from '../limiter/auth-guard-client';
import { log } from '../log';
import { refusalError, type Standing } from '../moderation/standing';
import { type Access, checkAccess, type Lock } from './access';
import type { AddressAllowance } from './throttle';

/** `archive`: a collection's ZIP. The access log's kinds are the visits' own. */
export type VisitKind = AccessKind;
/** The access log's outcomes, and `failed`: refused by the answer itself (a bad range, a file too large, a broken store). */
export type VisitOutcome = AccessOutcome | 'failed';

/** What a visitor brings: the token of the URL, the client's address, and what it sent to unlock. */
export type Visit = { kind: VisitKind; token: string; address: string; password?: string; grant?: string };

/** What a visit was to: a made link, a file's default link, a file request. */
export type VisitSubject = { type: 'link' | 'file' | 'request'; id: string; accountId: string };

/**
 * How one visit ended; `status` when the answer or the error carries one. A visit refused before
 * its subject was found (a throttled download, a dead link) may still `identify` it: asked only
 * after the answer, for the access log.
 */
export type VisitEvent = {
  kind: VisitKind;
  outcome: VisitOutcome;
  status?: number;
  subject?: VisitSubject;
  identify?: () => Promise<VisitSubject | undefined>;
};

export type VisitorDeps = {
  /** The one per-address throttle. */
  guard: GuardNamespace;
  /** Hears of every visit once it is answered (never with a password or a token). */
  record?: (event: VisitEvent) => void;
};

/**
 * Why a door turns a visitor away whatever the credentials; answered with `error`, else
 * door.gone(). `subject`: what the token found, when it found something (a closed request, an
 * exhausted link), so the visit is still told to the subject's log.
 */
export class Refusal<S = never> {
  constructor(
    /** `moderated`: taken down, or held for its scan (src/moderation/standing.ts), answered with `error`. */
    readonly reason: 'gone' | 'exhausted' | 'moderated',
    readonly subject?: S,
    readonly error?: ApiError,
  ) {}
}
export const GONE = new Refusal('gone');
export const EXHAUSTED = new Refusal('exhausted');

/** One kind of capability URL, as openForVisitor asks of it. `S`: what a token finds; `A`: the answer. */
export type Door<S, A> = {
  /** Counted per client address before the token is looked up (share downloads): 429 past it. */
  throttle?: AddressAllowance;
  /** The subject behind the token, or why there is none (a door may throw its own 404 or 410). */
  find(token: string): Promise<S | Refusal<S>>;
  describe(subject: S): VisitSubject;
  /**
   * Whether the subject may be served (src/moderation/standing.ts), from what `find` read: asked
   * right after it, before any password or budget, so a refused visit spends nothing.
   */
  standing(subject: S): Standing;
  /** What a visit to this subject is logged as, when not the visit's own kind (a collection's /download is its archive). */
  kindOf?(subject: S): VisitKind;
  /**
   * Whose the token is although no subject was found (a dead link, a download throttled before
   * its lookup): asked after the answer, and only by the access log.
   */
  identify?(token: string): Promise<VisitSubject | undefined>;
  /** What guards the subject; none: open to anyone with the URL. */
  lock?(subject: S): Lock | null;
  /** Asked when access is refused: a subject found dead after all is gone, whatever the credentials. */
  recheck?(subject: S): Promise<Refusal<S> | undefined>;
  /** Counted once access is granted (a file request's uploads): throws 429 past an allowance. */
  admit?(subject: S, visit: Visit): Promise<void>;
  serve(subject: S): Promise<A | Refusal<S>>;
  /** The error for a refused token (404, the same for every dead or unknown one). */
  gone(): ApiError;
};

export type Visited<S, A> =
  | { open: true; subject: S; answer: A }
  | { open: false; subject: S; access: Exclude<Access, 'open'> };

type Trace<S> = {
  step: 'throttle' | 'find' | 'standing' | 'access' | 'admit' | 'serve';
  subject?: S;
  refusal?: Refusal<S>;
};

/**
 * Takes a visitor from token to answer: the door's per-address throttle, its subject, access
 * (a refused one is returned, for the route to answer as its page or protocol wants), what the
 * subject admits, and the answer. Every other refusal is thrown: 429, or door.gone().
 */
export async function openForVisitor<S, A>(deps: VisitorDeps, visit: Visit, door: Door<S, A>): Promise<Visited<S, A>> {
  const trace: Trace<S> = { step: 'throttle' };
  let event: Omit<VisitEvent, 'kind' | 'subject'> = { outcome: 'failed' };
  try {
    const visited = await walk(deps, visit, door, trace);
    event = visited.open ? answered(visited.answer) : { outcome: 'refused-password' };
    return visited;
  } catch (error) {
    event = refused(error, trace);
    throw error;
  } finally {
    const subject = trace.subject && door.describe(trace.subject);
    const identify =
      !subject && door.identify ? () => door.identify?.(visit.token) ?? Promise.resolve(undefined) : undefined;
    const kind = (trace.subject !== undefined && door.kindOf?.(trace.subject)) || visit.kind;
    report(deps, { kind, ...event, subject, identify });
  }
}

async function walk<S, A>(deps: VisitorDeps, visit: Visit, door: Door<S, A>, trace: Trace<S>): Promise<Visited<S, A>> {
  const refuse = (refusal: Refusal<S>): never => {
    trace.refusal = refusal;
    if (refusal.subject !== undefined) trace.subject = refusal.subject;
    throw refusal.error ?? door.gone();
  };
  if (door.throttle) await throttleAddress(deps.guard, visit.address, door.throttle);
  trace.step = 'find';
  const found = await door.find(visit.token);
  if (found instanceof Refusal) return refuse(found);
  const subject = found;
  trace.subject = subject;
  trace.step = 'standing';
  const standing = door.standing(subject);
  if (standing) return refuse(new Refusal('moderated', subject, refusalError(standing)));
  trace.step = 'access';
  const access = await checkAccess(deps.guard, door.lock?.(subject) ?? null, visit);
  if (access !== 'open') {
    const dead = await door.recheck?.(subject);
    if (dead) return refuse(dead);
    return { open: false, subject, access };
  }
  trace.step = 'admit';
  await door.admit?.(subject, visit);
  trace.step = 'serve';
  const answer = await door.serve(subject);
  if (answer instanceof Refusal) return refuse(answer);
  return { open: true, subject, answer };
}

function answered(answer: unknown): Omit<VisitEvent, 'kind' | 'subject'> {
  if (!(answer instanceof Response)) return { outcome: 'served' };
  const outcome = answer.status === 206 ? 'partial' : answer.status === 304 ? 'not-modified' : 'served';
  return { outcome, status: answer.status };
}

const REFUSED = {
  gone: 'refused-gone',
  exhausted: 'refused-exhausted',
  moderated: 'refused-moderated',
} as const satisfies Record<Refusal['reason'], AccessOutcome>;

function refused<S>(error: unknown, trace: Trace<S>): Omit<VisitEvent, 'kind' | 'subject'> {
  const status = error instanceof Error && 'status' in error && typeof error.status === 'number' ? error.status : 500;
  if (status === 429) return { outcome: 'throttled', status };
  if (trace.refusal) return { outcome: REFUSED[trace.refusal.reason], status };
  // A door's own 404 or 410 for its token (an unknown, closed or expired file request).
  if (trace.step === 'find' && status < 500) return { outcome: 'refused-gone', status };
  return { outcome: 'failed', status };
}

function report(deps: VisitorDeps, event: VisitEvent): void {
  if (!deps.record) return;
  try {
    deps.record(event);
  } catch (error) {
    log('error', 'visit not recorded', { kind: event.kind, error: String(error) });
  }
}
