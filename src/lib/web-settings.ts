// The web app's fixed choices, apart from the DOM so the browser tests can import them.

/**
 * Files from this size on go through tus: resumable after a dropped connection, and (tus-js-client
 * keeps the upload's address in localStorage) after a reload when the same file is chosen again.
 * Below it one multipart request costs one round trip where tus costs three.
 */
export const TUS_FROM_BYTES = 16 * 1024 * 1024;

/** Bytes per tus PATCH: well under Cloudflare's 100 MB request body limit (Free and Pro plans). */
export const TUS_CHUNK_BYTES = 50 * 1024 * 1024;

/**
 * Bytes per tus PATCH of an end-to-end encrypted upload (src/web/e2e-upload.ts): each is encrypted
 * in the Web Worker and held once; small enough that a cut network loses little.
 */
export const E2E_TUS_CHUNK_BYTES = 8 * 1024 * 1024;

/** Uploads running at once; the rest wait their turn. */
export const UPLOAD_CONCURRENCY = 2;

/** Files per page of the list (bulk delete takes at most 50 ids, so a page is always deletable). */
export const PAGE_SIZE = 20;

/** Expiry choices, in seconds from now (the API takes 60 … 31536000). */
export const EXPIRY_CHOICES: readonly { label: string; seconds: number }[] = [
  { label: '1 hour', seconds: 3600 },
  { label: '1 day', seconds: 86_400 },
  { label: '7 days', seconds: 604_800 },
  { label: '30 days', seconds: 2_592_000 },
  { label: '1 year', seconds: 31_536_000 },
];

/** How long a file request made in the app stays open unless the user picks another: the API's default, 7 days. */
export const DEFAULT_REQUEST_EXPIRY_SECONDS = 604_800;

/** Where the key is kept: sessionStorage by default, localStorage when the user asks to be remembered. */
export const KEY_STORAGE_NAME = 'edgeshare.apiKey';
