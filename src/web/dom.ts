// Small DOM helpers. Text goes in through textContent and attributes only, so no file name can
// ever become markup.

export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const element = document.getElementById(id);
  if (!element) throw new Error(`#${id} is missing from the page`);
  return element as T;
}

/** The <label> of the control with this id. */
export function labelOf(id: string): HTMLLabelElement {
  const label = document.querySelector<HTMLLabelElement>(`label[for="${CSS.escape(id)}"]`);
  if (!label) throw new Error(`#${id} has no label on the page`);
  return label;
}

type Options = { class?: string; text?: string; attrs?: Record<string, string> };

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  options: Options = {},
  ...children: (Node | string)[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  if (options.class) element.className = options.class;
  if (options.text !== undefined) element.textContent = options.text;
  for (const [name, value] of Object.entries(options.attrs ?? {})) element.setAttribute(name, value);
  element.append(...children);
  return element;
}

export function button(text: string, options: Options & { onClick?: () => void } = {}): HTMLButtonElement {
  const element = h('button', { ...options, text, attrs: { type: 'button', ...options.attrs } });
  if (options.onClick) element.addEventListener('click', options.onClick);
  return element;
}

/** Saves a Blob as a file, through a temporary object URL. */
export function saveBlob(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const link = h('a', { attrs: { href: url, download: name } });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/**
 * Copies text to the clipboard. Where the Clipboard API is refused (plain http on another host,
 * a denied permission) it selects `field` and tries the old copy command, or else shows the text
 * in a prompt to copy by hand; false unless the text surely reached the clipboard.
 */
export async function copyText(text: string, field?: HTMLInputElement): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    if (field) {
      field.focus();
      field.select();
      return document.execCommand('copy');
    }
    window.prompt('Copy the link (Ctrl+C, ⌘C):', text);
    return false;
  }
}
