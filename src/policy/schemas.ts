// zod schemas of the policy (the bounds an operator sets): the effective bounds GET /api/v2/policy
// answers with, and an account's overrides as the admin API and `npm run keys -- account-set` set
// them and D1 keeps them. Imports only zod and leaves (with extensions), so the typed client and
// scripts/keys.ts load it under Node too.
import { z } from '@hono/zod-openapi';
import { MAX_EXPIRY_SECONDS, MIN_EXPIRY_SECONDS } from '../expiry.ts';

/** The bounds, by their API names: the `rule` of a POLICY_VIOLATION detail is one of these. */
export const POLICY_RULES = [
  'linkMaxExpirySeconds',
  'linkRequireExpiry',
  'linkRequirePassword',
  'linkMaxDownloads',
  'passwordMinLength',
  'fileMaxExpirySeconds',
  'fileRequireExpiry',
  'requestMaxExpirySeconds',
  'requestMaxBytes',
  'e2eAllowed',
] as const;
export type PolicyRule = (typeof POLICY_RULES)[number];

/**
 * The link bounds a file's default link (its `shareUrl`, working while `isPublic` is true) cannot
 * keep, having no password, cap or expiry of its own: while one applies, uploads default to
 * private and `isPublic: true` is refused (docs/policy.md).
 */
export const DEFAULT_LINK_BARS = [
  'linkRequirePassword',
  'linkMaxDownloads',
  'linkRequireExpiry',
] as const satisfies readonly PolicyRule[];

/** How the OpenAPI documents say it, before what it does to a field. */
export const WHILE_DEFAULT_LINKS_BARRED =
  'While linkRequirePassword, linkMaxDownloads or linkRequireExpiry applies (GET /api/v2/policy)';

/** The rules that are on or off (the others are numbers). */
export const FLAG_RULES = new Set<PolicyRule>([
  'linkRequireExpiry',
  'linkRequirePassword',
  'fileRequireExpiry',
  'e2eAllowed',
]);

/**
 * The rules that are a permission, never absent: false turns the feature off (the others are
 * bounds, which false lifts). `e2eAllowed` is true unless the configuration or the account says not.
 */
export const PERMISSION_RULES = new Set<PolicyRule>(['e2eAllowed']);

/** Each bound's configuration variable (wrangler.toml [vars]). */
export const POLICY_VARS = {
  linkMaxExpirySeconds: 'LINK_MAX_EXPIRY_SECONDS',
  linkRequireExpiry: 'LINK_REQUIRE_EXPIRY',
  linkRequirePassword: 'LINK_REQUIRE_PASSWORD',
  linkMaxDownloads: 'LINK_MAX_DOWNLOADS',
  passwordMinLength: 'PASSWORD_MIN_LENGTH',
  fileMaxExpirySeconds: 'FILE_MAX_EXPIRY_SECONDS',
  fileRequireExpiry: 'FILE_REQUIRE_EXPIRY',
  requestMaxExpirySeconds: 'REQUEST_MAX_EXPIRY_SECONDS',
  requestMaxBytes: 'REQUEST_MAX_BYTES',
  e2eAllowed: 'E2E_ALLOWED',
} as const satisfies Record<PolicyRule, string>;

/** A link's largest download cap (links/schemas.ts), so the largest linkMaxDownloads (config.ts agrees). */
export const MAX_LINK_DOWNLOADS = 1_000_000_000;
/** A file request's password is at most 200 characters, so no minimum may pass that (config.ts agrees). */
export const MAX_PASSWORD_MIN_LENGTH = 200;

const whole = (min: number, max: number) =>
  z.number().int('must be a whole number').min(min, `must be at least ${min}`).max(max, `must be at most ${max}`);

/** Each numeric bound's range: the same as the field it bounds (and as its configuration variable). */
const RANGES = {
  linkMaxExpirySeconds: whole(MIN_EXPIRY_SECONDS, MAX_EXPIRY_SECONDS),
  linkMaxDownloads: whole(1, MAX_LINK_DOWNLOADS),
  passwordMinLength: whole(1, MAX_PASSWORD_MIN_LENGTH),
  fileMaxExpirySeconds: whole(MIN_EXPIRY_SECONDS, MAX_EXPIRY_SECONDS),
  requestMaxExpirySeconds: whole(MIN_EXPIRY_SECONDS, MAX_EXPIRY_SECONDS),
  requestMaxBytes: whole(1, Number.MAX_SAFE_INTEGER),
};

const seconds = (what: string) =>
  z
    .number()
    .int()
    .nullable()
    .openapi({ description: `${what}, in seconds from the moment it is set; null: no bound` });
const flag = (what: string) =>
  z
    .boolean()
    .nullable()
    .openapi({ description: `true: ${what}; null: not required` });

