// v2 only: the account's age identity (GET/PUT /e2e/identity, docs/e2e.md). HTTP only: the rules
// are in identity.ts. Reading it takes files:read (a second device that only downloads restores
// its identity from the backup); setting it takes files:write (it decides what uploads encrypt to).
import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../env';
import { errorResponse, errors, ok } from '../http/openapi';
import { accountId, storage } from '../http/request-deps';
import { requires } from '../http/route-needs';
import { jsonBodyLimit } from '../http/validation';
import { successV2 } from '../schemas';
import { getIdentity, setIdentity } from './identity';
import { IdentityPutSchema, IdentitySchema } from './schemas';

const tags = ['End-to-end encryption'];

export function addE2eRoutes(router: OpenAPIHono<AppEnv>) {
  const get = createRoute({
    method: 'get',
    path: '/e2e/identity',
    operationId: 'getE2eIdentity',
    tags,
    summary: 'The account’s age recipient and its passphrase backup (null fields: none set)',
    middleware: [requires({ scope: 'files:read' })] as const,
    responses: { 200: ok(successV2(IdentitySchema), 'The identity the server keeps'), ...errors(401, 429) },
  });
  router.openapi(get, async (c) => {
    const data = await getIdentity(storage(c).db, accountId(c));
    return c.json({ success: true as const, data }, 200);
  });

  const put = createRoute({
    method: 'put',
    path: '/e2e/identity',
    operationId: 'putE2eIdentity',
    tags,
    summary: 'Set the account’s age recipient (and a passphrase backup of its identity)',
    description:
      'The recipient is checked (age1…, bech32 of 32 bytes: 400), the backup too (armored age, one scrypt stanza, a ' +
      'valid payload length: 422 E2E_INVALID). Another recipient than the one set is 409 E2E_IDENTITY_EXISTS unless ' +
      '`"replace": true`; replacing it re-encrypts nothing (files keep their headers). 201 for the first, 200 after.',
    middleware: [requires({ scope: 'files:write' }), jsonBodyLimit()] as const,
    request: { body: { required: true, content: { 'application/json': { schema: IdentityPutSchema } } } },
    responses: {
      200: ok(successV2(IdentitySchema), 'The identity as it is now'),
      201: ok(successV2(IdentitySchema), 'The account’s first identity'),
      ...errors(400, 401, 415, 429),
      ...errorResponse(409, 'E2E_IDENTITY_EXISTS: another recipient is set; send `"replace": true`', [
        'E2E_IDENTITY_EXISTS',
      ]),
      ...errorResponse(422, 'E2E_INVALID: the backup is not an armored age file of one scrypt stanza', ['E2E_INVALID']),
    },
  });
  router.openapi(put, async (c) => {
    const { identity, created } = await setIdentity(storage(c).db, accountId(c), c.req.valid('json'));
    return c.json({ success: true as const, data: identity }, created ? 201 : 200);
  });
}
