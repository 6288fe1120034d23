// The auth guard's contract: what the Worker sends its per-address Durable Object.

/**
 * What is counted per client address, each scope in its own window: failed API-key and
 * admin-token authentications; for visitors (no key), wrong share-link passwords, downloads and
 * previews through share links, wrong file-request passwords and uploads through file requests,
 * and abuse reports (POST /api/v2/reports), which take no key either.
 */
export type GuardScope =
  | 'api'
  | 'admin'
  | 'link-password'
  | 'link-download'
  | 'request-password'
  | 'request-upload'
  | 'report';

export type WindowRequest = {
  scope: GuardScope;
  limit: number;
  windowSeconds: number;
  /** false: only reads the window (would one more event still be within `limit`?). */
  count?: boolean;
  now?: number;
};
/**
 * `blocked`: the event just counted went past `limit`, or (read only) one more would; `count`:
 * the events in the window; `reset`: when the window ends, Unix seconds.
 */
export type WindowResult = { blocked: boolean; count: number; reset: number };
