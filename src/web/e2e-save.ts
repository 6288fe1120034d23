// Saving a plaintext stream to disk from a page, the best way the browser has (docs/e2e.md,
// "In the browser"):
// 1. a same-origin Service Worker (/assets/e2e-sw.js, scoped to /share/) that answers a hidden
//    frame's download URL with the stream, chunk by chunk as the page hands them over; the page
//    pings it every few seconds for the whole download, so no browser stops it idle (Firefox does
//    after 30 s) and the stream is never cut silently. A failure errors the stream: the browser
//    marks the download failed, never complete;
// 2. the File System Access API (showSaveFilePicker) where there is one: the file is written in
//    place and committed only when the stream ends (an error aborts it, and nothing is left);
// 3. a Blob, below BLOB_MAX_BYTES, made only once every byte is checked.
// Safari buffers a Service Worker's streamed answer in memory, so it gets the Blob.

import { saveBlob } from './dom.ts';

/** The largest file saved through a Blob (held in memory): 512 MiB. */
export const BLOB_MAX_BYTES = 512 * 1024 * 1024;
const SW_URL = '/assets/e2e-sw.js';
const SW_SCOPE = '/share/';
/** The Service Worker's download URLs: inside its scope, never a share token (those have no `_`). */
export const SAVE_PREFIX = '/share/_e2e-save/';
const PING_MS = 5_000;

export type SaveTarget = { name: string; type: string; size?: number };
export type Saver = {
  how: 'service-worker' | 'file-system' | 'blob';
  /** Resolves when every byte is saved; rejects (leaving no complete file) when the stream fails. */
  save(plaintext: ReadableStream<Uint8Array>): Promise<void>;
};

let worker: ServiceWorker | undefined;

/** Whether this browser streams a Service Worker's answer to disk (Safari holds it in memory). */
const streamsToDisk = () => !/^((?!chrome|android|crios|fxios).)*safari/i.test(navigator.userAgent);

/**
 * Registers the saving Service Worker (once a page loads, so that it is active by the time the
 * visitor clicks). Resolves with whether it is ready; a browser without one (or a private window
 * that refuses it) falls back to the other ways.
 */
export async function prepareSaver(): Promise<boolean> {
  if (!('serviceWorker' in navigator) || !streamsToDisk()) return false;
  try {
    const registration = await navigator.serviceWorker.register(SW_URL, { scope: SW_SCOPE });
    // Not `serviceWorker.ready`: that waits for a worker whose scope holds this page, and the web
    // app's page (/) is outside /share/ while its downloads' frames are inside it.
    worker = registration.active ?? (await activated(registration.installing ?? registration.waiting));
    return worker !== undefined;
  } catch {
    return false;
  }
}

/** The worker once it is active; undefined if it never becomes so (replaced, or failed to install). */
function activated(pending: ServiceWorker | null): Promise<ServiceWorker | undefined> {
  if (!pending) return Promise.resolve(undefined);
  return new Promise((resolve) => {
    const check = () => {
      if (pending.state === 'activated') resolve(pending);
      else if (pending.state === 'redundant') resolve(undefined);
    };
    pending.addEventListener('statechange', check);
    check();
  });
}

type Picker = (options: { suggestedName: string }) => Promise<{ createWritable(): Promise<WritableStream> }>;

/**
 * The way to save `target`, chosen when the visitor clicks (the File System Access picker needs
 * that click: call this synchronously in the click handler, before any await). Throws, with a
 * sentence for the visitor, when only a Blob is left and the file is above BLOB_MAX_BYTES.
 */
export function chooseSaver(target: SaveTarget): Saver {
  const active = worker;
  if (active) return { how: 'service-worker', save: (plaintext) => throughServiceWorker(active, target, plaintext) };
  const picker = (window as unknown as { showSaveFilePicker?: Picker }).showSaveFilePicker;
  if (picker) {
    const handle = picker.call(window, { suggestedName: target.name });
    return {
      how: 'file-system',
      save: async (plaintext) => {
        const writable = await (await handle).createWritable();
        // pipeTo aborts the writable when the stream fails: the browser discards what it wrote.
        await plaintext.pipeTo(writable);
      },
    };
  }
  if (target.size !== undefined && target.size > BLOB_MAX_BYTES) {
    throw new Error(
      `This browser can save at most ${BLOB_MAX_BYTES / 1024 / 1024} MiB from a page: open this file with edgeshare’s command line or age.`,
    );
  }
  return { how: 'blob', save: (plaintext) => throughBlob(target, plaintext) };
}

