// The decrypting script of the share pages of end-to-end encrypted files (bundled by
// scripts/assets.mjs into /assets/e2e-share.js): a file's page (#e2e holds its download URL, its
// link's header and its sealed `meta`) and a collection's page (each encrypted member's <li>
// holds its id, header and meta). The key comes from the fragment (`#k=`), which the browser never
// sends; a passphrase link asks for the phrase. Names from `meta` go in as text, never markup.
import { downloadZip } from 'client-zip';
import type { FileMeta } from '../lib/age/meta.ts';
import { formatBytes } from '../lib/format.ts';
import {
  explain,
  keyFromFragment,
  metaOf,
  needsPassphrase,
  openDownload,
  type Unlock,
  unlockHeader,
} from './e2e-open.ts';
import { chooseSaver, prepareSaver, type Saver } from './e2e-save.ts';

/** Images, text, audio and video up to this size show a preview after decryption: 16 MiB. */
const PREVIEW_MAX_BYTES = 16 * 1024 * 1024;
const PREVIEWABLE = /^(image|audio|video|text)\//;

const saverReady = prepareSaver();

/**
 * The Service Worker's registration settled (at most 3 s), before a Download button shows: the
 * saver is chosen at the click, and one made before it settled would take the File System Access
 * picker or a Blob instead.
 */
const saverSettled = () => Promise.race([saverReady, new Promise((resolve) => setTimeout(resolve, 3000))]);

function say(status: HTMLElement, text: string, state?: 'ready' | 'busy' | 'done' | 'error') {
  status.textContent = text;
  if (state) status.dataset.state = state;
  status.classList.toggle('error', state === 'error');
}

/** Asks for the passphrase (a passphrase link), or takes the fragment's key; calls `open` with it. */
function askUnlock(
  status: HTMLElement,
  form: HTMLFormElement,
  passphrase: boolean,
  open: (unlock: Unlock) => Promise<void>,
) {
  if (passphrase) {
    form.hidden = false;
    say(status, 'This link is opened with a passphrase: enter it to decrypt.', 'ready');
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      const input = form.querySelector('input');
      const phrase = input?.value ?? '';
      if (!phrase) return;
      say(status, 'Checking the passphrase…', 'busy');
      open({ passphrase: phrase }).then(
        () => {
          form.hidden = true;
        },
        (error) => say(status, explain(error, { passphrase: phrase }), 'error'),
      );
    });
    return;
  }
  const identity = keyFromFragment();
  if (!identity) {
    say(
      status,
      'This link is incomplete: its key (the part after #k=) is missing. Ask whoever sent it for the whole link.',
      'error',
    );
    return;
  }
  open({ identity }).catch((error) => say(status, explain(error, { identity }), 'error'));
}

/** Counts the bytes that pass, for the status line. */
function progress(status: HTMLElement, total: number | undefined): TransformStream<Uint8Array, Uint8Array> {
  let seen = 0;
  let shown = 0;
  return new TransformStream({
    transform(chunk, controller) {
      seen += chunk.length;
      if (seen - shown >= 1024 * 1024 || seen === total) {
        shown = seen;
        say(status, `Decrypting… ${formatBytes(seen)}${total === undefined ? '' : ` of ${formatBytes(total)}`}`);
      }
      controller.enqueue(chunk);
    },
  });
}

/** Runs one save: the status says how it went, and a failure is never shown as a saved file. */
async function runSave(
  status: HTMLElement,
  saver: Saver,
  plaintext: () => Promise<ReadableStream<Uint8Array>>,
  total?: number,
) {
  say(status, 'Downloading and decrypting…', 'busy');
  try {
    await saver.save((await plaintext()).pipeThrough(progress(status, total)));
    say(status, 'Saved: every byte was decrypted and checked.', 'done');
  } catch (error) {
    say(status, explain(error), 'error');
  }
}

