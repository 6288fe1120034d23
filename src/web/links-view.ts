// The share links of a file or of a collection, in a dialog: each link with its state and counts
// (downloads, last access, distinct visitors), its access log, copy and revoke; the access log of
// all its links together; and a form to make one (label, password, download limit, expiry),
// offering only what the account's policy allows. A link to an end-to-end encrypted file, or to a
// collection with encrypted members, carries a header of its own for each (a fresh key shown once
// in the whole URL after `#k=`, or a passphrase): the API refuses a plain one. Through the typed
// client only.
import type {
  Collection,
  EdgeshareClient,
  FileRecord,
  Policy,
  ShareLink,
  ShareLinkCreate,
} from '../client/edgeshare.ts';
import { accessPanel } from './access-view.ts';
import { button, byId, copyText, h, labelOf } from './dom.ts';
import { isEncrypted, linkWayChoice, madeLink, NO_IDENTITY_TEXT } from './e2e-files.ts';
import { describeError, formatDate, isUnauthorized } from './format.ts';
import { boundPassword, expiryChoices, fillExpirySelect, neverAllowed } from './policy-choices.ts';

type Hooks = {
  client: () => EdgeshareClient | null;
  onError: (error: unknown) => void;
  announce: (text: string) => void;
  /** The account's bounds: the form offers only links they allow. */
  policy: () => Policy;
  /** Encrypted files' keys and this browser's identity (e2e-files.ts), for links with headers. */
  e2e: {
    keyOf: (file: FileRecord) => Promise<Uint8Array | undefined>;
    identity: () => Promise<string | undefined>;
  };
};

/** What the dialog shows the links of (`file`: its record, which says whether it is encrypted). */
type Target = { kind: 'file' | 'collection'; id: string; name: string; file?: FileRecord };

/** What the way-in choice says, for an encrypted file and for a collection (whose encrypted members it concerns). */
const WAY_HINTS: Record<Target['kind'], string> = {
  file: 'End-to-end encrypted: the link gets a key of its own, in the whole URL after #k= (shown once, here, when it is made), or opens with a passphrase. The addresses listed above have no key.',
  collection:
    'For its end-to-end encrypted files, if any: one key in the whole URL after #k= (shown once, here, when it is made), or one passphrase, opens them all. The addresses listed above have no key.',
};

/** What the dialog says of its links, by what they share. */
const HINTS: Record<Target['kind'], { access: string; form: string }> = {
  file: {
    access:
      'Every visit of the file’s share link and of the links above: who (an anonymous id that changes every 30 days, never an address), when, from where, what they got.',
    form: 'A made link works even when the file is private. Visitors never see its label or counts.',
  },
  collection: {
    access:
      'Every visit of the links above: the page, the ZIP, each file; who (an anonymous id that changes every 30 days, never an address), when, from where, what they got.',
    form: 'Visitors get a page of the collection’s files, each file’s own download and the ZIP of all. They never see the label or counts.',
  },
};

const STATUS_TEXT: Record<ShareLink['status'], string> = {
  active: 'Active',
  expired: 'Expired',
  exhausted: 'Download limit reached',
  revoked: 'Revoked',
};

