// /keys: the API keys page. Talks only to this origin's /admin/keys with the admin token, which
// lives in sessionStorage (this tab only; gone when it closes, never in a URL). The DOM is built
// with textContent and attributes only, so no key name can become markup.
const TOKEN_KEY = 'edgeshare.adminToken';
const $ = (id) => document.getElementById(id);

const messageBox = $('message');
const signIn = $('sign-in');
const signedIn = $('signed-in');

function showMessage(text, kind = 'error') {
  messageBox.textContent = text;
  messageBox.className = `message ${kind}`;
  messageBox.hidden = false;
}

function clearMessage() {
  messageBox.hidden = true;
  messageBox.textContent = '';
}

class AdminError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

/** One admin API call; a readable AdminError for every way it can fail. */
async function admin(method, path, body, token = sessionStorage.getItem(TOKEN_KEY)) {
  let response;
  try {
    response = await fetch(`/admin${path}`, {
      method,
      headers: {
        Authorization: `Bearer ${token ?? ''}`,
        ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      cache: 'no-store',
      credentials: 'omit',
    });
  } catch {
    throw new AdminError(0, 'Could not reach the service. Check the connection and try again.');
  }
  const payload = await response.json().catch(() => ({}));
  if (response.ok) return payload.data;
  if (response.status === 401) throw new AdminError(401, 'The admin token was not accepted (401). Sign in again.');
  if (response.status === 429) {
    const wait = response.headers.get('retry-after');
    throw new AdminError(
      429,
      `Too many failed sign-ins from this address (429). Try again${wait ? ` in ${wait} seconds` : ' later'}.`,
    );
  }
  const details = (payload.details ?? []).map((d) => `${d.field}: ${d.message}`).join('; ');
  throw new AdminError(
    response.status,
    `${payload.error ?? 'The request failed'} (${response.status}${payload.code ? ` ${payload.code}` : ''})${details ? `: ${details}` : ''}`,
  );
}

/** An AdminError on screen; a refused token signs out. */
function fail(error) {
  if (error instanceof AdminError && error.status === 401) setSignedIn(false);
  showMessage(error instanceof Error ? error.message : String(error));
}

function setSignedIn(on, token) {
  if (on) sessionStorage.setItem(TOKEN_KEY, token);
  else sessionStorage.removeItem(TOKEN_KEY);
  signIn.hidden = on;
  signedIn.hidden = !on;
  if (!on) $('admin-token').focus();
  // The operator's other parts of the page (reports.js) follow the sign-in.
  document.dispatchEvent(new CustomEvent('edgeshare:operator', { detail: { signedIn: on } }));
}

// ---- Formatting ----

// Every page's sizes and times (src/lib/format.ts), from /assets/format.js, loaded first.
const { formatBytes, formatDate } = globalThis.edgeshareFormat;

function limitsText(key) {
  const rate =
    key.rateLimitRequests === null && key.rateLimitWindowSeconds === null
      ? 'default'
      : `${key.rateLimitRequests ?? 'default'} per ${key.rateLimitWindowSeconds === null ? 'default window' : `${key.rateLimitWindowSeconds} s`}`;
  const quota = key.storageQuotaBytes === null ? 'default' : formatBytes(key.storageQuotaBytes);
  const files = key.maxFiles === null ? 'default' : String(key.maxFiles);
  return [`Requests: ${rate}`, `Storage: ${quota}`, `Files: ${files}`];
}

// ---- Forms ----

/** The four limit inputs as the API wants them: numbers, or `emptyAs` for a blank field. */
function readLimits(form, emptyAs) {
  const number = (name) => {
    const value = form.elements[name].value.trim();
    return value === '' ? emptyAs : Number(value);
  };
  const quotaMiB = number('storageQuotaMiB');
  const limits = {
    rateLimitRequests: number('rateLimitRequests'),
    rateLimitWindowSeconds: number('rateLimitWindowSeconds'),
    storageQuotaBytes: typeof quotaMiB === 'number' ? Math.round(quotaMiB * 1024 * 1024) : quotaMiB,
    maxFiles: number('maxFiles'),
  };
  return Object.fromEntries(Object.entries(limits).filter(([, value]) => value !== undefined));
}

function fillLimits(form, key) {
  form.elements.rateLimitRequests.value = key.rateLimitRequests ?? '';
  form.elements.rateLimitWindowSeconds.value = key.rateLimitWindowSeconds ?? '';
  form.elements.storageQuotaMiB.value =
    key.storageQuotaBytes === null ? '' : String(Number((key.storageQuotaBytes / 1024 / 1024).toFixed(6)));
  form.elements.maxFiles.value = key.maxFiles ?? '';
}

// ---- The list ----

/** A cell, labelled with its column for the narrow screen's cards. */
function cell(row, label, content) {
  const td = document.createElement('td');
  td.dataset.label = label;
  if (content instanceof Node) td.append(content);
  else td.textContent = content;
  row.append(td);
  return td;
}

function limitsEditor(key) {
  const fragment = $('limits-template').content.cloneNode(true);
  // Each row's copy of the form gets its own ids, so every label still names its input.
  for (const element of fragment.querySelectorAll('[id]')) element.id = `${element.id}-${key.id}`;
  for (const label of fragment.querySelectorAll('label[for]')) label.htmlFor = `${label.htmlFor}-${key.id}`;
  const details = fragment.querySelector('details');
  details.querySelector('summary').setAttribute('aria-label', `Change limits of ${key.name}`);
  const form = fragment.querySelector('form');
  fillLimits(form, key);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    clearMessage();
    try {
      await admin('PATCH', `/keys/${encodeURIComponent(key.id)}`, readLimits(form, null));
      showMessage(`Limits of “${key.name}” saved.`, 'ok');
      await loadKeys();
    } catch (error) {
      fail(error);
    }
  });
  return fragment;
}

