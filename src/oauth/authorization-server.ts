// OAuth 2.1 for MCP clients: the authorization server of @cloudflare/workers-oauth-provider, one per
// origin the API answers on (its issuer and resources, the origin and <origin>/mcp, are fixed when
// it is made). It keeps registered clients, grants and tokens in the OAUTH_KV namespace. A grant belongs
// to an account and names the API key a person signed in with and the scopes they picked (never
// more than that key holds); a token of it acts on /mcp as that key would, narrowed to those scopes.
import type { GrantSummary, OAuthAuthorizationServer, ValidatedAccessToken } from '@cloudflare/workers-oauth-provider';
import { isScope, SCOPES, type Scope } from '../limiter/scopes';
import { log } from '../log';

/** The one protected resource: the MCP endpoint. */
export const MCP_RESOURCE_PATH = '/mcp';
export const AUTHORIZE_PATH = '/authorize';
export const TOKEN_PATH = '/oauth/token';
export const REGISTER_PATH = '/oauth/register';
export const AUTHORIZATION_SERVER_METADATA_PATH = '/.well-known/oauth-authorization-server';

/** An access token lives an hour; its grant (and refresh token) 30 days unless revoked first. */
const ACCESS_TOKEN_TTL_SECONDS = 3600;

/** What a grant's tokens carry (encrypted in KV with a key only the token unwraps). */
export type GrantProps = { accountId: string; keyId: string; keyHash: string };

/** What the grant records in the clear, for the keys view. */
export type GrantMetadata = { clientName: string; keyId: string };

export type OAuthGrant = {
  id: string;
  clientId: string;
  clientName: string;
  scopes: Scope[];
  createdAt: number;
  expiresAt: number | null;
};

const resourcesOf = (origin: string) => [origin, `${origin}${MCP_RESOURCE_PATH}`];

type Library = typeof import('@cloudflare/workers-oauth-provider');
let library: Promise<Library> | undefined;

/**
 * The library, loaded on first use: it imports `cloudflare:workers`, which only workerd has, and
 * the app's modules stay importable in Node (where the OpenAPI documents are checked).
 */
export const oauthLibrary = (): Promise<Library> => {
  library ??= import('@cloudflare/workers-oauth-provider');
  return library;
};

const servers = new Map<string, OAuthAuthorizationServer<Env> | null>();
const MAX_SERVERS = 16;

/** Whether the library takes this origin as an issuer: https, or http on a loopback host. */
export function offersOAuth(origin: string): boolean {
  try {
    const url = new URL(origin);
    if (url.protocol === 'https:') return true;
    return url.protocol === 'http:' && /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/.test(url.hostname);
  } catch {
    return false;
  }
}

/**
 * The authorization server of an origin, or null where OAuth cannot be offered: the library takes
 * only https origins, and http on a loopback host (local development).
 */
export async function authorizationServer(origin: string): Promise<OAuthAuthorizationServer<Env> | null> {
  const known = servers.get(origin);
  if (known !== undefined) return known;
  if (!offersOAuth(origin)) return null;
  const { OAuthAuthorizationServer } = await oauthLibrary();
  let server: OAuthAuthorizationServer<Env> | null;
  try {
    server = new OAuthAuthorizationServer<Env>({
      issuer: origin,
      // Both documents of RFC 9728 name a resource: the origin's (where /mcp's 401 points, so MCP
      // clients ask for it) and /mcp's own. A token of either is taken on /mcp, and only there.
      resources: resourcesOf(origin),
      defaultResource: `${origin}${MCP_RESOURCE_PATH}`,
      authorizeEndpoint: AUTHORIZE_PATH,
      tokenEndpoint: TOKEN_PATH,
      clientRegistrationEndpoint: REGISTER_PATH,
      scopesSupported: [...SCOPES],
      accessTokenTTL: ACCESS_TOKEN_TTL_SECONDS,
      onError: ({ code, status, internal }) => {
        if (status >= 500) log('error', 'oauth error', { code, internal: String(internal) });
      },
    });
  } catch (error) {
    log('info', 'oauth unavailable on this origin', { origin, error: String(error) });
    server = null;
  }
  if (servers.size >= MAX_SERVERS) servers.clear();
  servers.set(origin, server);
  return server;
}

/** An OAuth access token's grant, when it is valid for this origin's /mcp. */
export async function validateAccessToken(
  env: Env,
  origin: string,
  token: string,
): Promise<{ props: GrantProps; scopes: Scope[] } | null> {
  const server = await authorizationServer(origin);
  if (!server) return null;
  let validated: ValidatedAccessToken<GrantProps> | null = null;
  for (const resource of resourcesOf(origin)) {
    validated = await server.validateToken<GrantProps>(resource, token, env);
    if (validated) break;
  }
  if (!validated) return null;
  return { props: validated.props, scopes: validated.scope.filter(isScope) };
}

// A user id may not hold ':' (it separates the parts of a token); account ids are encoded to be sure.
export const grantUserId = (accountId: string) => encodeURIComponent(accountId);

const summary = (grant: GrantSummary): OAuthGrant => {
  const metadata = (grant.metadata ?? {}) as Partial<GrantMetadata>;
  return {
    id: grant.id,
    clientId: grant.clientId,
    clientName: typeof metadata.clientName === 'string' ? metadata.clientName : grant.clientId,
    scopes: grant.scope.filter(isScope),
    createdAt: grant.createdAt,
    expiresAt: grant.expiresAt ?? null,
  };
};

/** The account's grants to OAuth clients, newest first. */
export async function listGrants(env: Env, origin: string, accountId: string): Promise<OAuthGrant[]> {
  const server = await authorizationServer(origin);
  if (!server) return [];
  const helpers = server.getOAuthApi(env);
  const grants: OAuthGrant[] = [];
  let cursor: string | undefined;
  do {
    const page = await helpers.listUserGrants(grantUserId(accountId), { cursor, limit: 1000 });
    grants.push(...page.items.map(summary));
    cursor = page.cursor;
  } while (cursor);
  return grants.sort((a, b) => b.createdAt - a.createdAt);
}

/** Revokes one of the account's grants and its tokens; false when the account has no such grant. */
export async function revokeGrant(env: Env, origin: string, accountId: string, grantId: string): Promise<boolean> {
  const server = await authorizationServer(origin);
  if (!server) return false;
  const grants = await listGrants(env, origin, accountId);
  if (!grants.some((grant) => grant.id === grantId)) return false;
  await server.getOAuthApi(env).revokeGrant(grantId, grantUserId(accountId));
  return true;
}
