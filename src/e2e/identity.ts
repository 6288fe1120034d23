// The account's age identity as the server keeps it (docs/e2e.md): its public recipient (`age1…`,
// what uploads encrypt to) and, optionally, a passphrase backup of the secret identity, an armored
// age file with one scrypt stanza, so a second device restores it. The server checks both without
// any key: the recipient's bech32 form, and the backup's armor, header and payload length.
import { bech32 } from '@scure/base';
import { e2eIdentityExists, validationError } from '../errors';
import { checkHeader } from '../lib/age/format';
import { isValidPayloadLength } from '../lib/age/length';
import { fromBase64 } from '../lib/encoding';
import { findIdentity, type IdentityRow, putIdentity } from '../storage/e2e-identities-repo';
import { isoNow } from '../time';
import { invalid } from './age-checks';

export type IdentityRecord = {
  recipient: string | null;
  backup: string | null;
  createdAt: string | null;
  updatedAt: string | null;
};

const recordOf = (row: IdentityRow | null): IdentityRecord => ({
  recipient: row?.recipient ?? null,
  backup: row?.backup ?? null,
  createdAt: row?.created_at ?? null,
  updatedAt: row?.updated_at ?? null,
});

/** An X25519 recipient: `age1` and the bech32 of 32 bytes, checksum right (lowercase, as age writes it). */
export function checkRecipient(text: string): string {
  let bytes: Uint8Array | undefined;
  try {
    const decoded = bech32.decodeToBytes(text);
    if (decoded.prefix === 'age') bytes = decoded.bytes;
  } catch {
    bytes = undefined;
  }
  if (!text.startsWith('age1') || bytes?.length !== 32) {
    throw validationError('recipient', 'must be an age X25519 recipient: age1… (bech32 of 32 bytes)');
  }
  return text;
}

const BEGIN = '-----BEGIN AGE ENCRYPTED FILE-----';
const END = '-----END AGE ENCRYPTED FILE-----';

/**
 * A passphrase backup: armored age (PEM: the BEGIN line, padded base64 in lines of 64 columns, the
 * END line), whose file is an age header with exactly one scrypt stanza and a valid payload
 * length. 422 E2E_INVALID naming the rule otherwise.
 */
export function checkBackup(text: string): string {
  const lines = text.replace(/\r\n/g, '\n').trim().split('\n');
  const body = lines.slice(1, -1);
  if (lines[0] !== BEGIN || lines.at(-1) !== END || body.length === 0) {
    throw invalid('backup', 'version', `not armored age: a "${BEGIN}" line, base64 lines, then "${END}"`);
  }
  if (body.some((line, i) => line.length > 64 || (i < body.length - 1 && line.length !== 64))) {
    throw invalid('backup', 'column_width', 'armored base64 comes in lines of 64 columns, the last one shorter');
  }
  const bytes = fromBase64(body.join(''));
  if (!bytes) throw invalid('backup', 'base64', 'the armored lines are not base64');
  const check = checkHeader(bytes);
  if (!check.ok) throw invalid('backup', check.reason, check.detail);
  if (check.stanzas.length !== 1 || check.stanzas[0]?.args[0] !== 'scrypt') {
    throw invalid('backup', 'stanza', 'a backup is encrypted with a passphrase: its header holds one scrypt stanza');
  }
  if (!isValidPayloadLength(bytes.length - check.headerLength)) {
    throw invalid('backup', 'payload_length', 'the payload’s length is no age payload’s');
  }
  return text;
}

export async function getIdentity(db: D1Database, accountId: string): Promise<IdentityRecord> {
  return recordOf(await findIdentity(db, accountId));
}

/**
 * Sets the account's identity. Changing an existing recipient takes `replace: true` (409
 * E2E_IDENTITY_EXISTS otherwise): files keep the headers they were uploaded with, so the old
 * identity still opens them. `backup` undefined keeps the stored one (same recipient), null removes it.
 */
export async function setIdentity(
  db: D1Database,
  accountId: string,
  input: { recipient: string; backup?: string | null; replace?: boolean },
  now = Date.now(),
): Promise<{ identity: IdentityRecord; created: boolean }> {
  const recipient = checkRecipient(input.recipient);
  const backup = input.backup === undefined || input.backup === null ? input.backup : checkBackup(input.backup);
  const put = await putIdentity(db, accountId, { recipient, backup, replace: input.replace === true }, isoNow(now));
  if (!put) throw e2eIdentityExists();
  return { identity: recordOf(put.row), created: put.created };
}
