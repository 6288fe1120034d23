// The messages between the pages and their Web Worker (e2e-worker.ts): encrypting an upload, and
// hashing a download's plaintext beside the thread that decrypts it; and the page's one worker.

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

type Pending = { resolve: (value: string | Uint8Array) => void; reject: (error: Error) => void };
type Distribute<T> = T extends unknown ? Omit<T, 'id'> : never;

/** The page's one Web Worker for this protocol, started on first use; its replies by request id. */
class CryptoWorker {
  readonly #worker = new Worker(CRYPTO_WORKER_URL);
  readonly #pending = new Map<number, Pending>();
  #next = 0;

  constructor() {
    this.#worker.onmessage = ({ data }: MessageEvent<CryptoReply>) => {
      const pending = this.#pending.get(data.id);
      this.#pending.delete(data.id);
      if ('error' in data) pending?.reject(new Error(`Encryption failed: ${data.error}`));
      else pending?.resolve(data.value);
    };
    this.#worker.onerror = (event) => {
      for (const pending of this.#pending.values())
        pending.reject(new Error(`The encrypting worker failed: ${event.message}`));
      this.#pending.clear();
    };
  }

  /** Sends a request (its buffers in `transfer` handed over, not copied); resolves with the reply's value. */
  call(request: Distribute<CryptoRequest>, transfer: Transferable[] = []): Promise<string | Uint8Array> {
    const id = this.#next++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.#worker.postMessage({ ...request, id }, transfer);
    });
  }
}

let worker: CryptoWorker | null | undefined;

/** The page's worker; null where the browser cannot start one (then the caller works without it). */
export function cryptoWorker(): CryptoWorker | null {
  if (worker === undefined) {
    try {
      worker = new CryptoWorker();
    } catch {
      worker = null;
    }
  }
  return worker;
}
