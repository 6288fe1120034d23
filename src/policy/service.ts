// The policy: bounds an operator sets on what accounts may ask for (docs/policy.md). The bounds
// come from the configuration, each overridden per account; the rules below judge a create or a
// change of a share link (to a file or a collection), a file request, or a file's expiry against
// them, before anything is written. Rules only: they take the policy and what was asked, never a
// Context, so the REST routes, collection links and MCP tools all call the same ones.
import type { Config } from '../config';
import { type PolicyDetail, policyViolation } from '../errors';
import { MAX_EXPIRY_SECONDS } from '../expiry';
import { log } from '../log';
import {
  DEFAULT_LINK_BARS,
  PERMISSION_RULES,
  POLICY_RULES,
  type Policy,
  type PolicyOverrides,
  type PolicyRule,
  StoredOverridesSchema,
} from './schemas';

export type { Policy, PolicyOverrides };

/** The configured bounds, before any account's overrides: null where a variable is empty. */
export function configuredPolicy(config: Config): Policy {
  return {
    linkMaxExpirySeconds: config.LINK_MAX_EXPIRY_SECONDS ?? null,
    linkRequireExpiry: config.LINK_REQUIRE_EXPIRY === true ? true : null,
    linkRequirePassword: config.LINK_REQUIRE_PASSWORD === true ? true : null,
    linkMaxDownloads: config.LINK_MAX_DOWNLOADS ?? null,
    passwordMinLength: config.PASSWORD_MIN_LENGTH ?? null,
    fileMaxExpirySeconds: config.FILE_MAX_EXPIRY_SECONDS ?? null,
    fileRequireExpiry: config.FILE_REQUIRE_EXPIRY === true ? true : null,
    requestMaxExpirySeconds: config.REQUEST_MAX_EXPIRY_SECONDS ?? null,
    requestMaxBytes: config.REQUEST_MAX_BYTES ?? null,
    e2eAllowed: config.E2E_ALLOWED,
  };
}

/**
 * An account's overrides as D1 keeps them (accounts.policy, JSON). Every path that writes them
 * validates them first; an entry changed by hand into something else is left out (and logged)
 * rather than failing the account's every request.
 */
export function parseOverrides(json: string | null | undefined): PolicyOverrides {
  if (!json) return {};
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch {
    log('error', 'unreadable policy overrides ignored', { json: json.slice(0, 200) });
    return {};
  }
  if (typeof raw !== 'object' || raw === null) return {};
  const overrides: Record<string, unknown> = {};
  for (const rule of POLICY_RULES) {
    const value = (raw as Record<string, unknown>)[rule];
    if (value === undefined) continue;
    const parsed = StoredOverridesSchema.shape[rule].safeParse(value);
    if (parsed.success) overrides[rule] = parsed.data;
    else log('error', 'invalid policy override ignored', { rule, value: String(value) });
  }
  return overrides as PolicyOverrides;
}

/**
 * The bounds with an account's overrides on top: false lifts a bound, a number or true sets it;
 * a permission (e2eAllowed) is set to the override as it is.
 */
export function withOverrides(base: Policy, overrides: PolicyOverrides): Policy {
  const policy: Record<string, number | boolean | null> = { ...base };
  for (const rule of POLICY_RULES) {
    const value = overrides[rule];
    if (value === undefined) continue;
    policy[rule] = value === false && !PERMISSION_RULES.has(rule) ? null : value;
  }
  return policy as Policy;
}

// Policies as requests use them, per parsed configuration and stored overrides: a deployment
// has few distinct overrides, so each is parsed once (bounded all the same).
const policies = new WeakMap<Config, Map<string, Policy>>();
const MAX_CACHED = 1000;

/** The effective bounds of an account: the configuration with its overrides (accounts.policy) on top. */
export function effectivePolicy(config: Config, overrides: string | null | undefined): Policy {
  let byOverrides = policies.get(config);
  if (!byOverrides) {
    byOverrides = new Map();
    policies.set(config, byOverrides);
  }
  const key = overrides ?? '';
  let policy = byOverrides.get(key);
  if (!policy) {
    policy = withOverrides(configuredPolicy(config), parseOverrides(overrides));
    if (byOverrides.size >= MAX_CACHED) byOverrides.clear();
    byOverrides.set(key, policy);
  }
  return policy;
}

// ---- the rules ----

