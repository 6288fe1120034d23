// "File requests" in the web app: make an upload link for people without a key, copy it, see its
// counts and the files it received, close or reopen it. Through the typed client only.
import type { EdgeshareClient, FileRequest, Policy } from '../client/edgeshare.ts';
import { DEFAULT_REQUEST_EXPIRY_SECONDS } from '../lib/web-settings.ts';
import { button, byId, copyText, h, labelOf } from './dom.ts';
import { formatBytes, formatDate } from './format.ts';
import { boundPassword, defaultLinksAllowed, expiryChoices, fillExpirySelect } from './policy-choices.ts';

type Hooks = {
  client: () => EdgeshareClient | null;
  onError: (error: unknown) => void;
  announce: (text: string) => void;
  /** A received file may have changed the account (usage, the files list). */
  onChanged: () => void;
  /** The account's bounds: the form offers only requests they allow. */
  policy: () => Policy;
  /** The account's recipient for an end-to-end encrypted request (made on first use), and the one set, if any. */
  identity: () => Promise<{ recipient: string }>;
  recipient: () => Promise<string | undefined>;
};

const MiB = 1024 * 1024;

const STATUS_TEXT: Record<FileRequest['status'], string> = {
  open: 'Open',
  closed: 'Closed',
  expired: 'Expired',
  full: 'Full',
};

