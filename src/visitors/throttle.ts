// What a visitor (no key) may do per client address, counted in the one per-address throttle
// (src/limiter/auth-guard-*): downloads and previews through share links, uploads through file
// requests, abuse reports, and wrong passwords of each. Each link and request also counts its own wrong
// passwords from every address, in its own object (LinkCounter, FileRequestCounter).
import type { Config } from '../config';
import type { ScopedAllowance } from '../limiter/auth-guard-client';

/** A scope of the per-address throttle and how many of its events an address may have per window. */
export type AddressAllowance = ScopedAllowance;

/** Wrong share-link passwords per client address (all links together). */
export const LINK_PASSWORDS_PER_ADDRESS: AddressAllowance = { scope: 'link-password', limit: 10, windowSeconds: 300 };

/** Downloads and previews through share links (default and made ones) per client address. */
export const linkDownloadsPerAddress = (config: Config): AddressAllowance => ({
  scope: 'link-download',
  limit: config.LINK_DOWNLOAD_LIMIT,
  windowSeconds: config.LINK_DOWNLOAD_WINDOW_SECONDS,
});

/** Wrong file-request passwords per client address (all requests together). */
export const requestPasswordsPerAddress = (config: Config): AddressAllowance => ({
  scope: 'request-password',
  limit: config.REQUEST_PASSWORD_FAILURE_LIMIT,
  windowSeconds: config.AUTH_FAILURE_WINDOW_SECONDS,
});

/** Uploads (a form, a raw PUT, a tus creation) through file requests per client address. */
export const requestUploadsPerAddress = (config: Config): AddressAllowance => ({
  scope: 'request-upload',
  limit: config.REQUEST_UPLOADS_PER_ADDRESS,
  windowSeconds: config.REQUEST_UPLOAD_WINDOW_SECONDS,
});

/** Abuse reports (POST /api/v2/reports, the form at /report) per client address. */
export const reportsPerAddress = (
  config: Pick<Config, 'REPORTS_PER_ADDRESS' | 'REPORT_WINDOW_SECONDS'>,
): AddressAllowance => ({
  scope: 'report',
  limit: config.REPORTS_PER_ADDRESS,
  windowSeconds: config.REPORT_WINDOW_SECONDS,
});