const SENTENCES: Record<PolicyRule, (limit: number | boolean) => string> = {
  linkMaxExpirySeconds: (limit) => `a share link must expire within ${limit} seconds`,
  linkRequireExpiry: () => 'a share link must expire',
  linkRequirePassword: () => 'a share link must have a password',
  linkMaxDownloads: (limit) => `a share link must have a maxDownloads of at most ${limit}`,
  passwordMinLength: (limit) => `a password must have at least ${limit} characters`,
  fileMaxExpirySeconds: (limit) => `a file must expire within ${limit} seconds`,
  fileRequireExpiry: () => 'a file must expire',
  requestMaxExpirySeconds: (limit) => `a file request must expire within ${limit} seconds`,
  requestMaxBytes: (limit) => `a file request must have a maxBytes of at most ${limit}`,
  e2eAllowed: () => 'end-to-end encrypted uploads and e2e file requests are not taken here',
};

type Detail = PolicyDetail & { rule: PolicyRule };

/** Refuses with 422 POLICY_VIOLATION naming every bound broken; nothing when none is. */
export function enforce(details: Detail[]): void {
  if (details.length === 0) return;
  const reasons = details.map((detail) => `${detail.field}: ${SENTENCES[detail.rule](detail.limit)}`).join('; ');
  throw policyViolation(details, `Refused by this service’s policy (${reasons}); nothing was changed`);
}

/** An expiry as a create or change gives it: `expiresIn` (seconds) or `expiresAt` (a time); null: never. */
export type ExpiryAsk = { expiresIn?: number | null; expiresAt?: string | null };

/**
 * The expiry asked, in seconds from now (null: never expires), and the field that asked it;
 * undefined when neither field was given.
 */
function askedExpiry(ask: ExpiryAsk, now: number): { field: string; seconds: number | null } | undefined {
  if (ask.expiresIn !== undefined) return { field: 'expiresIn', seconds: ask.expiresIn };
  if (ask.expiresAt !== undefined) {
    return { field: 'expiresAt', seconds: ask.expiresAt === null ? null : (Date.parse(ask.expiresAt) - now) / 1000 };
  }
  return undefined;
}

/**
 * An expiry against a maximum and a requirement. Never expiring breaks both: a bound on how far
 * ahead something may expire is a bound on how long it lives, and "never" is longer than any.
 */
function expiryDetails(
  asked: { field: string; seconds: number | null },
  bounds: { max: number | null; maxRule: PolicyRule; required?: boolean | null; requireRule?: PolicyRule },
): Detail[] {
  const details: Detail[] = [];
  if (asked.seconds === null) {
    if (bounds.required && bounds.requireRule)
      details.push({ field: asked.field, rule: bounds.requireRule, limit: true });
    if (bounds.max !== null) details.push({ field: asked.field, rule: bounds.maxRule, limit: bounds.max });
  } else if (bounds.max !== null && asked.seconds > bounds.max) {
    details.push({ field: asked.field, rule: bounds.maxRule, limit: bounds.max });
  }
  return details;
}

/** A password shorter than passwordMinLength (counted in Unicode code points, as people count). */
function passwordDetails(policy: Policy, password: string | null | undefined): Detail[] {
  const min = policy.passwordMinLength;
  if (min === null || typeof password !== 'string' || [...password].length >= min) return [];
  return [{ field: 'password', rule: 'passwordMinLength', limit: min }];
}

/**
 * A capped field (a link's maxDownloads, a request's maxBytes) against its bound: it must have a
 * value (none is no cap at all) of at most the bound.
 */
function capDetails(field: string, value: number | null | undefined, rule: PolicyRule, max: number | null): Detail[] {
  if (max === null || (typeof value === 'number' && value <= max)) return [];
  return [{ field, rule, limit: max }];
}

/** How a link, a file request or a file's change is judged: a create, or a change of the fields given. */
export type Judging = {
  /**
   * A change judges only the fields it gives (null: the field cleared), so a bound tightened since
   * never refuses a change that leaves its field alone; a create judges every field, a field not
   * given being none (no password, no cap, no expiry).
   */
  change?: boolean;
  now?: number;
};

/** What a share link (to a file or to a collection) asks for, in the API's fields. */
export type LinkAsk = ExpiryAsk & { password?: string | null; maxDownloads?: number | null };

