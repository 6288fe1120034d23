// The API key lives in this browser only: sessionStorage (this tab, gone when it closes) unless
// the user asks to be remembered (localStorage). Never in a URL, a cookie or the page.
import { KEY_STORAGE_NAME } from '../lib/web-settings.ts';

export type KeyPlace = 'session' | 'local';

export function loadKey(): { key: string; place: KeyPlace } | null {
  const session = sessionStorage.getItem(KEY_STORAGE_NAME);
  if (session) return { key: session, place: 'session' };
  const local = localStorage.getItem(KEY_STORAGE_NAME);
  return local ? { key: local, place: 'local' } : null;
}

export function saveKey(key: string, place: KeyPlace): void {
  forgetKey();
  (place === 'local' ? localStorage : sessionStorage).setItem(KEY_STORAGE_NAME, key);
}

export function forgetKey(): void {
  sessionStorage.removeItem(KEY_STORAGE_NAME);
  localStorage.removeItem(KEY_STORAGE_NAME);
}

/** What the page may show of a key: its prefix, as /keys lists it. */
export const keyPrefix = (key: string) => `${key.slice(0, 12)}…`;
