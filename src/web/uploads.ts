// The upload queue: one list item per file with its own progress bar, status, and afterwards its
// share link and a copy button. Small files go in one multipart request, large ones through tus.
import { type EdgeshareClient, EdgeshareError } from '../client/edgeshare.ts';
import { TUS_CHUNK_BYTES, TUS_FROM_BYTES, UPLOAD_CONCURRENCY } from '../lib/web-settings.ts';
import { button, copyText, h } from './dom.ts';
import { E2E_TUS_CHUNK_BYTES, type PreparedUpload, prepareEncryptedUpload, refusedForGood } from './e2e-upload.ts';
import type { OwnIdentity } from './e2e-view.ts';
import { describeError, formatBytes, isUnauthorized } from './format.ts';
import { uploadItem as listItem } from './upload-item.ts';

/** `defaultLinks`: whether the policy lets files be public (else only made links share them). */
/** `encrypt`: end to end, to the account's identity (e2e-upload.ts). */
export type UploadSettings = {
  isPublic: boolean;
  expiresIn: number | undefined;
  defaultLinks: boolean;
  encrypt: boolean;
};

type Hooks = {
  client: () => EdgeshareClient | null;
  settings: () => UploadSettings;
  /** The account's identity for an encrypted upload (made on first use). */
  identity: () => Promise<OwnIdentity>;
  /** After each finished upload (the list and usage change). */
  onUploaded: () => void;
  /** Any failure, for the banner: a 401 signs out. */
  onError: (error: unknown) => void;
};

/** `discard`: the item leaves the list (an encrypted upload that did not complete drops its keys). */
type Job = { file: File; item: HTMLLIElement; run: () => Promise<void>; discard: () => Promise<void> };

export function createUploader(list: HTMLUListElement, clear: HTMLButtonElement, hooks: Hooks) {
  const waiting: Job[] = [];
  let running = 0;
  const discards = new WeakMap<Element, Job['discard']>();

  // "Clear finished" removes the items of uploads that are done or failed (a failed encrypted
  // upload's keys with them: removed, it is not resumed).
  const finished = () => list.querySelectorAll('li[data-state="done"], li[data-state="error"]');
  const updateClear = () => {
    clear.hidden = finished().length === 0;
  };
  clear.addEventListener('click', () => {
    for (const item of finished()) {
      void discards.get(item)?.();
      item.remove();
    }
    updateClear();
  });
  new MutationObserver(updateClear).observe(list, { subtree: true, attributes: true, attributeFilter: ['data-state'] });

  const next = () => {
    while (running < UPLOAD_CONCURRENCY && waiting.length > 0) {
      const job = waiting.shift() as Job;
      running++;
      job.run().finally(() => {
        running--;
        next();
      });
    }
  };

  function add(files: Iterable<File>): void {
    for (const file of files) {
      const job = uploadItem(file, hooks, hooks.settings().encrypt);
      list.prepend(job.item);
      discards.set(job.item, job.discard);
      waiting.push(job);
    }
    next();
  }

  return { add };
}

