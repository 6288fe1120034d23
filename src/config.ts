import { z } from 'zod';
import { MAX_EXPIRY_SECONDS, MIN_EXPIRY_SECONDS } from './expiry';
import { log } from './log';

/** A JSON request (50 ids, a few fields) fits in a few KiB; a larger body is not one of ours. */
export const MAX_JSON_BODY = 64 * 1024;

export const MIB = 1024 * 1024;

/** The largest download cap a link may have (links/schemas.ts), so the largest LINK_MAX_DOWNLOADS. */
export const MAX_LINK_DOWNLOADS = 1_000_000_000;
/** The shortest longest password: a file request's password is at most 200 characters. */
export const MAX_PASSWORD_MIN_LENGTH = 200;
export const GIB = 1024 * MIB;

/** Used when ALLOWED_FILE_TYPES is empty: documents, images, audio, video, text, archives, plain binary data. */
export const DEFAULT_ALLOWED_FILE_TYPES = [
  'image/*',
  'audio/*',
  'video/*',
  'text/plain',
  'text/csv',
  'text/markdown',
  'text/html',
  'text/xml',
  'text/rtf',
  'application/xml',
  'application/json',
  'application/pdf',
  'application/rtf',
  'application/msword',
  'application/vnd.ms-excel',
  'application/vnd.ms-powerpoint',
  'application/vnd.openxmlformats-officedocument.*',
  'application/vnd.oasis.opendocument.*',
  'application/epub+zip',
  'application/zip',
  'application/gzip',
  'application/x-tar',
  'application/x-bzip2',
  'application/x-xz',
  'application/zstd',
  'application/x-7z-compressed',
  'application/vnd.rar',
  // Binary content no signature identifies (executables are identified and refused first).
  'application/octet-stream',
];

const blankToUndefined = (value: unknown) => (typeof value === 'string' && value.trim() === '' ? undefined : value);

const int = (min: number, max: number) => z.preprocess(blankToUndefined, z.coerce.number().int().min(min).max(max));

const optionalInt = (min: number, max: number) =>
  z.preprocess(blankToUndefined, z.coerce.number().int().min(min).max(max).optional());

/** `true` or `false` (a TOML boolean too); empty: unset. */
const optionalBool = z.preprocess(
  (value) => (typeof value === 'string' ? (value.trim() === '' ? undefined : value.trim().toLowerCase()) : value),
  z
    .union([
      z.boolean(),
      z.enum(['true', 'false'], { message: 'must be true or false' }).transform((v) => v === 'true'),
    ])
    .optional(),
);

const origin = z.preprocess(
  blankToUndefined,
  z
    .url({ protocol: /^https?$/ })
    .transform((value) => new URL(value).origin)
    .optional(),
);

/** How files are scanned: not at all, after they are served, or before any visitor gets them. */
export const SCAN_MODES = ['off', 'async', 'gate'] as const;
export type ScanMode = (typeof SCAN_MODES)[number];

/** Cloudflare's siteverify: where a Turnstile token is checked unless TURNSTILE_VERIFY_URL says otherwise. */
export const TURNSTILE_SITEVERIFY = 'https://challenges.cloudflare.com/turnstile/v0/siteverify';