function showPreview(box: HTMLElement, meta: FileMeta, blob: Blob) {
  const label = `Preview of ${meta.name}`;
  box.replaceChildren();
  if (meta.type.startsWith('text/')) {
    const pre = document.createElement('pre');
    pre.tabIndex = 0;
    pre.setAttribute('aria-label', `Contents of ${meta.name}`);
    blob.text().then((text) => {
      pre.textContent = text;
    });
    box.append(pre);
    return;
  }
  const kind = meta.type.split('/')[0];
  const element = document.createElement(kind === 'image' ? 'img' : kind === 'audio' ? 'audio' : 'video');
  element.src = URL.createObjectURL(blob);
  if (element instanceof HTMLImageElement) element.alt = label;
  else {
    element.controls = true;
    element.setAttribute('aria-label', label);
  }
  box.append(element);
}

/** A file's share page. */
function filePage(box: HTMLElement) {
  const status = box.querySelector<HTMLElement>('.e2e-status');
  const form = box.querySelector<HTMLFormElement>('.e2e-passphrase');
  const save = box.querySelector<HTMLButtonElement>('.e2e-save');
  const show = box.querySelector<HTMLButtonElement>('.e2e-show');
  const previewBox = box.querySelector<HTMLElement>('.e2e-preview');
  const { download, header = '', meta: sealed } = box.dataset;
  if (!status || !form || !save || !show || !previewBox || !download) return;
  if (!header) {
    say(status, 'This link has no key for this file: open it with edgeshare’s command line or age.', 'error');
    return;
  }
  askUnlock(status, form, needsPassphrase(header), async (unlock) => {
    const fileKey = await unlockHeader(header, unlock);
    const meta = metaOf(fileKey, sealed);
    const name = meta?.name ?? 'file';
    if (meta) {
      const title = document.querySelector('h1');
      if (title) title.textContent = meta.name;
      document.title = `${meta.name} · edgeshare`;
      const facts = document.querySelectorAll('.file-facts dd');
      if (facts[0]) facts[0].textContent = formatBytes(meta.size);
      if (facts[1]) facts[1].textContent = meta.type;
    }
    for (const note of document.querySelectorAll('.e2e-note, .e2e-note + pre')) (note as HTMLElement).hidden = true;
    const open = () => openDownload(download, header, fileKey, meta);
    await saverSettled();
    save.hidden = false;
    save.textContent = meta ? `Download (${formatBytes(meta.size)})` : 'Download';
    say(status, 'End-to-end encrypted: it is decrypted in this browser as it downloads.', 'ready');
    save.addEventListener('click', () => {
      let saver: Saver;
      try {
        saver = chooseSaver({ name, type: meta?.type ?? 'application/octet-stream', size: meta?.size });
      } catch (error) {
        say(status, explain(error), 'error');
        return;
      }
      save.disabled = true;
      runSave(status, saver, open, meta?.size).finally(() => {
        save.disabled = false;
      });
    });
    if (meta && PREVIEWABLE.test(meta.type) && meta.size <= PREVIEW_MAX_BYTES) {
      show.hidden = false;
      show.addEventListener('click', async () => {
        show.disabled = true;
        say(status, 'Decrypting the preview…', 'busy');
        try {
          const blob = await new Response(await open()).blob();
          showPreview(previewBox, meta, new Blob([blob], { type: meta.type }));
          previewBox.hidden = false;
          show.hidden = true;
          say(status, 'End-to-end encrypted: decrypted in this browser.', 'ready');
        } catch (error) {
          show.disabled = false;
          say(status, explain(error), 'error');
        }
      });
    }
  });
}

type Member = {
  item: HTMLElement;
  id: string;
  url: string;
  name: string;
  open?: () => Promise<ReadableStream<Uint8Array>>;
};

