// "Your files": one page of the key's files as a table, with search, order, pages, and per row
// public/private, expiry, copy link, download and delete; several rows can be deleted at once.
import type { EdgeshareClient, FileRecord, ListOptions, Pagination, Policy } from '../client/edgeshare.ts';
import { PAGE_SIZE } from '../lib/web-settings.ts';
import { button, byId, copyText, h, saveBlob } from './dom.ts';
import { type createE2eFiles, isEncrypted } from './e2e-files.ts';
import { formatBytes, formatCount, formatDate } from './format.ts';
import { defaultLinksAllowed, expiryChoices, neverAllowed } from './policy-choices.ts';

type Hooks = {
  client: () => EdgeshareClient | null;
  /** A failure of an action, for the banner (a 401 signs out). */
  onError: (error: unknown) => void;
  /** A message for everyone, read out by screen readers. */
  announce: (text: string) => void;
  /** After anything that changes usage. */
  onChanged: () => void;
  /** Opens the file's share links (links-view.ts). */
  openLinks: (file: FileRecord) => void;
  /** The account's bounds: a row offers only the expiries, and the public share link, they allow. */
  policy: () => Policy;
  /** Puts the selected files into a collection (collections-view.ts); true when done. */
  collect: (fileIds: string[]) => Promise<boolean>;
  /** Encrypted files: real names, "Share" with a key, decrypting downloads (e2e-files.ts). */
  e2e: ReturnType<typeof createE2eFiles>;
};

type Query = Required<Pick<ListOptions, 'page' | 'sort' | 'order'>> & { q: string };

