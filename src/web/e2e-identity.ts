// The account's age identity in this browser: kept in localStorage (like a remembered API key, it
// is only as safe as this browser profile), one per account recipient, so the browser can hold the
// identities of several accounts. The passphrase backup on the server restores it elsewhere.
import { identityToRecipient, isIdentity } from '../lib/age/index.ts';

const STORE = 'edgeshare.e2e.identities';

function stored(): string[] {
  try {
    const list = JSON.parse(localStorage.getItem(STORE) ?? '[]') as unknown;
    return Array.isArray(list)
      ? list.filter((item): item is string => typeof item === 'string' && isIdentity(item))
      : [];
  } catch {
    return [];
  }
}

/** Keeps an identity in this browser. */
export function keepIdentity(identity: string): void {
  const list = stored().filter((item) => item !== identity);
  localStorage.setItem(STORE, JSON.stringify([...list, identity]));
}

/** The identity this browser keeps for `recipient`, if any. */
export async function identityFor(recipient: string): Promise<string | undefined> {
  for (const identity of stored()) if ((await identityToRecipient(identity)) === recipient) return identity;
  return undefined;
}
