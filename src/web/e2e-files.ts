// Encrypted files in "Your files": their real names and types, read from each file's `meta` with
// the file key that the owner's header gives up to this browser's identity; "Share" making a link
// with a header of its own (a fresh identity whose secret key ends the URL as `#k=…`, or a
// passphrase); and a download that decrypts in the page, checks the plaintext against `meta` and
// saves it as the share pages do.
import type { EdgeshareClient, FileRecord } from '../client/edgeshare.ts';
import { type FileMeta, openMeta, recoverFileKey } from '../lib/age/index.ts';
import { button, h } from './dom.ts';
import { chooseSaver, prepareSaver, type Saver } from './e2e-save.ts';
import { describeError } from './format.ts';
import { shareLink } from './uploads.ts';

type Hooks = {
  client: () => EdgeshareClient | null;
  /** This browser's identity for the account, if it holds one. */
  identity: () => Promise<string | undefined>;
  onError: (error: unknown) => void;
  announce: (text: string) => void;
};

/** An encrypted file opened with this browser's identity: its key and what its `meta` says. */
type Opened = { fileKey: Uint8Array; meta?: FileMeta };

export const isEncrypted = (file: FileRecord): boolean => file.encryption === 'age';

export function createE2eFiles(hooks: Hooks) {
  const opened = new Map<string, Opened>();
  let saverAsked = false;

  /** The files as the list shows them: an encrypted one with its real name, type and size where this browser can open it. */
  async function reveal(files: FileRecord[]): Promise<FileRecord[]> {
    if (!files.some(isEncrypted)) return files;
    // The saving Service Worker, registered once there is an encrypted file to save.
    if (!saverAsked) {
      saverAsked = true;
      void prepareSaver();
    }
    const identity = await hooks.identity();
    return Promise.all(
      files.map(async (file) => {
        if (!isEncrypted(file)) return file;
        const known = identity ? await open(file, identity) : undefined;
        const meta = known?.meta;
        return meta
          ? { ...file, originalName: meta.name, mimeType: `${meta.type} · encrypted`, size: meta.size }
          : file;
      }),
    );
  }

  async function open(file: FileRecord, identity: string): Promise<Opened | undefined> {
    const cached = opened.get(file.id);
    if (cached) return cached;
    if (!file.e2eHeader) return undefined;
    try {
      const fileKey = await recoverFileKey(new TextEncoder().encode(file.e2eHeader), { identity });
      let meta: FileMeta | undefined;
      try {
        meta = file.meta ? openMeta(fileKey, file.meta) : undefined;
      } catch {
        meta = undefined;
      }
      const result = { fileKey, meta };
      opened.set(file.id, result);
      return result;
    } catch {
      // Another identity's file (uploaded before the account's identity was replaced).
      return undefined;
    }
  }

  /** "Share": a panel that makes a keyed link (or a passphrase link) and shows its whole URL with a copy button. */
  function share(file: FileRecord): HTMLElement {
    const name = file.originalName;
    const wrap = h('div', { class: 'cell-stack e2e-share' });
    const panel = h('div', { class: 'e2e-share-panel', attrs: { hidden: '' } });
    const way = linkWayChoice(file.id);
    const result = h('div', { class: 'e2e-share-result' });
    const make = button('Make link', {
      attrs: { 'aria-label': `Make an encrypted link to ${name}` },
      onClick: async () => {
        const client = hooks.client();
        const identity = await hooks.identity();
        if (!client) return;
        const known = identity ? await open(file, identity) : undefined;
        if (!known) return result.replaceChildren(errorLine(NO_IDENTITY_TEXT));
        const chosen = way.read();
        if (chosen instanceof Error) return result.replaceChildren(errorLine(chosen.message));
        make.disabled = true;
        try {
          const made = await client.createEncryptedLink(file.id, { fileKey: known.fileKey }, chosen);
          result.replaceChildren(...madeLink(name, made.url, chosen.passphrase !== undefined));
          hooks.announce(`Encrypted link to “${name}” made.`);
        } catch (error) {
          result.replaceChildren(errorLine(describeError(error)));
        } finally {
          make.disabled = false;
        }
      },
    });
    panel.append(way.element, make, result);
    const open_ = button('Share', {
      class: 'secondary',
      attrs: { 'aria-label': `Share ${name} (encrypted)`, 'aria-expanded': 'false' },
      onClick: () => {
        panel.hidden = !panel.hidden;
        open_.setAttribute('aria-expanded', String(!panel.hidden));
      },
    });
    wrap.append(open_, panel);
    return wrap;
  }

  /**
   * Downloads through the API, decrypts in the page (checked against `meta`), and saves the
   * plaintext the way the share pages do (e2e-save.ts): through the Service Worker, else the File
   * System Access API, else a Blob below its limit; a download that fails leaves no complete file.
   */
  function download(file: FileRecord): HTMLElement {
    const control = button('Download', {
      class: 'secondary',
      attrs: { 'aria-label': `Download ${file.originalName} (decrypted)` },
      onClick: async () => {
        const client = hooks.client();
        const identity = await hooks.identity();
        if (!client) return;
        if (!identity) return hooks.onError(new Error('Restore or import your identity to open encrypted files.'));
        const meta = opened.get(file.id)?.meta;
        const name = meta?.name ?? file.originalName.replace(/\.age$/, '');
        let saver: Saver;
        try {
          saver = chooseSaver({ name, type: meta?.type ?? 'application/octet-stream', size: meta?.size });
        } catch (error) {
          return hooks.onError(error);
        }
        control.disabled = true;
        try {
          const result = await client.downloadDecrypted(file.id, { identity });
          await saver.save(result.plaintext);
          hooks.announce(`“${name}” decrypted and saved.`);
        } catch (error) {
          hooks.onError(error);
        } finally {
          control.disabled = false;
        }
      },
    });
    return control;
  }

  /** The file key of an encrypted file, when this browser's identity opens it. */
  async function keyOf(file: FileRecord): Promise<Uint8Array | undefined> {
    const identity = await hooks.identity();
    return identity ? (await open(file, identity))?.fileKey : undefined;
  }

  return { reveal, share, download, keyOf };
}