/** Every bound a link's create or change breaks: expiry, password, download cap. */
export function linkViolations(policy: Policy, ask: LinkAsk, judging: Judging = {}): Detail[] {
  const { change = false, now = Date.now() } = judging;
  const details: Detail[] = [];
  const expiry = askedExpiry(ask, now) ?? (change ? undefined : { field: 'expiresIn', seconds: null });
  if (expiry) {
    details.push(
      ...expiryDetails(expiry, {
        max: policy.linkMaxExpirySeconds,
        maxRule: 'linkMaxExpirySeconds',
        required: policy.linkRequireExpiry,
        requireRule: 'linkRequireExpiry',
      }),
    );
  }
  if (!change || ask.password !== undefined) {
    if (policy.linkRequirePassword && (ask.password === undefined || ask.password === null)) {
      details.push({ field: 'password', rule: 'linkRequirePassword', limit: true });
    }
    details.push(...passwordDetails(policy, ask.password));
  }
  if (!change || ask.maxDownloads !== undefined) {
    details.push(...capDetails('maxDownloads', ask.maxDownloads, 'linkMaxDownloads', policy.linkMaxDownloads));
  }
  return details;
}

/**
 * Refuses a share link's create or change that breaks the policy (422 POLICY_VIOLATION), before
 * anything is written. Every path that makes or changes a link calls it: links to files, links to
 * collections, MCP tools.
 */
export function checkLink(policy: Policy, ask: LinkAsk, judging: Judging = {}): void {
  enforce(linkViolations(policy, ask, judging));
}

/** What a file request asks for, in the API's fields (its expiry is never null: a request always ends). */
export type RequestAsk = {
  expiresIn?: number;
  expiresAt?: string;
  password?: string | null;
  maxBytes?: number | null;
  isPublic?: boolean;
};

/**
 * Every bound a file request's create or change breaks: expiry, password, total bytes, and
 * received files made public (`isPublic: true`) while a bound bars default links.
 */
export function requestViolations(policy: Policy, ask: RequestAsk, judging: Judging = {}): Detail[] {
  const { change = false, now = Date.now() } = judging;
  const details: Detail[] = ask.isPublic === true ? defaultLinkViolations(policy) : [];
  // A request made without an expiry gets the default, within the bound (requestExpirySeconds).
  const expiry = askedExpiry(ask, now);
  if (expiry) {
    details.push(...expiryDetails(expiry, { max: policy.requestMaxExpirySeconds, maxRule: 'requestMaxExpirySeconds' }));
  }
  if (ask.password !== undefined) details.push(...passwordDetails(policy, ask.password));
  if (!change || ask.maxBytes !== undefined) {
    details.push(...capDetails('maxBytes', ask.maxBytes, 'requestMaxBytes', policy.requestMaxBytes));
  }
  return details;
}

/** Refuses a file request's create or change that breaks the policy, before anything is written. */
export function checkRequest(policy: Policy, ask: RequestAsk, judging: Judging = {}): void {
  enforce(requestViolations(policy, ask, judging));
}

/** How long a file request made without an expiry stays open: the service's default, within the bound. */
export const requestExpirySeconds = (policy: Policy, defaultSeconds: number) =>
  Math.min(defaultSeconds, policy.requestMaxExpirySeconds ?? defaultSeconds);

/**
 * The bounds that bar default links (a file's `shareUrl`, working while `isPublic` is true) while
 * they apply, each as the detail a refusal of `field` names; none when default links are allowed.
 */
export function defaultLinkViolations(policy: Policy, field = 'isPublic'): Detail[] {
  return DEFAULT_LINK_BARS.flatMap((rule) => {
    const limit = policy[rule];
    return limit === null ? [] : [{ field, rule, limit }];
  });
}

/** Whether the account's files may have a working default link (`isPublic: true`). */
export const defaultLinksAllowed = (policy: Policy): boolean => defaultLinkViolations(policy).length === 0;

/** What an upload asked for (undefined: not asked): from its form fields, query or tus metadata. */
export type UploadAsk = { isPublic?: boolean | undefined; expiresIn?: number | undefined };

/** What an upload gets: whether its default link works, and its expiry (seconds; undefined: never). */
export type UploadDecision = { isPublic: boolean; expiresInSeconds: number | undefined };

/**
 * How an upload's options are decided, in one place for every upload path (recordOptions in
 * src/files/upload-fields.ts). `decide` takes what was asked and gives what the upload gets, or
 * refuses (422 POLICY_VIOLATION, every bound broken at once); `judge` refuses only the fields
 * given, so a form can stop at a field read before its file.
 */
export type UploadRules = {
  judge: (asked: UploadAsk) => void;
  decide: (asked: UploadAsk) => UploadDecision;
};