export function createLinksView(hooks: Hooks) {
  const dialog = byId<HTMLDialogElement>('links-dialog');
  const list = byId<HTMLUListElement>('links-list');
  const fileLine = byId('links-file');
  const caption = byId('links-caption');
  const form = byId<HTMLFormElement>('link-form');
  const label = byId<HTMLInputElement>('link-label');
  const password = byId<HTMLInputElement>('link-password');
  const max = byId<HTMLInputElement>('link-max');
  const expiry = byId<HTMLSelectElement>('link-expiry');
  const fileAccess = byId<HTMLButtonElement>('links-access');
  const fileLog = byId('links-access-log');
  const passwordLabel = labelOf('link-password');
  const maxLabel = labelOf('link-max');
  let target: Target | null = null;
  // How an encrypted link opens, shown for an encrypted file and a collection; the made link's whole URL below the form.
  const way = linkWayChoice('link-form');
  const wayHint = h('p', { class: 'hint' });
  const wayBox = h('div', { class: 'link-e2e', attrs: { id: 'link-e2e', hidden: '' } }, wayHint, way.element);
  form.querySelector('button[type="submit"]')?.before(wayBox);
  const made = h('div', { class: 'e2e-share-result', attrs: { id: 'link-made', 'aria-live': 'polite' } });
  form.append(made);

  /** Shows or hides an access log in `holder`, loading it (again) when shown. */
  function toggleLog(
    toggle: HTMLButtonElement,
    holder: HTMLElement,
    of: Parameters<typeof accessPanel>[1],
    label: string,
  ) {
    const client = hooks.client();
    if (!client) return;
    const open = toggle.getAttribute('aria-expanded') === 'true';
    toggle.setAttribute('aria-expanded', String(!open));
    holder.replaceChildren(...(open ? [] : [accessPanel(client, of, label, hooks.onError)]));
  }

  /** The form as the policy allows: an expiry within its bound, and the password and cap it requires. */
  function offerChoices(): void {
    const policy = hooks.policy();
    const bound = policy.linkMaxExpirySeconds;
    const never = target?.kind === 'collection' ? 'Never' : 'Never (or with the file)';
    const first = neverAllowed(policy.linkRequireExpiry, bound) ? never : undefined;
    fillExpirySelect(expiry, expiryChoices(bound), { first });
    boundPassword(password, passwordLabel, policy, policy.linkRequirePassword === true);
    const cap = policy.linkMaxDownloads;
    max.required = cap !== null;
    if (cap === null) {
      max.removeAttribute('max');
      max.defaultValue = '';
      maxLabel.textContent = 'Download limit (optional)';
    } else {
      max.max = String(cap);
      max.defaultValue = String(cap);
      maxLabel.textContent = `Download limit (at most ${cap})`;
    }
    form.reset();
  }

  async function load(): Promise<void> {
    const client = hooks.client();
    if (!client || !target) return;
    const shown = target;
    try {
      const links =
        shown.kind === 'file' ? await client.listLinks(shown.id) : await client.listCollectionLinks(shown.id);
      if (target !== shown) return;
      list.replaceChildren(...links.map(item));
      caption.textContent = links.length === 0 ? `No links made to this ${shown.kind} yet.` : '';
    } catch (error) {
      hooks.onError(error);
    }
  }

  function item(link: ShareLink): HTMLLIElement {
    const name = link.label ?? 'Link';
    const counts = `${link.downloadCount}${link.maxDownloads === null ? '' : ` of ${link.maxDownloads}`} downloads`;
    const facts = [
      STATUS_TEXT[link.status],
      counts,
      link.hasPassword ? 'password' : 'no password',
      link.expiresAt ? `expires ${formatDate(link.expiresAt)}` : 'no expiry',
    ].join(' · ');
    const visitors = `${link.visitors} ${link.visitors === 1 ? 'visitor' : 'visitors'}`;
    const access = link.lastAccessAt ? `last access ${formatDate(link.lastAccessAt)} · ${visitors}` : 'never visited';
    const log = h('div', { class: 'link-access' });
    const li = h(
      'li',
      { attrs: { 'data-link-id': link.id, 'data-status': link.status } },
      h('strong', { text: name }),
      h('span', { class: 'muted small', text: facts }),
      h('span', { class: 'muted small link-seen', text: access }),
      h('span', { class: 'link-url', text: link.url }),
    );
    const toggle = button('Access log', {
      class: 'secondary',
      attrs: { 'aria-label': `Access log of ${name}`, 'aria-expanded': 'false' },
      onClick: () => toggleLog(toggle, log, { linkId: link.id }, `Access log of ${name}`),
    });
    li.append(toggle);
    if (link.status === 'active') {
      li.append(
        button('Copy', {
          class: 'secondary',
          attrs: { 'aria-label': `Copy ${name}`, 'data-url': link.url },
          onClick: async () => {
            if (await copyText(link.url)) hooks.announce(`${name} copied.`);
          },
        }),
      );
    }
    if (link.status !== 'revoked') {
      li.append(
        button('Revoke', {
          class: 'danger',
          attrs: { 'aria-label': `Revoke ${name}` },
          onClick: async () => {
            if (!window.confirm(`Revoke “${name}”? Its address stops working for good.`)) return;
            const client = hooks.client();
            if (!client) return;
            try {
              await client.revokeLink(link.id);
              hooks.announce(`${name} revoked.`);
              await load();
            } catch (error) {
              hooks.onError(error);
            }
          },
        }),
      );
    }
    li.append(log);
    return li;
  }

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const client = hooks.client();
    const shown = target;
    if (!client || !shown) return;
    const options: ShareLinkCreate = {};
    if (label.value.trim()) options.label = label.value.trim();
    if (password.value) options.password = password.value;
    if (max.value) options.maxDownloads = Number(max.value);
    if (expiry.value) options.expiresIn = Number(expiry.value);
    made.replaceChildren();
    try {
      const link = await makeLink(client, shown, options);
      form.reset();
      way.reset();
      if (link.encrypted) {
        made.replaceChildren(...madeLink(shown.name, link.url, link.passphrase));
        hooks.announce('Encrypted link made: copy its whole URL now, its key is not kept.');
      } else {
        const copied = await copyText(link.url).catch(() => false);
        hooks.announce(copied ? 'Link made and copied.' : 'Link made.');
      }
      await load();
    } catch (error) {
      if (isUnauthorized(error)) hooks.onError(error);
      else made.replaceChildren(h('p', { class: 'error-text', text: describeError(error) }));
    }
  });

  /**
   * A link to the file or collection: for an encrypted file, or a collection's encrypted members,
   * with a header of its own for each, opened by a fresh key (in the returned URL after `#k=`) or
   * by a passphrase. `encrypted`: whether it has any header.
   */
  async function makeLink(
    client: EdgeshareClient,
    shown: Target,
    options: ShareLinkCreate,
  ): Promise<{ url: string; encrypted: boolean; passphrase: boolean }> {
    const encryptedFile = shown.file !== undefined && isEncrypted(shown.file);
    if (shown.kind === 'file' && !encryptedFile) {
      return { url: (await client.createLink(shown.id, options)).url, encrypted: false, passphrase: false };
    }
    const chosen = way.read();
    if (chosen instanceof Error) throw chosen;
    const passphrase = chosen.passphrase !== undefined;
    if (shown.file && encryptedFile) {
      const fileKey = await hooks.e2e.keyOf(shown.file);
      if (!fileKey) throw new Error(NO_IDENTITY_TEXT);
      const link = await client.createEncryptedLink(shown.id, { fileKey }, { ...options, ...chosen });
      return { url: link.url, encrypted: true, passphrase };
    }
    // A collection: its encrypted members' keys come from this browser's identity (asked only if there are any).
    const identity = await hooks.e2e.identity();
    const opener = () => {
      if (!identity)
        throw new Error(
          'This browser cannot open this collection’s encrypted files: restore or import your identity first.',
        );
      return { identity };
    };
    const link = await client.createEncryptedCollectionLink(shown.id, opener, { ...options, ...chosen });
    return { url: link.url, encrypted: link.encryptedMembers > 0, passphrase };
  }

  fileAccess.addEventListener('click', () => {
    if (!target) return;
    const of = target.kind === 'file' ? { fileId: target.id } : { collectionId: target.id };
    toggleLog(fileAccess, fileLog, of, `Access log of the ${target.kind}’s links`);
  });

  byId<HTMLButtonElement>('links-close').addEventListener('click', () => dialog.close());
  dialog.addEventListener('close', () => {
    target = null;
    list.replaceChildren();
    fileLog.replaceChildren();
    fileAccess.setAttribute('aria-expanded', 'false');
    form.reset();
    way.reset();
    made.replaceChildren();
  });

  function show(shown: Target): void {
    target = shown;
    offerChoices();
    fileLine.textContent = shown.kind === 'file' ? shown.name : `Collection: ${shown.name}`;
    byId('links-access-hint').textContent = HINTS[shown.kind].access;
    byId('link-form-hint').textContent = HINTS[shown.kind].form;
    list.setAttribute('aria-label', `Links to this ${shown.kind}`);
    const withHeaders = shown.kind === 'collection' || (shown.file !== undefined && isEncrypted(shown.file));
    wayBox.hidden = !withHeaders;
    wayHint.textContent = WAY_HINTS[shown.kind];
    way.reset();
    made.replaceChildren();
    caption.textContent = 'Loading…';
    list.replaceChildren();
    dialog.showModal();
    void load();
  }

  return {
    /** Opens the dialog for one file and loads its links. */
    open(file: FileRecord): void {
      show({ kind: 'file', id: file.id, name: file.originalName, file });
    },
    /** Opens the dialog for a collection and loads its links. */
    openCollection(collection: Collection): void {
      show({ kind: 'collection', id: collection.id, name: collection.name });
    },
  };
}
