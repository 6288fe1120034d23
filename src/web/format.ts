// Text for people: sizes, dates, and what went wrong.
import { EdgeshareError } from '../client/edgeshare.ts';

// The same sizes and times as the server-rendered pages.
export { formatBytes, formatDate, formatExactBytes } from '../lib/format.ts';

export const formatCount = (count: number) => new Intl.NumberFormat().format(count);

/** A refused key: the app forgets it and asks for another. */
export const isUnauthorized = (error: unknown) => error instanceof EdgeshareError && error.status === 401;

export const UNAUTHORIZED_TEXT =
  'This API key was refused (401): it is invalid or has been revoked. Paste a valid key to go on.';

/** One sentence for any failure: the API's own message and code, or what else happened. */
export function describeError(error: unknown): string {
  if (error instanceof EdgeshareError) {
    if (error.status === 401) return UNAUTHORIZED_TEXT;
    if (error.status === 429) {
      const wait = error.retryAfter === undefined ? 'a little later' : `in ${error.retryAfter} seconds`;
      return `Too many requests with this key (429). Try again ${wait}.`;
    }
    // Validation details name their field ("expiresAt must be in the future"); the first is the
    // error's own sentence, so it is not said twice.
    const details = (error.details ?? [])
      .map((detail) => {
        if ('scope' in detail) return `needs ${detail.scope}`;
        if ('id' in detail) return `not found: ${detail.id}`;
        // A policy refusal's message already says each bound it broke.
        if ('rule' in detail) return '';
        // An archive that changed: its message says to start again at this URL.
        if ('url' in detail) return `current URL: ${detail.url}`;
        return detail.message.includes(detail.field) ? detail.message : `${detail.field}: ${detail.message}`;
      })
      .filter((text) => text !== '' && text !== error.message)
      .join('; ');
    return `${error.message} (${error.status} ${error.code})${details ? `: ${details}` : ''}`;
  }
  if (error instanceof DOMException && error.name === 'AbortError') return 'Cancelled.';
  if (error instanceof TypeError) return 'Could not reach the service. Check the connection and try again.';
  return error instanceof Error ? error.message : String(error);
}