const mediaTypePattern = /^[a-z0-9!#$&^_.+-]+\/(\*|[a-z0-9!#$&^_.+-]+\*?)$/;

const configSchema = z.object({
  RATE_LIMIT_REQUESTS: int(1, 1_000_000).default(100),
  RATE_LIMIT_WINDOW_SECONDS: int(1, 86_400).default(60),
  STORAGE_QUOTA_BYTES: int(0, Number.MAX_SAFE_INTEGER).default(1024 * MIB),
  // 5 GiB: R2's largest single part, and far past what one request can carry (Cloudflare's body
  // limit, 100 MB on Free/Pro): larger files come through tus (src/tus/).
  MAX_FILE_SIZE: int(1, Number.MAX_SAFE_INTEGER).default(5 * GIB),
  MAX_FILES_PER_KEY: int(0, Number.MAX_SAFE_INTEGER).default(100_000),
  UPLOAD_TIMEOUT_SECONDS: int(1, 86_400).default(3600),
  // An unfinished tus upload expires this long after its last PATCH (see src/tus/).
  TUS_EXPIRY_SECONDS: int(60, 518_400).default(86_400),
  AUTH_FAILURE_LIMIT: int(1, 1_000_000).default(20),
  AUTH_FAILURE_WINDOW_SECONDS: int(1, 86_400).default(60),
  MAX_BULK_FILES: int(1, 50).default(10),
  // Downloads (and previews) through made share links, per client address and window (src/links/).
  LINK_DOWNLOAD_LIMIT: int(1, 1_000_000).default(120),
  LINK_DOWNLOAD_WINDOW_SECONDS: int(1, 86_400).default(60),
  ALLOWED_FILE_TYPES: z.preprocess(
    blankToUndefined,
    z
      .string()
      .transform((value) =>
        value
          .split(',')
          .map((item) => item.trim().toLowerCase())
          .filter(Boolean),
      )
      .pipe(z.array(z.string().regex(mediaTypePattern, 'not a media-type pattern')).min(1))
      .default(DEFAULT_ALLOWED_FILE_TYPES),
  ),
  DEFAULT_EXPIRY_SECONDS: optionalInt(MIN_EXPIRY_SECONDS, MAX_EXPIRY_SECONDS),
  // Policy (src/policy/): bounds on what accounts may ask for, each overridable per account.
  // Empty: no bound. See docs/policy.md.
  LINK_MAX_EXPIRY_SECONDS: optionalInt(MIN_EXPIRY_SECONDS, MAX_EXPIRY_SECONDS),
  LINK_REQUIRE_EXPIRY: optionalBool,
  LINK_REQUIRE_PASSWORD: optionalBool,
  LINK_MAX_DOWNLOADS: optionalInt(1, MAX_LINK_DOWNLOADS),
  PASSWORD_MIN_LENGTH: optionalInt(1, MAX_PASSWORD_MIN_LENGTH),
  FILE_MAX_EXPIRY_SECONDS: optionalInt(MIN_EXPIRY_SECONDS, MAX_EXPIRY_SECONDS),
  FILE_REQUIRE_EXPIRY: optionalBool,
  REQUEST_MAX_EXPIRY_SECONDS: optionalInt(MIN_EXPIRY_SECONDS, MAX_EXPIRY_SECONDS),
  REQUEST_MAX_BYTES: optionalInt(1, Number.MAX_SAFE_INTEGER),
  // End-to-end encrypted (age) uploads and e2e file requests (src/e2e/, docs/e2e.md); per account
  // through the policy overrides (e2eAllowed). Empty: allowed.
  E2E_ALLOWED: optionalBool.transform((value) => value !== false),
  SITE_URL: origin,
  PUBLIC_BASE_URL: origin,
  CORS_ORIGINS: z.preprocess(
    blankToUndefined,
    z
      .string()
      .default('*')
      .transform((value) =>
        value
          .split(',')
          .map((item) => item.trim())
          .filter(Boolean),
      ),
  ),
  // File requests (src/requests/): uploads carry no key, so they are throttled per address and per request.
  REQUEST_UPLOADS_PER_ADDRESS: int(1, 1_000_000).default(60),
  REQUEST_UPLOADS_PER_REQUEST: int(1, 1_000_000).default(600),
  REQUEST_UPLOAD_WINDOW_SECONDS: int(1, 86_400).default(60),
  // Wrong passwords per request and per address in AUTH_FAILURE_WINDOW_SECONDS.
  REQUEST_PASSWORD_FAILURE_LIMIT: int(1, 1_000_000).default(10),
  // Members per collection (src/collections/): each is one R2 read when its ZIP is served, and
  // 1,000 reads fit the Workers Paid plan's subrequests per request (docs/limits.md).
  MAX_COLLECTION_FILES: int(1, 100_000).default(1000),
  // Subrequests one request may make (Workers Paid: 10,000 by default; Free: 50). A ZIP archive,
  // or a range of one, whose R2 reads would pass it is refused before its first byte (docs/limits.md).
  // At least 11: an archive's request spends 10 on itself (ARCHIVE_FIXED_SUBREQUESTS).
  SUBREQUEST_BUDGET: int(11, 10_000_000).default(10_000),
  // The access log (src/access-log/): `off` records nothing, for the whole service.
  ACCESS_LOG: z.preprocess(blankToUndefined, z.enum(['on', 'off']).default('on')),
  ACCESS_LOG_RETENTION_DAYS: int(1, 3650).default(90),
  // Whether upload_from_url and webhook targets may name a loopback address (127.0.0.0/8, [::1]):
  // reaching this machine is for development only. `npm run dev` and the tests set it; a
  // deployment never does (src/lib/public-address.ts, docs/configuration.md).
  ALLOW_LOOPBACK_TARGETS: optionalBool.transform((value) => value === true),
  // Checked apart (adminToken below): a bad one disables the admin API, never the whole service.
  ADMIN_TOKEN: z.preprocess(blankToUndefined, z.string().optional()),
  // Abuse handling (docs/abuse.md). Where people report abuse: shown on every 451 page and in the
  // `Link: <…>; rel="blocked-by"` header of every 451.
  ABUSE_CONTACT: z.preprocess(
    blankToUndefined,
    z
      .string()
      .regex(/^(mailto:[^\s<>]+|https:\/\/[^\s<>]+)$/, 'must be a mailto: or https: URL')
      .optional(),
  ),
  // Scanning with ClamAV (src/moderation/standing.ts decides what a scan lets through): the scanner
  // as clamd://host:port, the mode for uploads with a key and for files that come through file
  // requests (default gate when SCANNER is set, see scanSettings), and the most bytes sent to it.
  SCANNER: z.preprocess(
    blankToUndefined,
    z
      .string()
      .regex(/^clamd:\/\/[^\s/:]+:\d{1,5}$/, 'must be clamd://host:port')
      .refine((value) => {
        const port = Number(value.slice(value.lastIndexOf(':') + 1));
        return port >= 1 && port <= 65_535;
      }, 'the port must be 1 to 65535')
      .optional(),
  ),
  SCAN_MODE: z.preprocess(blankToUndefined, z.enum(SCAN_MODES).default('off')),
  SCAN_REQUEST_UPLOADS: z.preprocess(blankToUndefined, z.enum(SCAN_MODES).optional()),
  SCAN_MAX_BYTES: int(1, Number.MAX_SAFE_INTEGER).default(100 * MIB),
  // Where the operator hears of reports and infected files (Standard Webhooks, like an account's
  // webhooks). The secret is checked apart (operatorWebhook below), like ADMIN_TOKEN.
  OPERATOR_WEBHOOK_URL: z.preprocess(blankToUndefined, z.url({ protocol: /^https?$/ }).optional()),
  OPERATOR_WEBHOOK_SECRET: z.preprocess(blankToUndefined, z.string().optional()),
  // Reports (POST /api/v2/reports, the form at /report; docs/abuse.md). Cloudflare Turnstile on the
  // form and the API when both keys are set (the secret is checked apart, turnstile below), checked
  // at TURNSTILE_VERIFY_URL (a local stub in tests); reports per address and window; and the number
  // of distinct visitors whose reports of one target within 24 hours hold it until the operator
  // decides (unset: reports never change serving).
  TURNSTILE_SITE_KEY: z.preprocess(blankToUndefined, z.string().max(200).optional()),
  TURNSTILE_SECRET_KEY: z.preprocess(blankToUndefined, z.string().optional()),
  TURNSTILE_VERIFY_URL: z.preprocess(blankToUndefined, z.url({ protocol: /^https?$/ }).default(TURNSTILE_SITEVERIFY)),
  REPORTS_PER_ADDRESS: int(1, 1_000_000).default(10),
  REPORT_WINDOW_SECONDS: int(1, 86_400).default(3600),
  REPORT_QUARANTINE_THRESHOLD: optionalInt(2, 1_000_000),
});

export const MIN_ADMIN_TOKEN_LENGTH = 32;

export type Config = Omit<z.output<typeof configSchema>, 'SCAN_REQUEST_UPLOADS'> & {
  /** Why the admin API and /keys are off although ADMIN_TOKEN is set (it is then unset here). */
  adminTokenProblem?: string;
  /** The mode for files that come through file requests: as set, else gate when SCANNER is set, else off. */
  SCAN_REQUEST_UPLOADS: ScanMode;
};

/** A Standard Webhooks secret: whsec_ and the base64 of the key. */
const WEBHOOK_SECRET = /^whsec_[A-Za-z0-9+/]{24,}={0,2}$/;

/**
 * OPERATOR_WEBHOOK_URL and its secret as used: both set and well formed, or neither (a URL without
 * a usable secret turns the operator's webhook off, logged once per configuration, instead of
 * failing every route; the secret itself is never logged).
 */
function operatorWebhook(config: Config): Config {
  const { OPERATOR_WEBHOOK_URL: url, OPERATOR_WEBHOOK_SECRET: secret } = config;
  if (url === undefined || (secret !== undefined && WEBHOOK_SECRET.test(secret))) return config;
  log('error', 'OPERATOR_WEBHOOK_URL is set without a usable OPERATOR_WEBHOOK_SECRET (whsec_…): not delivered', {});
  return { ...config, OPERATOR_WEBHOOK_URL: undefined, OPERATOR_WEBHOOK_SECRET: undefined };
}

/**
 * Turnstile as used: on with both keys, off with neither; one without the other turns it off,
 * logged once per configuration (the secret itself is never logged), as OPERATOR_WEBHOOK_URL does.
 */
function turnstile(config: Config): Config {
  const { TURNSTILE_SITE_KEY: site, TURNSTILE_SECRET_KEY: secret } = config;
  if ((site === undefined) === (secret === undefined)) return config;
  log('error', 'TURNSTILE_SITE_KEY and TURNSTILE_SECRET_KEY must be set together: reports go without Turnstile', {});
  return { ...config, TURNSTILE_SITE_KEY: undefined, TURNSTILE_SECRET_KEY: undefined };
}

/**
 * ADMIN_TOKEN as used: too short a token turns the admin API and /keys off (logged once per
 * configuration) instead of failing every route, /health, uploads and share links included.
 */
function adminToken(config: Config): Config {
  const token = config.ADMIN_TOKEN;
  if (token === undefined || token.length >= MIN_ADMIN_TOKEN_LENGTH) return config;
  const problem = `ADMIN_TOKEN must be at least ${MIN_ADMIN_TOKEN_LENGTH} characters (it has ${token.length})`;
  log('error', `${problem}: the admin API and /keys are disabled until it is replaced`, {});
  return { ...config, ADMIN_TOKEN: undefined, adminTokenProblem: problem };
}

/**
 * How long an upload may hold its blobs before it must have recorded them: the upload's own
 * deadline (UPLOAD_TIMEOUT_SECONDS), plus margins. A hold in the key's object outlives the
 * longest request by HOLD_MARGIN_MS; the sweep judges a blob without a row only once it is older
 * than the longest request plus ORPHAN_MARGIN_MS, so no upload still running can lose its blobs.
 */
const HOLD_MARGIN_MS = 10 * 60 * 1000;
const ORPHAN_MARGIN_MS = 60 * 60 * 1000;
export const uploadTimeoutMs = (config: Config) => config.UPLOAD_TIMEOUT_SECONDS * 1000;
export const holdTtlMs = (config: Config) => uploadTimeoutMs(config) + HOLD_MARGIN_MS;
export const orphanGraceMs = (config: Config) => uploadTimeoutMs(config) + ORPHAN_MARGIN_MS;

export class ConfigError extends Error {
  override name = 'ConfigError';
}

const cache = new WeakMap<object, Config>();

/** Parses the Worker's vars once per env object; a bad value throws a ConfigError naming it. */
export function getConfig(env: object): Config {
  const cached = cache.get(env);
  if (cached) return cached;
  const parsed = configSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues
      .map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`)
      .join('; ');
    throw new ConfigError(`Invalid edgeshare configuration: ${problems}`);
  }
  const { SCAN_REQUEST_UPLOADS, ...rest } = parsed.data;
  const scanRequests = SCAN_REQUEST_UPLOADS ?? (rest.SCANNER === undefined ? 'off' : 'gate');
  const config = turnstile(operatorWebhook(adminToken({ ...rest, SCAN_REQUEST_UPLOADS: scanRequests })));
  cache.set(env, config);
  return config;
}