/** Said when this browser holds no identity that opens the file. */
export const NO_IDENTITY_TEXT = 'This browser cannot open this file: restore or import your identity first.';

const errorLine = (text: string) => h('p', { class: 'error-text', text });

/** How an encrypted link opens, chosen by the owner: what `read` gives to `createEncrypted…Link`. */
export type LinkWay = {
  element: HTMLElement;
  /** `{}` for a key in the link, `{ passphrase }` for a passphrase link, or why the passphrase is refused. */
  read: () => { passphrase?: string } | Error;
  /** Back to a key in the link, the passphrase cleared. */
  reset: () => void;
};

/**
 * The choice of an encrypted link's way in ("Key in the link", or "Passphrase" with its field),
 * for "Share" and for the Links dialog; `id` keeps its controls' ids unique on the page.
 */
export function linkWayChoice(id: string): LinkWay {
  const keyed = h('input', { attrs: { type: 'radio', name: `e2e-way-${id}`, id: `e2e-keyed-${id}` } });
  keyed.defaultChecked = true; // (kept by a form.reset() too)
  keyed.checked = true;
  const phrased = h('input', { attrs: { type: 'radio', name: `e2e-way-${id}`, id: `e2e-phrase-${id}` } });
  const phrase = h('input', {
    attrs: { type: 'password', id: `e2e-link-phrase-${id}`, autocomplete: 'new-password', minlength: '10' },
  });
  const phraseField = h(
    'span',
    { class: 'inline-field', attrs: { hidden: '' } },
    h('label', { text: 'Passphrase for the link', attrs: { for: phrase.id } }),
    phrase,
  );
  const toggle = () => {
    phraseField.hidden = !phrased.checked;
  };
  keyed.addEventListener('change', toggle);
  phrased.addEventListener('change', toggle);
  const element = h(
    'div',
    { class: 'e2e-way' },
    h(
      'div',
      { class: 'row compact' },
      h('span', { class: 'check' }, keyed, h('label', { text: 'Key in the link', attrs: { for: keyed.id } })),
      h('span', { class: 'check' }, phrased, h('label', { text: 'Passphrase', attrs: { for: phrased.id } })),
    ),
    phraseField,
  );
  return {
    element,
    read: () => {
      if (!phrased.checked) return {};
      if (phrase.value.length < 10) return new Error('Use a passphrase of at least 10 characters.');
      return { passphrase: phrase.value };
    },
    reset: () => {
      keyed.checked = true;
      phrase.value = '';
      toggle();
    },
  };
}

/** A made encrypted link: its whole URL (with `#k=…` for a keyed one) with a copy button, and what to do with it. */
export function madeLink(name: string, url: string, phrased: boolean): HTMLElement[] {
  const hint = phrased
    ? 'Send the passphrase another way: the link alone does not open the file.'
    : 'The key is the part after #k=: anyone with the whole link can open the file; the service never sees the key. It is shown only now.';
  return [shareLink(name, url), h('p', { class: 'hint', text: hint })];
}