async function throughBlob(target: SaveTarget, plaintext: ReadableStream<Uint8Array>): Promise<void> {
  const parts: Uint8Array<ArrayBuffer>[] = [];
  let size = 0;
  const reader = plaintext.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > BLOB_MAX_BYTES) {
      await reader.cancel();
      throw new Error(`Above the ${BLOB_MAX_BYTES / 1024 / 1024} MiB this browser can save from a page.`);
    }
    parts.push(value as Uint8Array<ArrayBuffer>);
  }
  saveBlob(new Blob(parts, { type: target.type || 'application/octet-stream' }), target.name);
}

/** Bytes handed to the Service Worker per message: 16 decrypted chunks, not one (a message costs both threads a turn). */
const BATCH_BYTES = 1024 * 1024;

/**
 * The next chunks of the stream up to BATCH_BYTES, as one buffer of their own to transfer;
 * undefined once the stream has ended. A stream that fails throws, whatever was read.
 */
async function readBatch(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<ArrayBuffer | undefined> {
  const parts: Uint8Array[] = [];
  let size = 0;
  while (size < BATCH_BYTES) {
    const read = await reader.read();
    if (read.done) break;
    parts.push(read.value);
    size += read.value.length;
  }
  const [only] = parts;
  if (!only) return undefined;
  if (
    parts.length === 1 &&
    only.byteOffset === 0 &&
    only.byteLength === only.buffer.byteLength &&
    only.buffer instanceof ArrayBuffer
  ) {
    return only.buffer;
  }
  const joined = new Uint8Array(size);
  let at = 0;
  for (const part of parts) {
    joined.set(part, at);
    at += part.length;
  }
  return joined.buffer;
}

/**
 * Hands the stream to the Service Worker over a MessageChannel, one chunk per `pull` it sends,
 * then opens its download URL in a hidden frame. The worker answers it with a stream that ends
 * on `done` and errors on `error`; pings keep it alive until then.
 */
function throughServiceWorker(
  active: ServiceWorker,
  target: SaveTarget,
  plaintext: ReadableStream<Uint8Array>,
): Promise<void> {
  const id = crypto.randomUUID();
  const channel = new MessageChannel();
  const port = channel.port1;
  const reader = plaintext.getReader();
  const ping = setInterval(() => active.postMessage({ type: 'ping' }), PING_MS);
  let frame: HTMLIFrameElement | undefined;
  const finish = () => {
    clearInterval(ping);
    // The frame stays a moment: removing it at once may cancel the browser's last writes.
    setTimeout(() => frame?.remove(), 60_000);
  };
  return new Promise<void>((resolve, reject) => {
    const fail = (error: unknown) => {
      port.postMessage({ error: error instanceof Error ? error.message : String(error) });
      finish();
      reject(error);
    };
    port.onmessage = async ({ data }: MessageEvent<{ ready?: true; pull?: true; cancel?: true }>) => {
      if (data.ready) {
        frame = document.createElement('iframe');
        frame.hidden = true;
        frame.title = 'Download';
        frame.src = `${SAVE_PREFIX}${id}`;
        document.body.append(frame);
      } else if (data.cancel) {
        await reader.cancel().catch(() => {});
        finish();
        reject(new Error('The download was cancelled.'));
      } else if (data.pull) {
        try {
          // One message per pull: the chunks read, or (at the next pull) the end.
          const value = await readBatch(reader);
          if (value) {
            port.postMessage({ chunk: value }, [value]);
          } else {
            port.postMessage({ done: true });
            finish();
            resolve();
          }
        } catch (error) {
          fail(error);
        }
      }
    };
    active.postMessage({ type: 'save', id, name: target.name, mime: target.type, size: target.size }, [channel.port2]);
  });
}