function uploadItem(file: File, hooks: Hooks, encrypt: boolean): Job {
  const name = file.name || 'file';
  // An encrypted upload always goes through tus: it resumes from the keys the browser kept.
  const resumable = encrypt || file.size >= TUS_FROM_BYTES;
  const controller = new AbortController();
  const cancel = button('Cancel', {
    class: 'secondary',
    attrs: { 'aria-label': `Cancel the upload of ${name}` },
    onClick: () => controller.abort(new DOMException('cancelled', 'AbortError')),
  });
  const result = h('div', { class: 'upload-result' });
  /** An encrypted upload's kept keys, while it has not completed. */
  let prepared: PreparedUpload | undefined;
  /** Drops them: the upload failed for good, was cancelled, or its item was removed. */
  const abandon = async () => {
    const kept = prepared;
    prepared = undefined;
    await kept?.abandon();
  };
  const {
    item,
    status,
    show,
    finish: end,
  } = listItem(name, `${formatBytes(file.size)}${encrypt ? ' · encrypted' : ''}${resumable ? ' · resumable' : ''}`, {
    head: [cancel],
    after: [result],
  });

  const run = async () => {
    const client = hooks.client();
    if (controller.signal.aborted) return finish('error', 'Cancelled.');
    if (!client) return finish('error', 'No API key: paste one above, then add the file again.');
    item.dataset.state = 'uploading';
    status.textContent = 'Starting…';
    const { isPublic, expiresIn, defaultLinks } = hooks.settings();
    // A cancelled upload is deleted from the server too: the user asked for it to go, not to pause.
    const options = {
      filename: name,
      isPublic,
      expiresIn,
      onProgress: show,
      signal: controller.signal,
      terminateOnAbort: true,
    };
    try {
      if (encrypt) {
        await encrypted(client, options);
        finish('done', 'Uploaded, encrypted end to end: share it with “Share” in Your files (a link with its key).');
        hooks.onUploaded();
        return;
      }
      const record = resumable
        ? await client.uploadResumable(file, { ...options, chunkSize: TUS_CHUNK_BYTES })
        : await client.upload(file, options);
      show(file.size, file.size);
      if (!defaultLinks) {
        // Its default link cannot work under the policy: no dead link is shown.
        finish('done', 'Uploaded, private: share it with a link you make (Links, in Your files).');
      } else {
        finish('done', isPublic ? 'Uploaded.' : 'Uploaded, private: the share link works once you make it public.');
        result.append(shareLink(name, record.shareUrl));
      }
      hooks.onUploaded();
    } catch (error) {
      const cancelled = controller.signal.aborted;
      // An encrypted upload keeps its keys only to resume after a cut: cancelled or refused, they go.
      const forGood = cancelled || (error instanceof EdgeshareError && refusedForGood(error.status));
      if (encrypt && forGood) await abandon();
      let after = resumable ? ' Add the same file again to resume where it stopped.' : '';
      if (encrypt) after = ' Its keys are deleted from this browser: adding it again starts over.';
      const text = cancelled ? `Cancelled.${after}` : describeError(error);
      finish('error', text);
      if (!cancelled && isUnauthorized(error)) hooks.onError(error);
    }
  };

  /** The age file, made in the Web Worker as tus reads it; resumes an upload of the same file begun earlier. */
  async function encrypted(
    client: EdgeshareClient,
    options: { isPublic: boolean; expiresIn: number | undefined; signal: AbortSignal; terminateOnAbort: boolean },
  ): Promise<void> {
    status.textContent = 'Preparing the encryption…';
    const own = await hooks.identity();
    const ready = await prepareEncryptedUpload(file, own.recipient, client.api('/uploads'), (text) => {
      status.textContent = text;
    });
    prepared = ready;
    // Cancelled while it was read: nothing is sent, and its keys go at once.
    if (options.signal.aborted) throw options.signal.reason;
    status.textContent = ready.resumed ? 'Resuming…' : 'Encrypting and uploading…';
    await client.uploadResumable(file, {
      ...options,
      filename: ready.metadata.filename,
      type: 'application/octet-stream',
      encryption: 'age',
      meta: ready.metadata.meta,
      size: ready.size,
      chunkSize: E2E_TUS_CHUNK_BYTES,
      onProgress: show,
      tus: ready.tus,
    });
    show(ready.size, ready.size);
    ready.forget();
    prepared = undefined;
  }

  function finish(state: 'done' | 'error', text: string) {
    end(state, text);
    cancel.remove();
  }

  return { file, item, run, discard: abandon };
}

/** A read-only field with the link, a copy button and a status line. */
export function shareLink(name: string, url: string): HTMLElement {
  const field = h('input', {
    class: 'share-url',
    attrs: { readonly: '', value: url, spellcheck: 'false', 'aria-label': `Share link of ${name}` },
  });
  const note = h('span', { class: 'copy-status', attrs: { role: 'status' } });
  const copy = button('Copy link', {
    attrs: { 'aria-label': `Copy the share link of ${name}`, 'data-url': url },
    onClick: async () => {
      note.textContent = (await copyText(url, field)) ? 'Copied.' : 'Selected: press Ctrl+C (⌘C) to copy.';
    },
  });
  return h('div', { class: 'row share-link' }, field, copy, note);
}