/**
 * The rules of an account's uploads, its policy and the configured default expiry:
 * - the expiry asked, when the policy allows it; none asked gets DEFAULT_EXPIRY_SECONDS brought
 *   within fileMaxExpirySeconds; without a default the file never expires, which
 *   fileRequireExpiry and fileMaxExpirySeconds refuse;
 * - `isPublic` as asked, except `true` while a bound bars default links (defaultLinkViolations);
 *   none asked is public, or private while such a bound applies.
 */
export function uploadRules(policy: Policy, defaultSeconds: number | undefined): UploadRules {
  const barred = defaultLinkViolations(policy);
  const max = policy.fileMaxExpirySeconds;
  const expiryOf = (asked: number | undefined) =>
    asked ?? (defaultSeconds === undefined ? undefined : Math.min(defaultSeconds, max ?? defaultSeconds));
  const expiryBroken = (seconds: number | undefined) =>
    expiryDetails(
      { field: 'expiresIn', seconds: seconds ?? null },
      { max, maxRule: 'fileMaxExpirySeconds', required: policy.fileRequireExpiry, requireRule: 'fileRequireExpiry' },
    );
  const publicBroken = (asked: boolean | undefined) => (asked === true ? barred : []);
  return {
    judge(asked) {
      enforce([
        ...publicBroken(asked.isPublic),
        ...(asked.expiresIn === undefined ? [] : expiryBroken(asked.expiresIn)),
      ]);
    },
    decide(asked) {
      const expiresInSeconds = expiryOf(asked.expiresIn);
      enforce([...publicBroken(asked.isPublic), ...expiryBroken(expiresInSeconds)]);
      return { isPublic: asked.isPublic ?? barred.length === 0, expiresInSeconds };
    },
  };
}

/**
 * Options taken as asked, where no account's policy decides: a tus partial upload (no file: its
 * final upload's options are judged), a file request's uploads (whose options the request and its
 * owner's policy set: receivedFilePublic, receivedFileExpiry).
 */
export const AS_ASKED: UploadRules = {
  judge: () => undefined,
  decide: (asked) => ({ isPublic: asked.isPublic ?? true, expiresInSeconds: asked.expiresIn }),
};

/**
 * Whether a file received through a request is public: the request's choice, while the owner's
 * policy allows default links. Its sender is never refused for it: the file is kept private.
 */
export const receivedFilePublic = (policy: Policy, requestPublic: boolean): boolean =>
  requestPublic && defaultLinksAllowed(policy);

/**
 * The expiry of a file received through a file request: its uploader cannot choose one, and is
 * never refused for it. The account's default (DEFAULT_EXPIRY_SECONDS within fileMaxExpirySeconds);
 * without one, the longest the policy allows: fileMaxExpirySeconds, or 365 days when the policy
 * only requires that files expire; with no such bound, none.
 */
export function receivedFileExpiry(policy: Policy, defaultSeconds: number | undefined): number | undefined {
  const max = policy.fileMaxExpirySeconds;
  if (defaultSeconds !== undefined) return Math.min(defaultSeconds, max ?? defaultSeconds);
  if (max !== null) return max;
  return policy.fileRequireExpiry ? MAX_EXPIRY_SECONDS : undefined;
}

/** What a change of a file asks for that the policy bounds: its expiry, and making it public. */
export type FileChangeAsk = ExpiryAsk & { isPublic?: boolean };

/**
 * Every bound a change of a file breaks (PATCH /files/{id}): a new expiry, and `isPublic: true`
 * while a bound bars default links; nothing for the fields it leaves alone.
 */
export function fileChangeViolations(policy: Policy, patch: FileChangeAsk, now = Date.now()): Detail[] {
  const details = patch.isPublic === true ? defaultLinkViolations(policy) : [];
  const expiry = askedExpiry(patch, now);
  if (!expiry) return details;
  return [
    ...details,
    ...expiryDetails(expiry, {
      max: policy.fileMaxExpirySeconds,
      maxRule: 'fileMaxExpirySeconds',
      required: policy.fileRequireExpiry,
      requireRule: 'fileRequireExpiry',
    }),
  ];
}

/**
 * Refuses an end-to-end encrypted upload, or a file request that takes only such uploads, where
 * the policy does not allow them (E2E_ALLOWED, the account's e2eAllowed): 422 naming `field`.
 */
export function checkE2e(policy: Pick<Policy, 'e2eAllowed'>, field: string): void {
  if (!policy.e2eAllowed) enforce([{ field, rule: 'e2eAllowed', limit: false }]);
}

/** Refuses a change of a file that breaks the policy, before anything is written. */
export function checkFileChange(policy: Policy, patch: FileChangeAsk, now = Date.now()): void {
  enforce(fileChangeViolations(policy, patch, now));
}
