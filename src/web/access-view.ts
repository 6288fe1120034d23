// An access log in the web app: who fetched what through a link (or a file's links together), a
// page of events at a time, newest first, with "More" for the next. Through the typed client only.
import type { AccessEvent, AccessLogOf, EdgeshareClient } from '../client/edgeshare.ts';
import { button, h } from './dom.ts';
import { formatBytes, formatDate } from './format.ts';

const PAGE = 20;

const KIND_TEXT: Record<AccessEvent['kind'], string> = {
  page: 'Page',
  download: 'Download',
  archive: 'ZIP',
  preview: 'Preview',
  password: 'Password',
  upload: 'Upload',
};

const OUTCOME_TEXT: Record<AccessEvent['outcome'], string> = {
  served: 'Served',
  partial: 'Part (range)',
  'not-modified': 'Not modified',
  'refused-password': 'Wrong or no password',
  'refused-exhausted': 'Limit reached',
  'refused-gone': 'Gone',
  'refused-moderated': 'Taken down (or held for its scan)',
  throttled: 'Throttled',
};

/** The table's columns, in order; on a narrow screen each event is a card of them, labelled. */
const COLUMNS = ['When', 'What', 'Outcome', 'Sent', 'Client', 'Where', 'Visitor'];

function row(event: AccessEvent): HTMLTableRowElement {
  const place = [event.country, event.asOrganization].filter(Boolean).join(' · ');
  const cells = [
    formatDate(event.at),
    KIND_TEXT[event.kind],
    `${OUTCOME_TEXT[event.outcome]} (${event.status})`,
    event.bytes > 0 ? formatBytes(event.bytes) : '–',
    event.client,
    place || '–',
    event.visitor,
  ];
  return h(
    'tr',
    { attrs: { 'data-outcome': event.outcome } },
    ...cells.map((text, index) =>
      h('td', { text, class: index === 6 ? 'visitor' : '', attrs: { 'data-label': COLUMNS[index] ?? '' } }),
    ),
  );
}

/**
 * A panel that loads `of`'s log when made: a table of events, "More" while there are more, and
 * how many were dropped under load, if any.
 */
export function accessPanel(
  client: EdgeshareClient,
  of: AccessLogOf,
  label: string,
  onError: (error: unknown) => void,
): HTMLElement {
  const body = h('tbody');
  const head = COLUMNS.map((text) => h('th', { text, attrs: { scope: 'col' } }));
  const table = h('table', { class: 'access-table cards' }, h('thead', {}, h('tr', {}, ...head)), body);
  const note = h('p', { class: 'hint', text: 'Loading…' });
  const more = button('More', { class: 'secondary' });
  more.hidden = true;
  const panel = h('section', { class: 'access-log', attrs: { 'aria-label': label } }, note, table, more);
  let cursor: string | undefined;

  async function load(): Promise<void> {
    more.disabled = true;
    try {
      const page = await client.accessLog(of, { limit: PAGE, cursor });
      body.append(...page.events.map(row));
      cursor = page.nextCursor ?? undefined;
      more.hidden = page.nextCursor === null;
      const dropped = page.droppedEvents > 0 ? ` ${page.droppedEvents} more were dropped under load.` : '';
      note.textContent =
        body.childElementCount === 0
          ? `Nobody has used this address yet.${dropped}`
          : `Newest first. Visitors are anonymous ids that change every 30 days.${dropped}`;
    } catch (error) {
      onError(error);
    } finally {
      more.disabled = false;
    }
  }

  more.addEventListener('click', () => void load());
  void load();
  return panel;
}
