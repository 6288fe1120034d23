// OAuth 2.1 for MCP clients, served before any API-key authentication: the authorization server's
// metadata (RFC 8414), dynamic client registration (RFC 7591), the token endpoint with PKCE and
// revocation (RFC 7009) — all answered by @cloudflare/workers-oauth-provider — and /authorize, our
// page, where a person signs in with an API key of their account and picks the scopes to grant.
import type { AuthRequest, OAuthHelpers } from '@cloudflare/workers-oauth-provider';
import { type Context, Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { AppEnv } from '../env';
import { ApiError } from '../errors';
import { origins } from '../http/request-deps';
import { clientAddress } from '../limiter/auth-guard-client';
import { isScope, SCOPES, type Scope } from '../limiter/scopes';
import { authorizeErrorPage, authorizePage, authorizePageCsp } from '../pages/authorize-page';
import { pageHeaders } from '../pages/layout';
import {
  AUTHORIZATION_SERVER_METADATA_PATH,
  AUTHORIZE_PATH,
  authorizationServer,
  type GrantMetadata,
  grantUserId,
  oauthLibrary,
  REGISTER_PATH,
  TOKEN_PATH,
} from './authorization-server';
import { signInWithKey } from './sign-in';

const MAX_FORM_BYTES = 16 * 1024;

type Parsed = { helpers: OAuthHelpers; request: AuthRequest } | { answer: Response | Promise<Response> };

/** The client's request, validated by the library (client, redirect URI, PKCE, resource), or the answer. */
async function parseRequest(c: Context<AppEnv>): Promise<Parsed> {
  const server = await authorizationServer(origins(c).api);
  if (!server) throw new ApiError('NOT_FOUND');
  const helpers = server.getOAuthApi(c.env);
  const { AuthorizationError, CimdFetchError } = await oauthLibrary();
  try {
    return { helpers, request: await helpers.parseAuthRequest(c.req.raw) };
  } catch (error) {
    // Only once the client and its exact redirect URI are known may the error go back to it.
    if (error instanceof AuthorizationError && error.redirectTo) return { answer: c.redirect(error.redirectTo, 302) };
    if (error instanceof AuthorizationError || error instanceof CimdFetchError) {
      const message = error instanceof AuthorizationError ? error.description : 'This app could not be verified.';
      return { answer: c.html(authorizeErrorPage(message), 400, pageHeaders(authorizePageCsp(undefined))) };
    }
    throw error;
  }
}

const redirectOrigin = (request: AuthRequest) => new URL(request.redirectUri).origin;

export function createOAuthRouter() {
  const router = new Hono<AppEnv>();

  // The library's own endpoints (it answers CORS preflights and errors as OAuth wants them).
  const served = async (c: Context<AppEnv>) => {
    const server = await authorizationServer(origins(c).api);
    if (!server) throw new ApiError('NOT_FOUND');
    // The library is typed against newer workers-types; the context is the runtime's own.
    return server.fetch(c.req.raw, c.env, c.executionCtx as unknown as Parameters<typeof server.fetch>[2]);
  };
  router.all(AUTHORIZATION_SERVER_METADATA_PATH, served);
  router.all(TOKEN_PATH, served);
  router.all(REGISTER_PATH, served);

  router.get(AUTHORIZE_PATH, async (c) => {
    const parsed = await parseRequest(c);
    if ('answer' in parsed) return parsed.answer;
    const { helpers, request } = parsed;
    const details = await helpers.describeConsent(request);
    const asked = request.scope.filter(isScope);
    const view = {
      clientName: details.clientName,
      redirectHost: details.redirectHost,
      redirectIsLoopback: details.redirectIsLoopback,
      // A client that names none of our scopes (or none at all) leaves the choice to the person.
      checked: asked.length > 0 ? asked : [...SCOPES],
    };
    return c.html(authorizePage(view), 200, pageHeaders(authorizePageCsp(redirectOrigin(request))));
  });

  router.post(
    AUTHORIZE_PATH,
    bodyLimit({
      maxSize: MAX_FORM_BYTES,
      onError: () => {
        throw new ApiError('VALIDATION_ERROR', `The form is larger than ${MAX_FORM_BYTES} bytes`);
      },
    }),
    async (c) => {
      const parsed = await parseRequest(c);
      if ('answer' in parsed) return parsed.answer;
      const { helpers, request } = parsed;
      const form = await c.req.formData().catch(() => new FormData());
      if (form.get('decision') === 'deny') {
        const { authorizationErrorRedirect } = await oauthLibrary();
        return c.redirect(authorizationErrorRedirect(request, 'access_denied'), 302);
      }

      const details = await helpers.describeConsent(request);
      const picked = form.getAll('scope').filter((value): value is string => typeof value === 'string');
      const headers = pageHeaders(authorizePageCsp(redirectOrigin(request)));
      const again = (problem: string, status: 400 | 401 | 403 | 429) =>
        c.html(
          authorizePage({
            clientName: details.clientName,
            redirectHost: details.redirectHost,
            redirectIsLoopback: details.redirectIsLoopback,
            checked: picked,
            problem,
          }),
          status,
          headers,
        );

      const key = form.get('key');
      const signedIn = await signInWithKey(
        { env: c.env, config: c.get('config'), address: clientAddress(c.req.raw.headers) },
        typeof key === 'string' ? key.trim() : '',
      );
      if (signedIn instanceof ApiError) {
        const status = signedIn.status === 429 ? 429 : signedIn.status === 403 ? 403 : 401;
        return again(status === 401 ? 'That API key was not accepted.' : signedIn.message, status);
      }
      const scopes = picked.filter(isScope);
      if (scopes.length === 0 || scopes.length !== picked.length) return again('Pick at least one scope.', 400);
      const beyond = scopes.filter((scope) => !signedIn.scopes.includes(scope));
      if (beyond.length > 0) {
        return again(`This key does not hold ${beyond.join(', ')}: grant only scopes the key holds.`, 403);
      }
      const metadata: GrantMetadata = { clientName: details.clientName, keyId: signedIn.props.keyId };
      const { redirectTo } = await helpers.completeAuthorization({
        request,
        userId: grantUserId(signedIn.props.accountId),
        metadata,
        scope: SCOPES.filter((scope: Scope) => scopes.includes(scope)),
        props: signedIn.props,
      });
      return c.redirect(redirectTo, 302);
    },
  );
  return router;
}
