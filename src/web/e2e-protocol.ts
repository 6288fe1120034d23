// The messages between the pages and their Web Worker (e2e-worker.ts): encrypting an upload, and
// hashing a download's plaintext beside the thread that decrypts it.

export type CryptoRequest =
  | { id: number; kind: 'hash'; file: Blob }
  | {
      id: number;
      kind: 'slice';
      file: Blob;
      header: Uint8Array;
      nonce: Uint8Array;
      fileKey: Uint8Array;
      /** Bytes `start` (inclusive) to `end` (exclusive) of the age file. */
      start: number;
      end: number;
    }

  /**
   * A running SHA-256 of a download's plaintext (`stream` names it): `bytes` appended (a reply
   * once hashed), or, with `end`, the digest in lowercase hex (and the stream forgotten).
   */
  | { id: number; kind: 'digest'; stream: number; bytes?: Uint8Array; end?: true };

export type CryptoReply = { id: number; value: string | Uint8Array } | { id: number; error: string };

/** Where the pages load the worker from: this origin (the pages' CSP says `worker-src 'self'`). */
export const CRYPTO_WORKER_URL = '/assets/e2e-worker.js';