export function createFilesView(hooks: Hooks) {
  const body = byId<HTMLTableSectionElement>('files-body');
  const caption = byId('files-caption');
  const selectAll = byId<HTMLInputElement>('select-all');
  const deleteSelected = byId<HTMLButtonElement>('delete-selected');
  const collectSelected = byId<HTMLButtonElement>('collect-selected');
  const previous = byId<HTMLButtonElement>('prev-page');
  const next = byId<HTMLButtonElement>('next-page');
  const pageInfo = byId('page-info');

  const query: Query = { page: 1, q: '', sort: 'uploadedAt', order: 'desc' };
  let files: FileRecord[] = [];
  let pagination: Pagination | null = null;
  const selected = new Set<string>();
  let latest = 0;

  async function load(): Promise<void> {
    const client = hooks.client();
    if (!client) return;
    const request = ++latest;
    try {
      const page = await client.list({
        page: query.page,
        limit: PAGE_SIZE,
        sort: query.sort,
        order: query.order,
        q: query.q || undefined,
      });
      // A newer request, or the key is gone (a 401 elsewhere): this answer is stale.
      if (request !== latest || hooks.client() !== client) return;
      // A page emptied by deletes: show the one before it.
      if (page.files.length === 0 && query.page > 1 && page.pagination.total > 0) {
        query.page = Math.max(1, page.pagination.totalPages);
        return load();
      }
      files = await hooks.e2e.reveal(page.files);
      if (request !== latest || hooks.client() !== client) return;
      pagination = page.pagination;
      for (const id of [...selected]) if (!files.some((file) => file.id === id)) selected.delete(id);
      render();
    } catch (error) {
      if (request === latest && hooks.client() === client) hooks.onError(error);
    }
  }

  /** A row's expiry choice as the table shows it now (rows are drawn afresh on every load). */
  const expirySelect = (id: string) => body.querySelector<HTMLSelectElement>(`#${CSS.escape(id)}`);

  function render(): void {
    // An expiry chosen in a row but not yet set stays chosen across the redraw.
    const chosen = [...body.querySelectorAll<HTMLSelectElement>('select[id^="expiry-"]')].filter((s) => s.value);
    body.replaceChildren(...files.map(row));
    for (const { id, value } of chosen) {
      const select = expirySelect(id);
      if (select) select.value = value;
    }
    const total = pagination?.total ?? 0;
    const searching = query.q ? ` matching “${query.q}”` : '';
    caption.textContent =
      total === 0
        ? query.q
          ? `No files match “${query.q}”.`
          : 'No files yet: upload some above.'
        : `${formatCount(total)} ${total === 1 ? 'file' : 'files'}${searching}.`;
    const pages = Math.max(1, pagination?.totalPages ?? 1);
    pageInfo.textContent = `Page ${query.page} of ${pages}`;
    previous.disabled = query.page <= 1;
    next.disabled = !pagination?.hasMore;
    updateSelection();
  }

  function updateSelection(): void {
    deleteSelected.disabled = selected.size === 0;
    deleteSelected.textContent = selected.size === 0 ? 'Delete selected' : `Delete selected (${selected.size})`;
    collectSelected.disabled = selected.size === 0;
    collectSelected.textContent =
      selected.size === 0 ? 'Add selected to collection' : `Add selected (${selected.size}) to collection`;
    selectAll.checked = files.length > 0 && selected.size === files.length;
    selectAll.indeterminate = selected.size > 0 && selected.size < files.length;
  }

  /** Runs an action; on success reloads the page of files (and usage, when it changed). */
  async function act(action: (client: EdgeshareClient) => Promise<string>, changesUsage = false): Promise<void> {
    const client = hooks.client();
    if (!client) return;
    try {
      hooks.announce(await action(client));
      if (changesUsage) hooks.onChanged();
      await load();
    } catch (error) {
      hooks.onError(error);
      if (hooks.client()) await load();
    }
  }

  function row(file: FileRecord): HTMLTableRowElement {
    const name = file.originalName;
    const tr = h('tr', { attrs: { 'data-file-id': file.id } });

    const checkId = `select-${file.id}`;
    const check = h('input', { attrs: { type: 'checkbox', id: checkId } });
    check.checked = selected.has(file.id);
    check.addEventListener('change', () => {
      if (check.checked) selected.add(file.id);
      else selected.delete(file.id);
      updateSelection();
    });
    tr.append(
      h(
        'td',
        { class: 'select-cell' },
        check,
        h('label', { class: 'visually-hidden', text: `Select ${name}`, attrs: { for: checkId } }),
      ),
    );

    // An encrypted file's default link serves the owner's header: no use to anyone else.
    const title =
      file.isPublic && !isEncrypted(file)
        ? h('a', { text: name, attrs: { href: file.shareUrl, target: '_blank', rel: 'noopener' } })
        : h('span', { text: name });
    tr.append(
      h(
        'th',
        { class: 'name-cell', attrs: { scope: 'row' } },
        title,
        h('span', { class: 'muted small', text: file.mimeType }),
      ),
    );
    tr.append(h('td', { text: formatBytes(file.size), attrs: { 'data-label': 'Size' } }));
    tr.append(
      h(
        'td',
        { attrs: { 'data-label': 'Uploaded' } },
        h('time', { text: formatDate(file.uploadedAt), attrs: { datetime: file.uploadedAt } }),
      ),
    );
    tr.append(h('td', { attrs: { 'data-label': 'Share link' } }, visibility(file)));
    tr.append(h('td', { attrs: { 'data-label': 'Expires' } }, expiry(file)));
    tr.append(
      h(
        'td',
        { class: 'actions', attrs: { 'data-label': 'Actions' } },
        isEncrypted(file) ? hooks.e2e.download(file) : download(file),
        ...(isEncrypted(file) ? [hooks.e2e.share(file)] : []),
        button('Links', {
          class: 'secondary',
          attrs: { 'aria-label': `Share links of ${name}` },
          onClick: () => hooks.openLinks(file),
        }),
        button('Delete', {
          class: 'danger',
          attrs: { 'aria-label': `Delete ${name}` },
          onClick: () => {
            if (!window.confirm(`Delete “${name}”? It is gone for good and its share link stops working.`)) return;
            act(async (client) => {
              await client.delete(file.id);
              return `Deleted “${name}”.`;
            }, true);
          },
        }),
      ),
    );
    return tr;
  }

  /**
   * The file's default link: a public/private switch and its copy button. While the policy bars
   * default links, a private file offers neither (its made links share it), and a file public
   * from before the bound only the switch that makes it private.
   */
  function visibility(file: FileRecord): HTMLElement {
    const allowed = defaultLinksAllowed(hooks.policy());
    if (!allowed && !file.isPublic) {
      return h('span', { class: 'muted small', text: 'Private: share it with Links' });
    }
    const id = `public-${file.id}`;
    const toggle = h('input', { attrs: { type: 'checkbox', role: 'switch', id } });
    toggle.checked = file.isPublic;
    toggle.addEventListener('change', () => {
      const isPublic = toggle.checked;
      toggle.disabled = true;
      act(async (client) => {
        await client.update(file.id, { isPublic });
        return `“${file.originalName}” is now ${isPublic ? 'public: its share link works' : 'private: its share link answers “not found”'}.`;
      });
    });
    const label = h('label', { text: 'Public', attrs: { for: id } });
    const parts: HTMLElement[] = [h('span', { class: 'check' }, toggle, label)];
    if (file.isPublic && allowed && !isEncrypted(file)) {
      parts.push(
        button('Copy link', {
          class: 'secondary',
          attrs: { 'aria-label': `Copy the share link of ${file.originalName}`, 'data-url': file.shareUrl },
          onClick: async () => {
            if (await copyText(file.shareUrl)) hooks.announce(`Share link of “${file.originalName}” copied.`);
          },
        }),
      );
    }
    return h('div', { class: 'cell-stack' }, ...parts);
  }

  function expiry(file: FileRecord): HTMLElement {
    const id = `expiry-${file.id}`;
    const { fileRequireExpiry, fileMaxExpirySeconds } = hooks.policy();
    const never = neverAllowed(fileRequireExpiry, fileMaxExpirySeconds)
      ? [h('option', { text: 'Never', attrs: { value: 'never' } })]
      : [];
    const select = h(
      'select',
      { attrs: { id } },
      h('option', { text: 'Change to…', attrs: { value: '' } }),
      ...never,
      ...expiryChoices(fileMaxExpirySeconds).map((choice) =>
        h('option', { text: `In ${choice.label}`, attrs: { value: String(choice.seconds) } }),
      ),
    );
    const set = button('Set', {
      class: 'secondary',
      attrs: { 'aria-label': `Set the expiry of ${file.originalName}` },
      onClick: () => {
        if (select.value === '') {
          hooks.announce('Choose a new expiry first.');
          select.focus();
          return;
        }
        const expiresIn = select.value === 'never' ? null : Number(select.value);
        act(async (client) => {
          const changed = await client.update(file.id, { expiresIn });
          // Set: the choice is spent (the redrawn row offers "Change to…" again); a refused one stays
          // chosen. The row may have been drawn again meanwhile: the choice is spent where it now is.
          const shown = expirySelect(id);
          if (shown) shown.value = '';
          return changed.expiresAt
            ? `“${file.originalName}” now expires ${formatDate(changed.expiresAt)}.`
            : `“${file.originalName}” now never expires.`;
        });
      },
    });
    const current = file.expiresAt ? formatDate(file.expiresAt) : 'Never';
    return h(
      'div',
      { class: 'cell-stack' },
      h('span', { text: current }),
      h(
        'span',
        { class: 'row compact' },
        h('label', { class: 'visually-hidden', text: `New expiry of ${file.originalName}`, attrs: { for: id } }),
        select,
        set,
      ),
    );
  }

  /**
   * A public file downloads through its share link (the browser streams it to disk, any size); a
   * private one through the API with the key, held in memory until saved.
   */
  function download(file: FileRecord): HTMLElement {
    const label = `Download ${file.originalName}`;
    if (file.isPublic) {
      return h('a', {
        class: 'button secondary',
        text: 'Download',
        attrs: { href: `${file.shareUrl}/download`, 'aria-label': label },
      });
    }
    const control = button('Download', {
      class: 'secondary',
      attrs: { 'aria-label': label },
      onClick: async () => {
        const client = hooks.client();
        if (!client) return;
        control.disabled = true;
        try {
          const response = await client.download(file.id);
          saveBlob(await response.blob(), file.originalName);
        } catch (error) {
          hooks.onError(error);
        } finally {
          control.disabled = false;
        }
      },
    });
    return control;
  }

  selectAll.addEventListener('change', () => {
    selected.clear();
    if (selectAll.checked) for (const file of files) selected.add(file.id);
    for (const input of body.querySelectorAll<HTMLInputElement>('.select-cell input'))
      input.checked = selectAll.checked;
    updateSelection();
  });

  deleteSelected.addEventListener('click', () => {
    const ids = [...selected];
    if (ids.length === 0) return;
    if (!window.confirm(`Delete ${ids.length} ${ids.length === 1 ? 'file' : 'files'}? They are gone for good.`)) return;
    act(async (client) => {
      const result = await client.deleteMany(ids);
      selected.clear();
      return result.failed === 0
        ? `Deleted ${result.deleted} ${result.deleted === 1 ? 'file' : 'files'}.`
        : `Deleted ${result.deleted}; ${result.failed} could not be deleted (${describeFailures(result.results)}).`;
    }, true);
  });

  byId<HTMLFormElement>('collect-form').addEventListener('submit', async (event) => {
    event.preventDefault();
    // Collection order follows the page's order, not the order the boxes were ticked in.
    const ids = files.map((file) => file.id).filter((id) => selected.has(id));
    if (ids.length === 0) return;
    if (await hooks.collect(ids)) {
      selected.clear();
      render();
    }
  });

  previous.addEventListener('click', () => {
    query.page = Math.max(1, query.page - 1);
    load();
  });
  next.addEventListener('click', () => {
    query.page++;
    load();
  });

  byId<HTMLFormElement>('search-form').addEventListener('submit', (event) => {
    event.preventDefault();
    query.q = byId<HTMLInputElement>('search').value.trim();
    const [sort, order] = byId<HTMLSelectElement>('sort').value.split(':') as [Query['sort'], Query['order']];
    Object.assign(query, { sort, order, page: 1 });
    selected.clear();
    load();
  });

  return {
    load,
    /** Draws the rows again (the policy changed what they offer); nothing before the first page. */
    redraw() {
      if (pagination) render();
    },
    /** Back to a blank table (after the key is forgotten). */
    clear() {
      latest++;
      files = [];
      pagination = null;
      selected.clear();
      body.replaceChildren();
      caption.textContent = '';
    },
  };
}

function describeFailures(results: { success: boolean; code?: string }[]): string {
  const codes = new Set(results.flatMap((result) => (result.success || !result.code ? [] : [result.code])));
  return [...codes].join(', ');
}
