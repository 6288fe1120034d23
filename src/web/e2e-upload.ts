// An encrypted upload through tus, for the web app and the file request page: the file's SHA-256
// and its age file are made in a Web Worker (e2e-worker.ts), 64 KiB at a time from `file.slice()`,
// never the whole file in the page. What makes the age file again byte for byte (its header, the
// payload's nonce and the file key) and its `meta` are kept in localStorage under the upload's tus
// fingerprint until it completes, so after a reload or a cut network the same file chosen again
// resumes where the server's copy ends: tus-js-client asks for any range and the worker encrypts
// the chunks it touches at their own index. An upload that fails for good (refused by the server,
// or cancelled) drops them, and tus's stored address with them: nothing is left to resume.
import { defaultOptions, type UploadOptions } from 'tus-js-client';
import { neutralName, newEncryption, patchEnd } from '../client/e2e.ts';
import { openMeta, payloadLength, sealMeta } from '../lib/age/index.ts';
import { fromBase64, toBase64 } from '../lib/encoding.ts';
import { cryptoWorker } from './e2e-protocol.ts';

export { E2E_TUS_CHUNK_BYTES } from '../lib/web-settings.ts';

const STORE_PREFIX = 'edgeshare.e2e.upload.';

/** The page's Web Worker, or an error to show where the browser cannot start one. */
function encrypter() {
  const worker = cryptoWorker();
  if (!worker) throw new Error('This browser cannot start the Web Worker that encrypts: upload without encryption.');
  return worker;
}

/** The plaintext's SHA-256 (lowercase hex), read in the worker. */
export const sha256InWorker = async (file: Blob): Promise<string> =>
  (await encrypter().call({ kind: 'hash', file })) as string;

type Saved = { header: string; nonce: string; fileKey: string; meta: string; filename: string };

/** An encrypted upload ready for tus: pass `tus` to tus-js-client's Upload (or the typed client's `tus`). */
export type PreparedUpload = {
  fingerprint: string;
  /** The age file's size: header and payload. */
  size: number;
  /** tus metadata: the neutral name, `encryption age`, `meta`. */
  metadata: Record<string, string>;
  fileKey: Uint8Array;
  /** The plaintext's SHA-256 (lowercase hex), as `meta` says. */
  sha256: string;
  tus: Pick<UploadOptions, 'fileReader' | 'fingerprint' | 'uploadSize'>;
  /** Drops what was kept for the resume (after the upload completes). */
  forget: () => void;
  /**
   * Drops what was kept for the resume and tus's stored address of the upload (after it failed for
   * good: refused, or cancelled), so no key stays behind and the same file chosen again starts over.
   */
  abandon: () => Promise<void>;
  /** Whether this upload was begun earlier (a resume). */
  resumed: boolean;
};

/**
 * One file's encrypted upload to `recipient` through the tus `endpoint`: the one begun earlier for
 * the same file, endpoint and recipient when the browser still keeps it, else a new file key,
 * header and nonce, and `meta` with the file's real name, type, size and SHA-256.
 */
export async function prepareEncryptedUpload(
  file: File,
  recipient: string,
  endpoint: string,
  onStage?: (text: string) => void,
): Promise<PreparedUpload> {
  const fingerprint = ['e2e', endpoint, recipient, file.name, file.type, file.size, file.lastModified].join('|');
  const key = STORE_PREFIX + fingerprint;
  let saved = readSaved(localStorage.getItem(key));
  const resumed = saved !== undefined;
  if (!saved) {
    onStage?.('Reading the file (SHA-256)…');
    const sha256 = await sha256InWorker(file);
    const state = await newEncryption({ recipients: [recipient] });
    const meta = sealMeta(state.fileKey, {
      name: file.name || 'file',
      type: file.type || 'application/octet-stream',
      size: file.size,
      sha256,
    });
    saved = {
      header: toBase64(state.header),
      nonce: toBase64(state.nonce),
      fileKey: toBase64(state.fileKey),
      meta,
      filename: neutralName(),
    };
    localStorage.setItem(key, JSON.stringify(saved));
  }
  const header = fromBase64(saved.header) as Uint8Array;
  const nonce = fromBase64(saved.nonce) as Uint8Array;
  const fileKey = fromBase64(saved.fileKey) as Uint8Array;
  const size = header.length + payloadLength(file.size);
  const encrypted = (start: number, end: number) =>
    encrypter().call({
      kind: 'slice',
      file,
      header: header.slice(),
      nonce: nonce.slice(),
      fileKey: fileKey.slice(),
      start,
      end,
    }) as Promise<Uint8Array<ArrayBuffer>>;
  /**
   * The next slice, asked of the worker while tus sends this one: encrypting overlaps the network
   * (one slice more held). tus asks for slices in order, each `chunkSize` long but the last.
   */
  let ahead: { start: number; end: number; value: Promise<Uint8Array<ArrayBuffer>> } | undefined;
  const fileReader = {
    openFile: () =>
      Promise.resolve({
        size,
        slice: async (start: number, asked: number) => {
          const end = patchEnd(header.length, start, asked);
          const next = ahead?.start === start && ahead.end === end ? ahead.value : encrypted(start, end);
          ahead = undefined;
          if (end < size) {
            const following = { start: end, end: Math.min(size, end + (asked - start)) };
            ahead = { ...following, value: encrypted(following.start, following.end) };
            // Unused (a resume asks elsewhere) or failed: the slice asked for reports its own error.
            ahead.value.catch(() => undefined);
          }
          // A Blob, as tus-js-client's own reader gives: the browser sends it as it sends a File's
          // slice (DevTools, which copies an array body into its own records, leaves a Blob alone).
          return { value: new Blob([await next]), done: end >= size };
        },
        close: () => {
          ahead = undefined;
        },
      }),
  } as unknown as UploadOptions['fileReader'];
  return {
    fingerprint,
    size,
    metadata: {
      filename: saved.filename,
      filetype: 'application/octet-stream',
      encryption: 'age',
      meta: saved.meta,
    },
    fileKey,
    sha256: openMeta(fileKey, saved.meta).sha256,
    tus: { fileReader, fingerprint: () => Promise.resolve(fingerprint), uploadSize: size },
    forget: () => localStorage.removeItem(key),
    abandon: async () => {
      localStorage.removeItem(key);
      const storage = defaultOptions.urlStorage;
      const stored = await storage.findUploadsByFingerprint(fingerprint).catch(() => []);
      await Promise.all(
        stored.map((entry) => (entry.urlStorageKey ? storage.removeUpload(entry.urlStorageKey) : undefined)),
      );
    },
    resumed,
  };
}

/**
 * Whether an upload's failure is for good (its keys are then dropped): the server refused it (a
 * 4xx status other than a timeout, a conflict, a lock, a rate limit or a refused key, after which
 * the same file resumes once the key works again). A cut network or a 5xx is not: it resumes.
 */
export function refusedForGood(status: number | undefined): boolean {
  if (status === undefined || status < 400 || status >= 500) return false;
  return ![401, 408, 409, 423, 429].includes(status);
}

function readSaved(text: string | null): Saved | undefined {
  if (!text) return undefined;
  try {
    const saved = JSON.parse(text) as Saved;
    const ok = [saved.header, saved.nonce, saved.fileKey, saved.meta, saved.filename].every(
      (value) => typeof value === 'string',
    );
    return ok && fromBase64(saved.fileKey)?.length === 16 && fromBase64(saved.nonce)?.length === 16 ? saved : undefined;
  } catch {
    return undefined;
  }
}
