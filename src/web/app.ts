// The web app at `/`: paste an API key, upload files (progress per file; tus for large ones), get
// share links, and manage your files and usage. Everything goes through the typed client to this
// origin's public API (the page's CSP allows nothing else). Built into /assets/app.js by
// scripts/assets.mjs.
import { EdgeshareClient, type Policy } from '../client/edgeshare.ts';
import { createCollectionsView } from './collections-view.ts';
import { byId, saveBlob } from './dom.ts';
import { createE2eFiles } from './e2e-files.ts';
import { createE2eView } from './e2e-view.ts';
import { createFilesView } from './files-view.ts';
import { describeError, formatBytes, formatCount, isUnauthorized, UNAUTHORIZED_TEXT } from './format.ts';
import { forgetKey, type KeyPlace, keyPrefix, loadKey, saveKey } from './key-store.ts';
import { createLinksView } from './links-view.ts';
import { defaultLinksAllowed, expiryChoices, fillExpirySelect, neverAllowed, OPEN_POLICY } from './policy-choices.ts';
import { createRequestsView } from './requests-view.ts';
import { sharexUploader } from './sharex.ts';
import { createUploader } from './uploads.ts';
import { createViews } from './views.ts';
import { createWebhooksView } from './webhooks-view.ts';

const banner = byId('banner');
const keySection = byId('key-section');
const keyInput = byId<HTMLInputElement>('api-key');
const appSection = byId('app');
const liveStatus = byId('live-status');

let client: EdgeshareClient | null = null;
/** The service's bounds on this key's account (GET /api/v2/policy): the app offers only what they allow. */
let policy: Policy = OPEN_POLICY;

const newClient = (apiKey: string) => new EdgeshareClient({ baseUrl: location.origin, apiKey });

function showBanner(text: string, kind: 'error' | 'ok' = 'error'): void {
  banner.textContent = text;
  banner.className = `message ${kind}`;
  banner.hidden = false;
}

function hideBanner(): void {
  banner.hidden = true;
  banner.textContent = '';
}

const announce = (text: string) => {
  liveStatus.textContent = text;
};

/** Every failure ends here: a refused key signs out, with the reason on top. */
function fail(error: unknown): void {
  if (isUnauthorized(error)) {
    signOut();
    showBanner(UNAUTHORIZED_TEXT);
    return;
  }
  showBanner(describeError(error));
}

const links = createLinksView({
  client: () => client,
  onError: fail,
  announce,
  policy: () => policy,
  // (Called on a click only, once e2e and e2eFiles below exist.)
  e2e: { keyOf: (file) => e2eFiles.keyOf(file), identity: () => e2e.current() },
});

const collections = createCollectionsView({
  client: () => client,
  onError: fail,
  announce,
  openLinks: (collection) => links.openCollection(collection),
});

const e2e = createE2eView({ client: () => client, onError: fail, announce, onIdentity: () => void files.load() });
const e2eFiles = createE2eFiles({ client: () => client, identity: () => e2e.current(), onError: fail, announce });

/** The upload's "Encrypt end to end" choice, remembered in this browser. */
const ENCRYPT_CHOICE = 'edgeshare.e2e.encryptUploads';
const encryptBox = byId<HTMLInputElement>('upload-encrypt');
encryptBox.checked = localStorage.getItem(ENCRYPT_CHOICE) === 'true';
encryptBox.addEventListener('change', () => localStorage.setItem(ENCRYPT_CHOICE, String(encryptBox.checked)));

const files = createFilesView({
  e2e: e2eFiles,
  client: () => client,
  onError: fail,
  announce,
  onChanged: () => void loadUsage(),
  openLinks: (file) => links.open(file),
  policy: () => policy,
  collect: (fileIds) => collections.collect(fileIds),
});

const requests = createRequestsView({
  client: () => client,
  onError: fail,
  announce,
  onChanged: () => void loadUsage(),
  policy: () => policy,
  identity: () => e2e.ensure(),
  recipient: () => e2e.recipient(),
});
const webhooks = createWebhooksView({ client: () => client, onError: fail, announce });

// One view at a time; each view's list is read again when it is shown (another tab, or the API,
// may have changed it meanwhile).
const views = createViews((view) => {
  if (!client) return;
  if (view === 'files') void files.load();
  // (The collections are loaded at sign-in for the Files view's choice of collection.)
  else if (view === 'collections') void collections.load();
  else if (view === 'requests') void requests.load();
  else void webhooks.load();
});

const uploader = createUploader(byId<HTMLUListElement>('uploads'), byId<HTMLButtonElement>('clear-uploads'), {
  client: () => client,
  settings: () => {
    const expiry = byId<HTMLSelectElement>('upload-expiry').value;
    const defaultLinks = defaultLinksAllowed(policy);
    return {
      isPublic: defaultLinks && byId<HTMLInputElement>('upload-public').checked,
      expiresIn: expiry === '' ? undefined : Number(expiry),
      defaultLinks,
      encrypt: policy.e2eAllowed && encryptBox.checked,
    };
  },
  identity: () => e2e.ensure(),
  onUploaded: () => {
    void loadUsage();
    void files.load();
  },
  onError: fail,
});

// ---- Policy ----

/** The upload's expiry choices: "the service default" only where nothing must expire. */
function offerUploadExpiries(): void {
  const max = policy.fileMaxExpirySeconds;
  const first = neverAllowed(policy.fileRequireExpiry, max) ? 'Service default (usually never)' : undefined;
  fillExpirySelect(byId<HTMLSelectElement>('upload-expiry'), expiryChoices(max), { first });
}

