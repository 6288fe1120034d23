// The shapes exchanged between the Worker and an account's IdempotencyStore (RPC).

/** A response as it is kept for replay: status, the headers that matter, and the body's bytes. */
export type StoredResponse = { status: number; headers: string[][]; body: Uint8Array };

export type BeginRequest = {
  key: string;
  fingerprint: string;
  /** How long a running entry holds the key (the longest a request can run, plus a margin). */
  leaseMs: number;
  /** ms since the epoch; tests pass it to move time. */
  now?: number;
};

export type BeginResult =
  /** The request is the first with this key: run it, then complete() or release() with `token`. */
  | { state: 'started'; token: string }
  /** The first request with this key and the same fingerprint is still running. */
  | { state: 'running' }
  /** The key was used for a different request. */
  | { state: 'mismatch' }
  /**
   * The first request finished: its response, to be answered again to the same request. An
   * upload's entry also holds its body's digest (`bodyDigest`), which a retry's body must match.
   */
  | { state: 'done'; response: StoredResponse; bodyDigest: string | null };

export type CompleteRequest = {
  key: string;
  token: string;
  response: StoredResponse;
  /** An upload's body digest (body-digest.ts); null for a request whose body is in the fingerprint. */
  bodyDigest?: string | null;
  now?: number;
};
export type ReleaseRequest = { key: string; token: string; now?: number };

/** Kept at least 24 hours (the contract), plus a margin for clocks and retries near the end. */
export const IDEMPOTENCY_TTL_MS = 25 * 3600 * 1000;
/** The largest response body kept for replay; a larger one is not kept (see docs/storage.md). */
export const MAX_STORED_BODY_BYTES = 256 * 1024;
