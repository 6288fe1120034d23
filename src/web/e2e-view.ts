// "End-to-end encryption" in the web app: the account's age identity in this browser. Made on the
// first encrypted upload (its recipient set on the account with PUT /e2e/identity), then offered
// for a passphrase backup (an armored scrypt age file of the identity, kept by the server, which
// never sees the passphrase); restored from that backup in another browser; exported as an
// `age-keygen` identity file for the command line (`age -d -i`, the CLI's `identity import`), and
// imported from one.
import type { E2eIdentity, EdgeshareClient } from '../client/edgeshare.ts';
import {
  generateIdentity,
  identitiesFromFile,
  identityFile,
  identityToRecipient,
  openIdentityBackup,
  sealIdentityBackup,
} from '../lib/age/index.ts';
import { byId, saveBlob } from './dom.ts';
import { identityFor, keepIdentity } from './e2e-identity.ts';
import { describeError, isUnauthorized } from './format.ts';

type Hooks = {
  client: () => EdgeshareClient | null;
  onError: (error: unknown) => void;
  announce: (text: string) => void;
  /** After an identity came into this browser (restored, imported): the file list can show real names. */
  onIdentity: () => void;
};

/** The shortest backup passphrase the app takes: it alone guards the identity the server keeps. */
export const MIN_PASSPHRASE = 10;

/** The account's identity, ready to encrypt to and to open its files. */
export type OwnIdentity = { identity: string; recipient: string };

export function createE2eView(hooks: Hooks) {
  const status = byId('e2e-status');
  const backupForm = byId<HTMLFormElement>('e2e-backup-form');
  const restoreForm = byId<HTMLFormElement>('e2e-restore-form');
  const importForm = byId<HTMLFormElement>('e2e-import-form');
  const exportButton = byId<HTMLButtonElement>('e2e-export');
  const note = byId('e2e-note');

  let account: E2eIdentity | undefined;
  let identity: string | undefined;
  let making: Promise<OwnIdentity> | undefined;

  const say = (text: string, error = false) => {
    note.textContent = text;
    note.classList.toggle('error-text', error);
    if (text) hooks.announce(text);
  };

  async function load(): Promise<E2eIdentity | undefined> {
    const client = hooks.client();
    if (!client) return undefined;
    try {
      account = await client.getIdentity();
      identity = account.recipient ? await identityFor(account.recipient) : undefined;
      render();
      return account;
    } catch (error) {
      // A refused key signs out; anything else (a key without files:read) only leaves this section unread.
      if (isUnauthorized(error)) hooks.onError(error);
      else status.textContent = `Could not read your account’s identity: ${describeError(error)}`;
      return undefined;
    }
  }

  function render(): void {
    const recipient = account?.recipient;
    if (!recipient) {
      status.textContent =
        'No identity yet: the first encrypted upload makes one in this browser and sets its public key on your account.';
    } else if (identity) {
      status.textContent = `This browser holds your identity (public key ${recipient}).${account?.backup ? ' A passphrase backup is kept on the server.' : ' It has no backup yet: save one below, or export it, or losing this browser loses your encrypted files.'}`;
    } else {
      status.textContent = `Your account’s identity (public key ${recipient}) is not in this browser: ${account?.backup ? 'restore it from its passphrase backup, or import it' : 'import it (it has no backup on the server)'} to upload encrypted files and open them.`;
    }
    backupForm.hidden = !(identity && recipient);
    restoreForm.hidden = !(recipient && !identity && account?.backup);
    exportButton.disabled = !identity;
  }

  /** The identity to encrypt to: this browser's, or a new one set on the account (the first time). */
  function ensure(): Promise<OwnIdentity> {
    making ??= ensureOnce().finally(() => {
      making = undefined;
    });
    return making;
  }

  async function ensureOnce(): Promise<OwnIdentity> {
    const client = hooks.client();
    if (!client) throw new Error('No API key.');
    const current = await client.getIdentity();
    account = current;
    if (current.recipient) {
      identity = await identityFor(current.recipient);
      render();
      if (!identity) {
        throw new Error(
          'Your account’s identity is not in this browser: restore it (End-to-end encryption, below) and add the file again.',
        );
      }
      return { identity, recipient: current.recipient };
    }
    const made = await generateIdentity();
    const recipient = await identityToRecipient(made);
    keepIdentity(made);
    account = await client.putIdentity({ recipient });
    identity = made;
    render();
    say('A new identity was made for your encrypted files. Back it up with a passphrase now (below).');
    backupForm.querySelector('input[type="password"]')?.scrollIntoView({ block: 'nearest' });
    return { identity: made, recipient };
  }

  /** This browser's identity for the account, when it has one (to open files and make links). */
  async function current(): Promise<string | undefined> {
    if (!account) await load();
    return identity;
  }

  backupForm.addEventListener('submit', async (event) => {
    event.preventDefault();
    const client = hooks.client();
    const input = byId<HTMLInputElement>('e2e-backup-passphrase');
    if (!client || !identity || !account?.recipient) return;
    if (input.value.length < MIN_PASSPHRASE) {
      return say(`Use a passphrase of at least ${MIN_PASSPHRASE} characters: it alone guards the backup.`, true);
    }
    say('Encrypting the backup…');
    try {
      const backup = await sealIdentityBackup(identity, input.value);
      account = await client.putIdentity({ recipient: account.recipient, backup });
      input.value = '';
      render();
      say('Backup saved. Keep the passphrase: without it the backup cannot be opened, by you or by us.');
    } catch (error) {
      say(describeError(error), true);
    }
  });

  restoreForm.addEventListener('submit', async (event) => {
    event.preventDefault();
    const input = byId<HTMLInputElement>('e2e-restore-passphrase');
    if (!account?.backup || !account.recipient) return;
    say('Opening the backup…');
    try {
      const restored = await openIdentityBackup(account.backup, input.value);
      if ((await identityToRecipient(restored)) !== account.recipient) {
        return say('The backup holds another identity than the account’s public key.', true);
      }
      keepIdentity(restored);
      identity = restored;
      input.value = '';
      render();
      say('Identity restored in this browser.');
      hooks.onIdentity();
    } catch {
      say('That passphrase does not open the backup.', true);
    }
  });

  exportButton.addEventListener('click', async () => {
    if (!identity) return;
    saveBlob(new Blob([await identityFile(identity)], { type: 'text/plain' }), 'edgeshare-identity.txt');
    say(
      'Exported: keep edgeshare-identity.txt as safe as a password (age -d -i edgeshare-identity.txt opens your files).',
    );
  });

  importForm.addEventListener('submit', async (event) => {
    event.preventDefault();
    const client = hooks.client();
    const input = byId<HTMLTextAreaElement>('e2e-import');
    if (!client) return;
    let imported: string;
    try {
      [imported = ''] = identitiesFromFile(input.value);
    } catch (error) {
      return say(error instanceof Error ? error.message : String(error), true);
    }
    try {
      const recipient = await identityToRecipient(imported);
      const current = await client.getIdentity();
      if (current.recipient && current.recipient !== recipient) {
        return say('This identity is not your account’s (another public key); it was not imported.', true);
      }
      if (!current.recipient) await client.putIdentity({ recipient });
      keepIdentity(imported);
      input.value = '';
      await load();
      say('Identity imported into this browser.');
      hooks.onIdentity();
    } catch (error) {
      say(describeError(error), true);
    }
  });

  /** The account's recipient, if one is set. */
  async function recipient(): Promise<string | undefined> {
    if (!account) await load();
    return account?.recipient ?? undefined;
  }

  return { load, ensure, current, recipient };
}
