// The app's views (files, collections, file requests, webhooks): one shown at a time, chosen by
// the navigation's links and the address's #fragment, so a view can be bookmarked, reloaded and
// reached with the browser's back button. Each view is a <div class="view" data-view="<id>">
// of src/pages/web-app-page.ts, its link #nav-<id>.

export type ViewId = 'files' | 'collections' | 'requests' | 'webhooks';

const IDS: readonly ViewId[] = ['files', 'collections', 'requests', 'webhooks'];

const isView = (value: string): value is ViewId => (IDS as readonly string[]).includes(value);

/** The view the address names; files when it names none. */
const fromHash = (): ViewId => {
  const id = location.hash.slice(1);
  return isView(id) ? id : 'files';
};

/**
 * Shows the view the address names now and whenever it changes; `onShow` hears of each view
 * shown (to load what it lists).
 */
export function createViews(onShow: (view: ViewId) => void) {
  let current: ViewId | null = null;

  function show(view: ViewId): void {
    for (const element of document.querySelectorAll<HTMLElement>('.view[data-view]')) {
      element.hidden = element.dataset.view !== view;
    }
    for (const id of IDS) {
      const link = document.getElementById(`nav-${id}`);
      if (id === view) link?.setAttribute('aria-current', 'page');
      else link?.removeAttribute('aria-current');
    }
    if (current !== view) {
      current = view;
      onShow(view);
    }
  }

  window.addEventListener('hashchange', () => show(fromHash()));

  return {
    /** Shows the view the address names (at sign-in). */
    start(): void {
      current = null;
      show(fromHash());
    },
    /** Goes to a view (its address too, so back returns here). */
    go(view: ViewId): void {
      if (location.hash !== `#${view}`) location.hash = view;
      else show(view);
    },
  };
}