export function createRequestsView(hooks: Hooks) {
  const body = byId<HTMLTableSectionElement>('requests-body');
  const caption = byId('requests-caption');
  const form = byId<HTMLFormElement>('request-form');
  const expiry = byId<HTMLSelectElement>('request-expiry');
  const maxMiB = byId<HTMLInputElement>('request-max-mib');
  const maxMiBLabel = labelOf('request-max-mib');
  /** Whether the person has typed in the form since it was last reset. */
  let edited = false;
  form.addEventListener('input', () => {
    edited = true;
  });
  form.addEventListener('reset', () => {
    edited = false;
  });

  /**
   * The form as the policy allows: how long it stays open within requestMaxExpirySeconds (the
   * API's 7 days by default), a size limit it requires under requestMaxBytes, the password length.
   */
  function offerChoices(): void {
    const policy = hooks.policy();
    const choices = expiryChoices(policy.requestMaxExpirySeconds);
    fillExpirySelect(expiry, choices, { chosen: DEFAULT_REQUEST_EXPIRY_SECONDS, prefix: '' });
    boundPassword(byId('request-password'), labelOf('request-password'), policy, false);
    // Received files are private while a link bound bars default links: no public choice then.
    byId('request-public-choice').hidden = !defaultLinksAllowed(policy);
    const bytes = policy.requestMaxBytes;
    maxMiB.required = bytes !== null;
    if (bytes === null) {
      maxMiB.removeAttribute('max');
      maxMiB.defaultValue = '';
      maxMiBLabel.textContent = 'Size limit in MiB (optional)';
    } else {
      maxMiB.max = String(bytes / MiB);
      maxMiB.defaultValue = String(bytes / MiB);
      maxMiBLabel.textContent = `Size limit in MiB (at most ${bytes / MiB})`;
    }
    // The bounds arrive a moment after signing in: never wipe what the person has begun to type.
    if (!edited) form.reset();
    else if (bytes !== null && (maxMiB.value === '' || Number(maxMiB.value) > bytes / MiB)) {
      maxMiB.value = String(bytes / MiB);
    }
  }

  let recipient: string | undefined;
  /** The link to hand out: an e2e request's with `#r=<recipient>`, so its page can encrypt. */
  const linkOf = (request: FileRequest) => (request.e2e && recipient ? `${request.url}#r=${recipient}` : request.url);

  async function load(): Promise<void> {
    const client = hooks.client();
    if (!client) return;
    try {
      const { requests, pagination } = await client.listRequests({ limit: 50 });
      // An e2e request's link carries the account's recipient in its fragment (#r=), which the server never serves.
      recipient = requests.some((request) => request.e2e) ? await hooks.recipient() : undefined;
      caption.textContent =
        pagination.total === 0
          ? 'No file requests yet.'
          : `${pagination.total} file request${pagination.total === 1 ? '' : 's'}, newest first`;
      body.replaceChildren(...requests.flatMap(rowsOf));
    } catch (error) {
      hooks.onError(error);
    }
  }

  function rowsOf(request: FileRequest): HTMLTableRowElement[] {
    const name = request.label || 'Untitled request';
    const filesRow = h('tr', { class: 'request-files', attrs: { hidden: '' } });
    const files = h('td', { attrs: { colspan: '5' } });
    filesRow.append(files);
    const note = h('span', { class: 'copy-status', attrs: { role: 'status' } });
    const url = h('input', {
      class: 'share-url',
      attrs: { readonly: '', value: linkOf(request), spellcheck: 'false', 'aria-label': `Link of ${name}` },
    });
    const copy = button('Copy link', {
      attrs: { 'aria-label': `Copy the link of ${name}` },
      onClick: async () => {
        note.textContent = (await copyText(linkOf(request), url)) ? 'Copied.' : 'Selected: press Ctrl+C (⌘C) to copy.';
      },
    });
    const show = button(`Files (${request.fileCount})`, {
      class: 'secondary',
      attrs: { 'aria-label': `Files received by ${name}`, 'aria-expanded': 'false' },
      onClick: async () => {
        const opening = filesRow.hidden;
        filesRow.hidden = !opening;
        show.setAttribute('aria-expanded', String(opening));
        if (opening) await showFiles(request, files);
      },
    });
    const open = request.status !== 'closed';
    const toggle = button(open ? 'Close' : 'Reopen', {
      class: open ? 'danger' : 'secondary',
      attrs: { 'aria-label': `${open ? 'Close' : 'Reopen'} ${name}` },
      onClick: async () => {
        const client = hooks.client();
        if (!client) return;
        try {
          if (open) await client.closeRequest(request.id);
          else await client.updateRequest(request.id, { closed: false });
          hooks.announce(`${name} ${open ? 'closed' : 'reopened'}.`);
          await load();
        } catch (error) {
          hooks.onError(error);
        }
      },
    });
    const limits = `${request.fileCount} of ${request.maxFiles} files · ${formatBytes(request.bytes)}${
      request.maxBytes === null ? '' : ` of ${formatBytes(request.maxBytes)}`
    }`;
    const row = h(
      'tr',
      { attrs: { 'data-request-id': request.id } },
      h(
        'th',
        { class: 'name-cell', attrs: { scope: 'row' } },
        h('span', { class: 'upload-name', text: name }),
        request.hasPassword ? ' (password)' : '',
        h('span', { class: 'muted small', text: `Until ${formatDate(request.expiresAt)}` }),
      ),
      h('td', { text: STATUS_TEXT[request.status], attrs: { 'data-status': request.status, 'data-label': 'Status' } }),
      h('td', { text: limits, attrs: { 'data-label': 'Received' } }),
      h('td', { attrs: { 'data-label': 'Link' } }, h('div', { class: 'row share-link' }, url, copy, note)),
      h('td', { class: 'actions', attrs: { 'data-label': 'Actions' } }, show, toggle),
    );
    return [row, filesRow];
  }

  async function showFiles(request: FileRequest, cell: HTMLElement): Promise<void> {
    const client = hooks.client();
    if (!client) return;
    cell.textContent = 'Loading…';
    try {
      const { files } = await client.requestFiles(request.id, { limit: 100 });
      if (files.length === 0) {
        cell.textContent = 'Nothing received yet.';
        return;
      }
      cell.replaceChildren(
        h(
          'ul',
          { class: 'received' },
          ...files.map((file) =>
            h(
              'li',
              {},
              h('span', { text: file.originalName }),
              ` · ${formatBytes(file.size)} · ${formatDate(file.uploadedAt)}`,
            ),
          ),
        ),
      );
    } catch (error) {
      hooks.onError(error);
    }
  }

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const client = hooks.client();
    if (!client) return;
    const value = (id: string) => byId<HTMLInputElement>(id).value.trim();
    const maxFiles = Number(value('request-max-files') || '10');
    // MiB as typed, in whole bytes; never past the policy's bound by rounding.
    const mib = value('request-max-mib');
    const maxBytes = mib ? Math.max(1, Math.floor(Number(mib) * MiB)) : undefined;
    const e2e = hooks.policy().e2eAllowed && byId<HTMLInputElement>('request-e2e').checked;
    try {
      // The account's identity first (made on first use): the request's link needs its recipient.
      if (e2e) await hooks.identity();
      const made = await client.createRequest({
        ...(e2e ? { e2e: true } : {}),
        label: value('request-label') || undefined,
        message: value('request-message') || undefined,
        maxFiles,
        maxBytes,
        expiresIn: Number(expiry.value),
        password: value('request-password') || undefined,
        isPublic: defaultLinksAllowed(hooks.policy()) && byId<HTMLInputElement>('request-public').checked,
      });
      form.reset();
      hooks.announce(`File request made: ${made.url}`);
      await load();
    } catch (error) {
      hooks.onError(error);
    }
  });

  return { load, offerChoices, clear: () => body.replaceChildren() };
}
