import { z } from 'zod';

export const MIB = 1024 * 1024;

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

const origin = z.preprocess(
  blankToUndefined,
  z
    .url({ protocol: /^https?$/ })
    .transform((value) => new URL(value).origin)
    .optional(),
);

const mediaTypePattern = /^[a-z0-9!#$&^_.+-]+\/(\*|[a-z0-9!#$&^_.+-]+\*?)$/;

const configSchema = z.object({
  RATE_LIMIT_REQUESTS: int(1, 1_000_000).default(100),
  RATE_LIMIT_WINDOW_SECONDS: int(1, 86_400).default(60),
  STORAGE_QUOTA_BYTES: int(0, Number.MAX_SAFE_INTEGER).default(1024 * MIB),
  MAX_FILE_SIZE: int(1, Number.MAX_SAFE_INTEGER).default(100 * MIB),
  MAX_BULK_FILES: int(1, 50).default(10),
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
  DEFAULT_EXPIRY_SECONDS: optionalInt(60, 31_536_000),
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
  ADMIN_TOKEN: z.preprocess(blankToUndefined, z.string().min(16).optional()),
});

export type Config = z.output<typeof configSchema>;

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
  cache.set(env, parsed.data);
  return parsed.data;
}
