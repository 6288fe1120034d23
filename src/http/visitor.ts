// What a route hands openForVisitor (src/visitors/service.ts): the visit as the request carries
// it (the URL's token, the client's address, the credentials the route reads) and its deps,
// whose `record` hands the visit's end to the access log (visit-log.ts).
import type { Context } from 'hono';
import type { AppEnv } from '../env';
import { basicPassword } from '../lib/basic-auth';
import { clientAddress } from '../limiter/auth-guard-client';
import { readGrant } from '../visitors/grant';
import type { Visit, VisitKind, VisitorDeps } from '../visitors/service';
import { noteVisit } from './visit-log';

export const visitorDeps = (c: Context<AppEnv>): VisitorDeps => ({
  guard: c.env.AUTH_GUARD,
  record: noteVisit(c.req.raw),
});

/** The visit of this request; `credentials`: what the route takes (a page takes no password). */
export const visitOf = (
  c: Context<AppEnv>,
  kind: VisitKind,
  credentials: { password?: string; grant?: string } = {},
): Visit => ({ kind, token: c.req.param('token') ?? '', address: clientAddress(c.req.raw.headers), ...credentials });

/** The password of HTTP Basic credentials (scripts: `curl -u :PASSWORD`). */
export const basicOf = (c: Context<AppEnv>) => basicPassword(c.req.header('authorization'));

/** The grant cookie a share link's password form gave. */
export const grantOf = (c: Context<AppEnv>) => readGrant(c.req.header('cookie'));
