// One file's item in an upload list (the web app's and the file request page's): its name and
// size, a progress bar, a status line, and what is added to its head (a Cancel button) and after.
import { h } from './dom.ts';
import { formatBytes } from './format.ts';

export type UploadItem = {
  item: HTMLLIElement;
  progress: HTMLProgressElement;
  status: HTMLSpanElement;
  /** Shows `sent` of `total` bytes on the bar and in the status line. */
  show: (sent: number, total: number) => void;
  /** The end: done or failed, with a sentence. */
  finish: (state: 'done' | 'error', text: string) => void;
};

export function uploadItem(name: string, sizeText: string, extra: { head?: Node[]; after?: Node[] } = {}): UploadItem {
  const progress = h('progress', { attrs: { max: '100', value: '0', 'aria-label': `Upload of ${name}` } });
  const status = h('span', { class: 'upload-status', text: 'Waiting…' });
  const item = h(
    'li',
    { class: 'upload', attrs: { 'data-state': 'waiting' } },
    h(
      'div',
      { class: 'upload-head' },
      h('span', { class: 'upload-name', text: name }),
      h('span', { class: 'muted', text: sizeText }),
      ...(extra.head ?? []),
    ),
    progress,
    status,
    ...(extra.after ?? []),
  );
  return {
    item,
    progress,
    status,
    show: (sent, total) => {
      const percent = total > 0 ? Math.floor((sent / total) * 100) : 100;
      progress.value = percent;
      status.textContent = `${percent} % · ${formatBytes(sent)} of ${formatBytes(total)}`;
    },
    finish: (state, text) => {
      item.dataset.state = state;
      status.textContent = text;
      status.classList.toggle('error-text', state === 'error');
    },
  };
}
