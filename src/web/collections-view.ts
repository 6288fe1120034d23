// "Collections": the key's collections (make one, open one, delete one), the open collection's
// files in order (remove one), its links (the links dialog, links-view.ts), and its ZIP; and the
// Files view's "add selected to a collection" (a new one or one of these). Through the typed
// client only.
import type { Collection, EdgeshareClient, FileRecord } from '../client/edgeshare.ts';
import { button, byId, h, saveBlob } from './dom.ts';
import { formatBytes, formatCount } from './format.ts';

type Hooks = {
  client: () => EdgeshareClient | null;
  onError: (error: unknown) => void;
  announce: (text: string) => void;
  /** Opens a collection's share links (links-view.ts). */
  openLinks: (collection: Collection) => void;
};

/** Collections listed at once (the API's page size limit): more than anyone picks from a menu. */
const LIST_LIMIT = 100;

const filesText = (count: number) => `${formatCount(count)} ${count === 1 ? 'file' : 'files'}`;

export function createCollectionsView(hooks: Hooks) {
  const list = byId<HTMLUListElement>('collections-list');
  const caption = byId('collections-caption');
  const form = byId<HTMLFormElement>('collection-form');
  const name = byId<HTMLInputElement>('collection-name');
  const note = byId<HTMLTextAreaElement>('collection-note');
  const detail = byId('collection-detail');
  const heading = byId('collection-heading');
  const facts = byId('collection-facts');
  const noteText = byId('collection-note-text');
  const members = byId<HTMLUListElement>('collection-files');
  const membersCaption = byId('collection-files-caption');
  const target = byId<HTMLSelectElement>('collect-target');
  const newName = byId<HTMLInputElement>('collect-name');
  const newNameField = byId('collect-name-field');

  let collections: Collection[] = [];
  let open: Collection | null = null;
  let latest = 0;
  /** The choice of collection the next list should show (one just made, not listed yet). */
  let choose: string | null = null;

  async function load(): Promise<void> {
    const client = hooks.client();
    if (!client) return;
    const request = ++latest;
    try {
      const page = await client.listCollections({ limit: LIST_LIMIT });
      if (request !== latest || hooks.client() !== client) return;
      collections = page.collections;
      render();
      if (open) {
        const fresh = collections.find((collection) => collection.id === open?.id);
        if (fresh) await show(fresh);
        else close();
      }
    } catch (error) {
      if (request === latest && hooks.client() === client) hooks.onError(error);
    }
  }

  function render(): void {
    list.replaceChildren(...collections.map(item));
    caption.textContent =
      collections.length === 0
        ? 'No collections yet.'
        : `${formatCount(collections.length)} ${collections.length === 1 ? 'collection' : 'collections'}.`;
    fillTargets();
  }

  function item(collection: Collection): HTMLLIElement {
    return h(
      'li',
      { attrs: { 'data-collection-id': collection.id } },
      h('strong', { text: collection.name }),
      h('span', {
        class: 'muted small',
        text: `${filesText(collection.fileCount)} · ${formatBytes(collection.bytes)}`,
      }),
      button('Open', {
        class: 'secondary',
        attrs: { 'aria-label': `Open ${collection.name}` },
        onClick: () => void show(collection),
      }),
      button('Links', {
        class: 'secondary',
        attrs: { 'aria-label': `Share links of ${collection.name}` },
        onClick: () => hooks.openLinks(collection),
      }),
    );
  }

  /** The Files view's choice of where selected files go: a new collection, or one of these. */
  function fillTargets(): void {
    const chosen = choose ?? target.value;
    choose = null;
    target.replaceChildren(
      h('option', { text: 'A new collection', attrs: { value: '' } }),
      ...collections.map((collection) => h('option', { text: collection.name, attrs: { value: collection.id } })),
    );
    if (collections.some((collection) => collection.id === chosen)) target.value = chosen;
    newNameField.hidden = target.value !== '';
  }

  async function show(collection: Collection): Promise<void> {
    const client = hooks.client();
    if (!client) return;
    open = collection;
    detail.hidden = false;
    heading.textContent = collection.name;
    facts.textContent = `${filesText(collection.fileCount)} · ${formatBytes(collection.bytes)}`;
    noteText.textContent = collection.note ?? '';
    noteText.hidden = !collection.note;
    membersCaption.textContent = 'Loading…';
    try {
      const page = await client.collectionFiles(collection.id, { limit: LIST_LIMIT });
      if (open?.id !== collection.id) return;
      members.replaceChildren(...page.files.map((file) => member(collection, file)));
      const more = page.pagination.total > page.files.length ? ` (the first ${page.files.length} shown)` : '';
      membersCaption.textContent =
        page.files.length === 0
          ? 'No files in it yet: select some under Files and add them.'
          : `${filesText(page.pagination.total)}, in the order of its ZIP${more}.`;
    } catch (error) {
      hooks.onError(error);
    }
  }

  function close(): void {
    open = null;
    detail.hidden = true;
    members.replaceChildren();
  }

  function member(collection: Collection, file: FileRecord): HTMLLIElement {
    return h(
      'li',
      { attrs: { 'data-file-id': file.id } },
      h('span', { class: 'member-name', text: file.originalName }),
      h('span', { class: 'muted small', text: `${formatBytes(file.size)} · ${file.mimeType}` }),
      button('Remove', {
        class: 'secondary',
        attrs: { 'aria-label': `Remove ${file.originalName} from ${collection.name}` },
        onClick: () =>
          act(async (client) => {
            await client.removeFromCollection(collection.id, file.id);
            return `Removed “${file.originalName}” from “${collection.name}”; the file stays.`;
          }),
      }),
    );
  }

  /** Runs an action, announces what it did, and reloads the list (and the open collection). */
  async function act(action: (client: EdgeshareClient) => Promise<string>): Promise<boolean> {
    const client = hooks.client();
    if (!client) return false;
    try {
      hooks.announce(await action(client));
      await load();
      return true;
    } catch (error) {
      hooks.onError(error);
      return false;
    }
  }

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const made = await act(async (client) => {
      const collection = await client.createCollection({
        name: name.value.trim(),
        ...(note.value.trim() ? { note: note.value } : {}),
      });
      open = collection;
      return `Made the collection “${collection.name}”.`;
    });
    if (made) form.reset();
  });

  byId('collection-links').addEventListener('click', () => {
    if (open) hooks.openLinks(open);
  });

  const archive = byId<HTMLButtonElement>('collection-archive');
  archive.addEventListener('click', async () => {
    const client = hooks.client();
    if (!client || !open) return;
    const shown = open;
    archive.disabled = true;
    try {
      const response = await client.downloadCollection(shown.id);
      saveBlob(await response.blob(), `${shown.name}.zip`);
    } catch (error) {
      hooks.onError(error);
    } finally {
      archive.disabled = false;
    }
  });

  byId('collection-delete').addEventListener('click', () => {
    const shown = open;
    if (!shown) return;
    if (!window.confirm(`Delete the collection “${shown.name}”? Its links stop working; its files stay.`)) return;
    void act(async (client) => {
      await client.deleteCollection(shown.id);
      close();
      return `Deleted the collection “${shown.name}”; its files stay.`;
    });
  });

  target.addEventListener('change', () => {
    newNameField.hidden = target.value !== '';
  });

  return {
    load,
    /**
     * Adds files (the Files view's selection) to the chosen collection, or makes a new one of
     * them with the name typed; true when done.
     */
    async collect(fileIds: string[]): Promise<boolean> {
      const chosen = collections.find((collection) => collection.id === target.value);
      if (!chosen && !newName.value.trim()) {
        hooks.announce('Name the new collection first.');
        newName.focus();
        return false;
      }
      const count = filesText(fileIds.length);
      const done = await act(async (client) => {
        if (chosen) {
          await client.addToCollection(chosen.id, fileIds);
          return `Added ${count} to “${chosen.name}”.`;
        }
        const made = await client.createCollection({ name: newName.value.trim(), fileIds });
        // Where the next selected files go by default: the collection just made.
        choose = made.id;
        return `Made the collection “${made.name}” of ${count}.`;
      });
      if (done && !chosen) newName.value = '';
      return done;
    },
    /** Back to nothing (after the key is forgotten). */
    clear(): void {
      latest++;
      collections = [];
      close();
      list.replaceChildren();
      caption.textContent = '';
      fillTargets();
    },
  };
}
