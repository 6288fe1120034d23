// The Web Worker that encrypts for the web app and the file request page (bundled by
// scripts/assets.mjs as /assets/e2e-worker.js): the SHA-256 of a file for its `meta`, and any byte
// range of its age file, each 64 KiB chunk read with `file.slice()` and encrypted at its own index
// (src/client/e2e.ts, EncryptedBlob), so the page never holds the file and a tus upload resumes at
// any offset. It holds no state between messages (each brings the keys it needs), but for the
// running SHA-256 of a download's plaintext that a share page checks against `meta` while its own
// thread decrypts (e2e-open.ts).
import { EncryptedBlob, sha256OfBlob } from '../client/e2e.ts';
import { type Hasher, newSha256 } from '../client/hash.ts';
import { toHex } from '../lib/encoding.ts';
import type { CryptoReply, CryptoRequest } from './e2e-protocol.ts';

type Scope = {
  onmessage: ((event: MessageEvent<CryptoRequest>) => void) | null;
  postMessage: (message: CryptoReply, transfer?: Transferable[]) => void;
};
const scope = self as unknown as Scope;

/** The downloads' running digests, by the stream number the page gave. */
const digests = new Map<number, Hasher>();

scope.onmessage = async ({ data }) => {
  try {
    if (data.kind === 'hash') {
      scope.postMessage({ id: data.id, value: await sha256OfBlob(data.file) });
      return;
    }
    if (data.kind === 'digest') {
      let digest = digests.get(data.stream);
      if (!digest) {
        digest = newSha256();
        digests.set(data.stream, digest);
      }
      if (data.bytes) digest.update(data.bytes);
      if (data.end) digests.delete(data.stream);
      scope.postMessage({ id: data.id, value: data.end ? toHex(digest.digest()) : '' });
      return;
    }
    const encrypted = new EncryptedBlob(data.file, { header: data.header, nonce: data.nonce, fileKey: data.fileKey });
    const bytes = await encrypted.slice(data.start, data.end);
    scope.postMessage({ id: data.id, value: bytes }, [bytes.buffer]);
  } catch (error) {
    scope.postMessage({ id: data.id, error: error instanceof Error ? error.message : String(error) });
  }
};
