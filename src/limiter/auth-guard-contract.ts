// The auth guard's contract: what the Worker sends its per-address Durable Object.

/**
 * What is counted per address: failed API-key and admin-token authentications; wrong share-link
 * passwords (`link-password`); and every download through a made share link (`link-download`).
 */
export type FailureRequest = {
  scope: 'api' | 'admin' | 'link-password' | 'link-download';
  limit: number;
  windowSeconds: number;
  now?: number;
};
/** `blocked` once the address has failed more than `limit` times in the window; `reset` in Unix seconds. */
export type FailureResult = { blocked: boolean; failures: number; reset: number };
