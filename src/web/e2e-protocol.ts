// The messages between the pages and their encrypting Web Worker (e2e-worker.ts).

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
    };

export type CryptoReply = { id: number; value: string | Uint8Array } | { id: number; error: string };

/** Where the pages load the worker from: this origin (the pages' CSP says `worker-src 'self'`). */
export const CRYPTO_WORKER_URL = '/assets/e2e-worker.js';