/** A collection's page: encrypted members renamed from their `meta`, each download and "Download all" decrypted. */
function collectionPage(status: HTMLElement) {
  const form = document.querySelector<HTMLFormElement>('.e2e-passphrase');
  const all = document.querySelector<HTMLAnchorElement>('a.download-all');
  const base = status.dataset.base ?? '';
  if (!form || !all) return;
  const members: Member[] = [...document.querySelectorAll<HTMLElement>('li.collection-file')].flatMap((item) => {
    const link = item.querySelector<HTMLAnchorElement>('a[download]');
    const id = item.dataset.fileId ?? link?.pathname.split('/').pop();
    const name = item.querySelector('.file-name')?.textContent ?? 'file';
    return link && id ? [{ item, id, url: `${base}/files/${id}`, name }] : [];
  });
  const encrypted = members.filter((member) => member.item.dataset.header !== undefined);
  const passphrase = encrypted.some((member) => needsPassphrase(member.item.dataset.header ?? ''));
  askUnlock(status, form, passphrase, async (unlock) => {
    await saverSettled();
    let opened = 0;
    for (const member of encrypted) {
      const header = member.item.dataset.header ?? '';
      let fileKey: Uint8Array;
      try {
        fileKey = await unlockHeader(header, unlock);
      } catch (error) {
        if (opened === 0) throw error;
        continue;
      }
      opened++;
      const meta = metaOf(fileKey, member.item.dataset.meta);
      if (meta) {
        member.name = meta.name;
        const title = member.item.querySelector('.file-name');
        if (title) title.textContent = meta.name;
        const facts = member.item.querySelector('.file-meta');
        if (facts) facts.textContent = `${formatBytes(meta.size)} · ${meta.type}`;
      }
      for (const note of member.item.querySelectorAll<HTMLElement>('.e2e-note, .e2e-note + pre')) note.hidden = true;
      const open = () => openDownload(member.url, header, fileKey, meta);
      member.open = open;
      const button = member.item.querySelector<HTMLAnchorElement>('a[download]');
      if (!button) continue;
      const size = meta ? ` (${formatBytes(meta.size)})` : '';
      button.textContent = `Download${size}`;
      button.setAttribute('aria-label', `Download ${member.name}${size}`);
      button.addEventListener('click', (event) => {
        event.preventDefault();
        let saver: Saver;
        try {
          saver = chooseSaver({ name: member.name, type: meta?.type ?? 'application/octet-stream', size: meta?.size });
        } catch (error) {
          say(status, explain(error), 'error');
          return;
        }
        void runSave(status, saver, open, meta?.size);
      });
    }
    all.textContent = 'Download all (ZIP)';
    all.addEventListener('click', (event) => {
      event.preventDefault();
      const name = `${status.dataset.name || 'files'}.zip`;
      let saver: Saver;
      try {
        saver = chooseSaver({ name, type: 'application/zip' });
      } catch (error) {
        say(status, explain(error), 'error');
        return;
      }
      void runSave(status, saver, async () => zipOf(members));
    });
    say(status, 'End-to-end encrypted: the files are decrypted in this browser as they download.', 'ready');
  });
}

/** The ZIP of every member's plaintext (an encrypted one decrypted, a plain one as served), made as it streams. */
function zipOf(members: Member[]): ReadableStream<Uint8Array> {
  const lastModified = new Date();
  async function* entries() {
    for (const member of members) {
      if (member.item.dataset.header !== undefined && !member.open) continue;
      const input = member.open
        ? await member.open()
        : await fetch(member.url, { credentials: 'same-origin', cache: 'no-store' }).then((response) => {
            if (!response.ok || !response.body) throw new Error(`${member.name} answered ${response.status}`);
            return response.body;
          });
      yield { name: member.name, input, lastModified };
    }
  }
  const body = downloadZip(entries()).body;
  if (!body) throw new Error('The ZIP could not be made');
  return body;
}

const box = document.getElementById('e2e');
if (box) {
  // Registering first: the saving Service Worker is active by the time the visitor clicks.
  void saverReady;
  if (box.dataset.download !== undefined) filePage(box);
  else collectionPage(box);
}