/** The effective bounds of an account: its overrides, else the configuration; null where none is set. */
export const PolicySchema = z
  .object({
    linkMaxExpirySeconds: seconds('The furthest ahead a share link may expire (a link without expiry breaks it)'),
    linkRequireExpiry: flag('every share link must expire'),
    linkRequirePassword: flag('every share link must have a password'),
    linkMaxDownloads: z
      .number()
      .int()
      .nullable()
      .openapi({ description: 'Every share link must have a maxDownloads of at most this; null: no bound' }),
    passwordMinLength: z.number().int().nullable().openapi({
      description: 'The fewest characters (Unicode code points) a link’s or a file request’s password may have',
    }),
    fileMaxExpirySeconds: seconds(
      'The furthest ahead a file may expire, on upload and on change (a file without expiry breaks it)',
    ),
    fileRequireExpiry: flag('every file must expire'),
    requestMaxExpirySeconds: seconds('The furthest ahead a file request may expire'),
    requestMaxBytes: z
      .number()
      .int()
      .nullable()
      .openapi({ description: 'Every file request must have a maxBytes of at most this; null: no bound' }),
    e2eAllowed: z.boolean().openapi({
      description:
        'Whether end-to-end encrypted (age) uploads and `e2e` file requests are taken (E2E_ALLOWED); false: ' +
        'they are 422 POLICY_VIOLATION',
    }),
  })
  .openapi('Policy');

export type Policy = z.infer<typeof PolicySchema>;

/** One override: the account's own bound (a number), or false to lift the configured one. */
const bound = (range: z.ZodNumber) => z.union([range, z.literal(false)]);

/** The overrides' fields, each as D1 keeps it (a flag overrides with true or false). */
const OVERRIDES = {
  linkMaxExpirySeconds: bound(RANGES.linkMaxExpirySeconds),
  linkRequireExpiry: z.boolean(),
  linkRequirePassword: z.boolean(),
  linkMaxDownloads: bound(RANGES.linkMaxDownloads),
  passwordMinLength: bound(RANGES.passwordMinLength),
  fileMaxExpirySeconds: bound(RANGES.fileMaxExpirySeconds),
  fileRequireExpiry: z.boolean(),
  requestMaxExpirySeconds: bound(RANGES.requestMaxExpirySeconds),
  requestMaxBytes: bound(RANGES.requestMaxBytes),
  e2eAllowed: z.boolean(),
};

/** An account's overrides as D1 keeps them (accounts.policy): only the bounds overridden. */
export const StoredOverridesSchema = z.object({
  linkMaxExpirySeconds: OVERRIDES.linkMaxExpirySeconds.optional(),
  linkRequireExpiry: OVERRIDES.linkRequireExpiry.optional(),
  linkRequirePassword: OVERRIDES.linkRequirePassword.optional(),
  linkMaxDownloads: OVERRIDES.linkMaxDownloads.optional(),
  passwordMinLength: OVERRIDES.passwordMinLength.optional(),
  fileMaxExpirySeconds: OVERRIDES.fileMaxExpirySeconds.optional(),
  fileRequireExpiry: OVERRIDES.fileRequireExpiry.optional(),
  requestMaxExpirySeconds: OVERRIDES.requestMaxExpirySeconds.optional(),
  requestMaxBytes: OVERRIDES.requestMaxBytes.optional(),
  e2eAllowed: OVERRIDES.e2eAllowed.optional(),
});

export type PolicyOverrides = z.infer<typeof StoredOverridesSchema>;

/**
 * A change to an account's overrides (the admin API's `policy`, the CLI's flags): a number or
 * true sets the account's own bound, false lifts the configured bound for the account, null
 * clears the override (the configuration applies again); a bound not named stays as it is.
 */
export const PolicyOverridesPatchSchema = z
  .strictObject({
    linkMaxExpirySeconds: OVERRIDES.linkMaxExpirySeconds.nullable().optional(),
    linkRequireExpiry: OVERRIDES.linkRequireExpiry.nullable().optional(),
    linkRequirePassword: OVERRIDES.linkRequirePassword.nullable().optional(),
    linkMaxDownloads: OVERRIDES.linkMaxDownloads.nullable().optional(),
    passwordMinLength: OVERRIDES.passwordMinLength.nullable().optional(),
    fileMaxExpirySeconds: OVERRIDES.fileMaxExpirySeconds.nullable().optional(),
    fileRequireExpiry: OVERRIDES.fileRequireExpiry.nullable().optional(),
    requestMaxExpirySeconds: OVERRIDES.requestMaxExpirySeconds.nullable().optional(),
    requestMaxBytes: OVERRIDES.requestMaxBytes.nullable().optional(),
    e2eAllowed: OVERRIDES.e2eAllowed.nullable().optional(),
  })
  .openapi('PolicyOverridesChange', {
    description:
      'Per-account bounds: a number (or true) sets the account’s own, false lifts the configured one for ' +
      'this account, null goes back to the configuration; bounds not named stay as they are. `e2eAllowed` is ' +
      'a permission: true or false sets it for the account',
  });

export type PolicyOverridesPatch = z.infer<typeof PolicyOverridesPatchSchema>;