/** "Public share links" only where the policy allows default links; else a word on made links. */
function offerUploadVisibility(): void {
  const allowed = defaultLinksAllowed(policy);
  byId('upload-public-choice').hidden = !allowed;
  byId('made-links-only').hidden = allowed;
}

/** Reads the account's bounds, then offers only the choices they allow everywhere in the app. */
async function loadPolicy(): Promise<void> {
  const current = client;
  if (!current) return;
  try {
    const read = await current.policy();
    if (client !== current) return;
    policy = read;
  } catch (error) {
    fail(error);
    return;
  }
  applyPolicy();
}

function applyPolicy(): void {
  byId('upload-encrypt-choice').hidden = !policy.e2eAllowed;
  byId('e2e-section').hidden = !policy.e2eAllowed;
  byId('request-e2e-choice').hidden = !policy.e2eAllowed;
  offerUploadExpiries();
  offerUploadVisibility();
  files.redraw();
  requests.offerChoices();
}

// ---- Key ----

function signIn(key: string, place: KeyPlace): void {
  client = newClient(key);
  byId('key-prefix').textContent = keyPrefix(key);
  byId('key-place').textContent =
    place === 'local' ? 'in this browser until you forget it' : 'in this tab until it closes';
  keySection.hidden = true;
  appSection.hidden = false;
  void loadPolicy();
  void loadUsage();
  void e2e.load();
  // The Files view offers the collections as places for selected files; the view shown loads its own list.
  void collections.load();
  views.start();
}

function signOut(): void {
  client = null;
  policy = OPEN_POLICY;
  applyPolicy();
  forgetKey();
  files.clear();
  collections.clear();
  requests.clear();
  webhooks.clear();
  appSection.hidden = true;
  keySection.hidden = false;
  keyInput.value = '';
  keyInput.focus();
}

byId<HTMLFormElement>('key-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  hideBanner();
  const key = keyInput.value.trim();
  const place: KeyPlace = byId<HTMLInputElement>('remember-key').checked ? 'local' : 'session';
  const submit = byId<HTMLButtonElement>('use-key');
  submit.disabled = true;
  try {
    // The key is checked once before it is kept.
    await newClient(key).usage();
    saveKey(key, place);
    keyInput.value = '';
    signIn(key, place);
    byId('choose-files').focus();
  } catch (error) {
    showBanner(describeError(error));
    keyInput.focus();
  } finally {
    submit.disabled = false;
  }
});

byId('forget-key').addEventListener('click', () => {
  signOut();
  showBanner('The key is forgotten: this browser no longer keeps it.', 'ok');
});

// ---- Usage ----

async function loadUsage(): Promise<void> {
  if (!client) return;
  try {
    const usage = await client.usage();
    const bytes = byId<HTMLMeterElement>('usage-bytes');
    bytes.max = Math.max(usage.quotaBytes, 1);
    bytes.high = bytes.max * 0.9;
    bytes.value = usage.usedBytes + usage.reservedBytes;
    const pending = usage.reservedBytes > 0 ? ` (${formatBytes(usage.reservedBytes)} of it uploading)` : '';
    byId('usage-bytes-text').textContent =
      `${formatBytes(usage.usedBytes + usage.reservedBytes)} of ${formatBytes(usage.quotaBytes)}${pending}`;
    const count = byId<HTMLMeterElement>('usage-files');
    count.max = Math.max(usage.maxFiles, 1);
    count.high = count.max * 0.9;
    count.value = usage.files + usage.reservedFiles;
    byId('usage-files-text').textContent = `${formatCount(usage.files)} of ${formatCount(usage.maxFiles)} files`;
  } catch (error) {
    fail(error);
  }
}

byId('refresh').addEventListener('click', () => {
  hideBanner();
  void loadUsage();
  void files.load();
  void collections.load();
  void requests.load();
});

// ---- Choosing and dropping files ----

const fileInput = byId<HTMLInputElement>('file-input');
const dropZone = byId('drop-zone');

function take(list: FileList | null | undefined): void {
  if (!client || !list || list.length === 0) return;
  hideBanner();
  uploader.add([...list]);
}

byId('choose-files').addEventListener('click', () => fileInput.click());
fileInput.addEventListener('change', () => {
  take(fileInput.files);
  fileInput.value = '';
});

const carriesFiles = (event: DragEvent) => event.dataTransfer?.types.includes('Files') ?? false;

// The whole page takes a drop (a file dropped beside the zone must not replace the app).
document.addEventListener('dragover', (event) => {
  if (!carriesFiles(event) || appSection.hidden) return;
  event.preventDefault();
  if (event.dataTransfer) event.dataTransfer.dropEffect = 'copy';
  dropZone.classList.add('dragging');
});
document.addEventListener('dragleave', (event) => {
  if (event.relatedTarget === null) dropZone.classList.remove('dragging');
});
document.addEventListener('drop', (event) => {
  if (!carriesFiles(event) || appSection.hidden) return;
  event.preventDefault();
  dropZone.classList.remove('dragging');
  take(event.dataTransfer?.files);
});
document.addEventListener('paste', (event) => {
  if (appSection.hidden || !event.clipboardData?.files.length) return;
  event.preventDefault();
  take(event.clipboardData.files);
});

// ---- ShareX ----

byId('sharex-download').addEventListener('click', () => {
  const withKey = byId<HTMLInputElement>('sharex-with-key').checked;
  const key = withKey ? loadKey()?.key : undefined;
  const text = sharexUploader(location.origin, key);
  saveBlob(new Blob([text], { type: 'application/json' }), 'edgeshare.sxcu');
  announce(withKey ? 'Downloaded edgeshare.sxcu, with your key in it.' : 'Downloaded edgeshare.sxcu.');
});

// ---- Start ----

const stored = loadKey();
if (stored) signIn(stored.key, stored.place);
else signOut();
