// /keys, the account's own mode: an API key with keys:write manages its account's keys through
// /api/v2/keys, and the grants it gave OAuth (MCP) clients through /api/v2/oauth/grants. The key lives in sessionStorage (this tab only, never in a URL); the DOM is built
// with textContent and attributes only, so no key name can become markup.
// An IIFE: keys.js, a classic script on the same page, has its own top-level names.
(() => {
  const ACCOUNT_KEY = 'edgeshare.accountKey';
  const $ = (id) => document.getElementById(id);

  const box = $('message');
  const say = (text, kind = 'error') => {
    box.textContent = text;
    box.className = `message ${kind}`;
    box.hidden = false;
  };

  async function keysApi(method, path, body, key = sessionStorage.getItem(ACCOUNT_KEY), base = '/api/v2/keys') {
    let response;
    try {
      response = await fetch(`${base}${path}`, {
        method,
        headers: {
          Authorization: `Bearer ${key ?? ''}`,
          ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        cache: 'no-store',
        credentials: 'omit',
      });
    } catch {
      throw Object.assign(new Error('Could not reach the service. Check the connection and try again.'), { status: 0 });
    }
    const payload = await response.json().catch(() => ({}));
    if (response.ok) return payload.data;
    let text = `${payload.error ?? 'The request failed'} (${response.status}${payload.code ? ` ${payload.code}` : ''})`;
    if (response.status === 401) text = 'This key was not accepted (401): it is unknown, revoked or expired.';
    if (response.status === 403 && path === '' && method === 'GET')
      text = 'This key cannot manage keys: it lacks the keys:write scope (403).';
    throw Object.assign(new Error(text), { status: response.status });
  }

  function open(on, key) {
    if (on) sessionStorage.setItem(ACCOUNT_KEY, key);
    else sessionStorage.removeItem(ACCOUNT_KEY);
    $('account-sign-in').hidden = on;
    $('account-signed-in').hidden = !on;
    $('sign-in').hidden = on;
  }

  // Every page's times (src/lib/format.ts), from /assets/format.js, loaded first.
  const when = (iso) => (iso ? globalThis.edgeshareFormat.formatDate(iso) : 'never');

  /**
   * A table row: its name as the row header, each cell labelled with its column (for the narrow
   * screen's cards), and a Revoke button calling `onRevoke` unless it is null.
   */
  function row(name, cells, onRevoke) {
    const tr = document.createElement('tr');
    const header = document.createElement('th');
    header.scope = 'row';
    header.textContent = name;
    tr.append(header);
    for (const [label, text] of cells) {
      const td = document.createElement('td');
      td.dataset.label = label;
      td.textContent = text;
      tr.append(td);
    }
    const actions = document.createElement('td');
    actions.className = 'actions';
    actions.dataset.label = 'Actions';
    if (onRevoke) {
      const button = document.createElement('button');
      button.type = 'button';
      button.className = 'secondary';
      button.textContent = 'Revoke';
      button.setAttribute('aria-label', `Revoke ${name}`);
      button.addEventListener('click', onRevoke);
      actions.append(button);
    }
    tr.append(actions);
    return tr;
  }

  function render(keys) {
    const body = $('account-keys-body');
    body.replaceChildren();
    for (const key of keys) {
      const cells = [
        ['Prefix', `${key.prefix}…`],
        ['Scopes', key.scopes.join(', ')],
        ['Status', key.status],
        ['Expires', when(key.expiresAt)],
        ['Last used', key.lastUsedAt ? when(key.lastUsedAt) : 'not yet'],
      ];
      body.append(row(key.name, cells, key.status === 'active' ? () => revoke(key) : null));
    }
  }

  async function refresh() {
    render((await keysApi('GET', '')).keys);
  }

  const grantsApi = (method, path) => keysApi(method, path, undefined, undefined, '/api/v2/oauth/grants');

  function renderGrants(grants) {
    const body = $('account-grants-body');
    body.replaceChildren();
    $('account-grants-caption').textContent = grants.length === 0 ? 'No app is connected.' : '';
    for (const grant of grants) {
      const cells = [
        ['Scopes', grant.scopes.join(', ')],
        ['Connected', when(grant.createdAt)],
      ];
      body.append(row(grant.clientName, cells, () => revokeGrant(grant)));
    }
  }

  async function refreshGrants() {
    try {
      renderGrants((await grantsApi('GET', '')).grants);
    } catch (error) {
      say(error.message);
    }
  }

  async function revokeGrant(grant) {
    if (!window.confirm(`Revoke “${grant.clientName}”? Its tokens are refused from their next request.`)) return;
    try {
      await grantsApi('DELETE', `/${encodeURIComponent(grant.id)}`);
      say(`Revoked ${grant.clientName}.`, 'ok');
      await refreshGrants();
    } catch (error) {
      if (error.status === 401) open(false);
      say(error.message);
    }
  }

  async function revoke(key) {
    if (!window.confirm(`Revoke “${key.name}”? Clients using it are refused from their next request.`)) return;
    try {
      await keysApi('DELETE', `/${encodeURIComponent(key.id)}`);
      say(`Revoked ${key.name}.`, 'ok');
      await refresh();
    } catch (error) {
      if (error.status === 401) open(false);
      say(error.message);
    }
  }

  $('account-sign-in-form').addEventListener('submit', async (event) => {
    event.preventDefault();
    const key = event.target.elements.key.value.trim();
    try {
      render((await keysApi('GET', '', undefined, key)).keys);
      event.target.reset();
      box.hidden = true;
      open(true, key);
      await refreshGrants();
    } catch (error) {
      say(error.message);
    }
  });

  $('account-close').addEventListener('click', () => {
    open(false);
    $('account-new-key').hidden = true;
    $('account-new-key-value').value = '';
  });

  $('account-create-form').addEventListener('submit', async (event) => {
    event.preventDefault();
    const form = event.target;
    const scopes = [...form.querySelectorAll('input[name="scope"]:checked')].map((input) => input.value);
    const body = { name: form.elements.name.value.trim(), scopes };
    if (form.elements.expiresAt.value) body.expiresAt = new Date(form.elements.expiresAt.value).toISOString();
    try {
      const created = await keysApi('POST', '', body);
      $('account-new-key-value').value = created.key;
      $('account-new-key').hidden = false;
      form.reset();
      box.hidden = true;
      await refresh();
    } catch (error) {
      if (error.status === 401) open(false);
      say(error.message);
    }
  });

  $('account-copy-key').addEventListener('click', async () => {
    await navigator.clipboard.writeText($('account-new-key-value').value);
    say('Copied. The key is not shown again once you close this page.', 'ok');
  });

  const saved = sessionStorage.getItem(ACCOUNT_KEY);
  if (saved) {
    keysApi('GET', '', undefined, saved)
      .then((data) => {
        open(true, saved);
        render(data.keys);
        return refreshGrants();
      })
      .catch(() => open(false));
  }
})();