function revokeButton(key) {
  const button = document.createElement('button');
  button.type = 'button';
  button.className = 'danger';
  button.textContent = 'Revoke';
  button.setAttribute('aria-label', `Revoke ${key.name}`);
  button.addEventListener('click', async () => {
    const sure = window.confirm(
      `Revoke “${key.name}” (${key.prefix}…)? Its requests are refused at once and its share links stop working. This cannot be undone.`,
    );
    if (!sure) return;
    clearMessage();
    try {
      await admin('DELETE', `/keys/${encodeURIComponent(key.id)}`);
      showMessage(`“${key.name}” is revoked.`, 'ok');
      await loadKeys();
    } catch (error) {
      fail(error);
    }
  });
  return button;
}

function renderKeys(keys) {
  const body = $('keys-body');
  body.replaceChildren();
  $('keys-caption').textContent =
    keys.length === 0 ? 'No keys yet.' : `${keys.length} ${keys.length === 1 ? 'key' : 'keys'}, newest first.`;
  for (const key of keys) {
    const row = document.createElement('tr');
    row.dataset.keyId = key.id;
    const name = document.createElement('th');
    name.scope = 'row';
    name.textContent = key.name;
    row.append(name);
    const prefix = document.createElement('code');
    prefix.textContent = `${key.prefix}…`;
    cell(row, 'Prefix', prefix);
    const status = document.createElement('span');
    status.className = `status-${key.status}`;
    status.textContent = key.status === 'revoked' ? 'Revoked' : 'Active';
    cell(row, 'Status', status);
    const created = document.createElement('time');
    created.dateTime = key.createdAt;
    created.textContent = formatDate(key.createdAt);
    cell(row, 'Created', created);
    const limits = cell(row, 'Limits', '');
    for (const line of limitsText(key)) {
      const div = document.createElement('div');
      div.textContent = line;
      limits.append(div);
    }
    const actions = cell(row, 'Actions', '');
    actions.className = 'actions';
    if (key.status === 'active') {
      actions.append(limitsEditor(key));
      actions.append(revokeButton(key));
    } else if (key.revokedAt) {
      actions.textContent = `Revoked ${formatDate(key.revokedAt)}`;
    }
    body.append(row);
  }
}

async function loadKeys() {
  const data = await admin('GET', '/keys');
  const keys = [...data.keys].sort((a, b) => b.createdAt.localeCompare(a.createdAt));
  renderKeys(keys);
}

// ---- Wiring ----

$('sign-in-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  clearMessage();
  const token = $('admin-token').value.trim();
  try {
    const data = await admin('GET', '/keys', undefined, token);
    setSignedIn(true, token);
    $('admin-token').value = '';
    renderKeys([...data.keys].sort((a, b) => b.createdAt.localeCompare(a.createdAt)));
    $('key-name').focus();
  } catch (error) {
    showMessage(error.message);
  }
});

$('sign-out').addEventListener('click', () => {
  clearMessage();
  $('new-key').hidden = true;
  $('new-key-value').value = '';
  setSignedIn(false);
});

$('refresh').addEventListener('click', () => {
  clearMessage();
  loadKeys().catch(fail);
});

$('create-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  clearMessage();
  const form = event.currentTarget;
  const body = { name: form.elements.name.value.trim(), ...readLimits(form, undefined) };
  try {
    const created = await admin('POST', '/keys', body);
    form.reset();
    $('new-key-name').textContent = created.name;
    $('new-key-value').value = created.key;
    $('copy-status').textContent = '';
    $('new-key').hidden = false;
    $('new-key-value').focus();
    $('new-key-value').select();
    await loadKeys();
  } catch (error) {
    fail(error);
  }
});

$('copy-key').addEventListener('click', async () => {
  const value = $('new-key-value').value;
  try {
    await navigator.clipboard.writeText(value);
    $('copy-status').textContent = 'Copied to the clipboard.';
  } catch {
    $('new-key-value').select();
    $('copy-status').textContent = 'Could not copy: the key is selected, press Ctrl+C (⌘C).';
  }
});

$('hide-key').addEventListener('click', () => {
  $('new-key').hidden = true;
  $('new-key-value').value = '';
});

// What reports.js (loaded after this) shares: the one admin call and the page's message box.
globalThis.edgeshareOperator = { admin, fail, showMessage, clearMessage, AdminError };

if (sessionStorage.getItem(TOKEN_KEY)) {
  setSignedIn(true, sessionStorage.getItem(TOKEN_KEY));
  loadKeys().catch(fail);
} else {
  setSignedIn(false);
}
