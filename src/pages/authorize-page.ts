// /authorize: where a person lets an MCP client (OAuth 2.1) act for their account. They sign in with
// one of the account's API keys and tick the scopes to grant; the form posts back to the same
// address (the client's request stays in its query), and no script runs.
import { html } from 'hono/html';
import { SCOPES } from '../limiter/scopes';
import { layout, pageCsp } from './layout';

/**
 * No script at all. The form posts here, and its answer redirects to the client, so that origin
 * is allowed as a form action too (browsers hold a form's redirects to form-action).
 */
export const authorizePageCsp = (redirectOrigin: string | undefined) =>
  pageCsp({ script: "'none'", form: redirectOrigin ? `'self' ${redirectOrigin}` : "'self'" });

export type AuthorizeView = {
  clientName: string;
  /** Where the client's tokens will go: the redirect URI's host. */
  redirectHost: string;
  redirectIsLoopback: boolean;
  /** The scopes ticked: what the client asked for (all when it named none of ours), or what was sent. */
  checked: readonly string[];
  /** A refusal to show above the form. */
  problem?: string;
};

export const authorizePage = (view: AuthorizeView) =>
  layout({
    title: `Authorize ${view.clientName} · edgeshare`,
    head: html`<meta name="robots" content="noindex">`,
    body: html`<h1>Let <span id="client-name">${view.clientName}</span> use your edgeshare account?</h1>
${view.problem ? html`<p id="problem" class="message error" role="alert">${view.problem}</p>` : ''}
<section class="panel" aria-labelledby="authorize-heading">
<h2 id="authorize-heading">Sign in and choose what it may do</h2>
<p>This app registered itself: its name is not verified. Access will be sent to <strong id="redirect-host">${view.redirectHost}</strong>.</p>
${
  view.redirectIsLoopback
    ? html`<p class="message"><strong>This sends access to an app on your computer.</strong> Continue only if you just started connecting from it.</p>`
    : ''
}
<form id="authorize-form" method="post">
<div class="field"><label for="authorize-key">An API key of your account</label>
<input id="authorize-key" name="key" type="password" autocomplete="off" spellcheck="false" required aria-describedby="authorize-key-hint">
<span id="authorize-key-hint" class="hint">It is not given to the app. The app gets its own token, with at most the scopes of this key, and it stops working when you revoke it on the API keys page or revoke this key.</span></div>
<fieldset class="scopes"><legend>Scopes to grant</legend>
${SCOPES.map(
  (scope) =>
    html`<div class="check"><input id="scope-${scope.replace(':', '-')}" type="checkbox" name="scope" value="${scope}"${view.checked.includes(scope) ? ' checked' : ''}><label for="scope-${scope.replace(':', '-')}"><code>${scope}</code></label></div>`,
)}
</fieldset>
<div class="row"><button type="submit" name="decision" value="approve">Allow</button><button class="secondary" type="submit" name="decision" value="deny" formnovalidate>Deny</button></div>
</form>
</section>`,
  });

/** A request this page cannot act on (an unknown client, a redirect URI it did not register). */
export const authorizeErrorPage = (message: string) =>
  layout({
    title: 'Authorization failed · edgeshare',
    head: html`<meta name="robots" content="noindex">`,
    body: html`<h1>This app cannot be authorized</h1>
<p id="problem" class="message error" role="alert">${message}</p>
<p>Start connecting again from the app.</p>`,
  });
