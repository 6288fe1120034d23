// v2 only: GET /policy, the bounds the caller's account works within; and what every route that
// makes or changes something bounded hands its service (the policy, an upload's rules).
// HTTP only: the rules are in service.ts.
import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { AppEnv } from '../env';
import { errors, ok } from '../http/openapi';
import { requires } from '../http/route-needs';
import { successV2 } from '../schemas';
import { PolicySchema } from './schemas';
import { effectivePolicy, type Policy, uploadRules as rulesOf, type UploadRules } from './service';

/**
 * The bounds the caller's account works within: the configuration with the account's overrides,
 * which came with the key (no trip of their own).
 */
export const policy = (c: Context<AppEnv>): Policy => effectivePolicy(c.get('config'), c.get('apiKey').policy);

/** How the caller's uploads' expiry and visibility are decided: its account's policy and the configured default. */
export const uploadRules = (c: Context<AppEnv>): UploadRules =>
  rulesOf(policy(c), c.get('config').DEFAULT_EXPIRY_SECONDS);

/**
 * Whether the caller's uploads may be age files (E2E_ALLOWED, the account's e2eAllowed); an
 * upload with a key may always be plain (src/e2e/age-checks.ts, E2eAdmission).
 */
export const uploadE2e = (c: Context<AppEnv>) => ({ allowed: policy(c).e2eAllowed, required: false });

export function addPolicyRoutes(router: OpenAPIHono<AppEnv>) {
  const get = createRoute({
    method: 'get',
    path: '/policy',
    operationId: 'getPolicy',
    summary: 'The bounds this service sets on your account’s links, file requests and files',
    description:
      'Any valid key may read it (no scope): a client learns what it may ask for before asking. Each bound is ' +
      'the operator’s configuration, or the account’s own where the operator set one; `null` where none is set. ' +
      'A create or change that breaks one is 422 POLICY_VIOLATION, naming each bound in `details` by the names ' +
      'used here.',
    // Any valid key: the bounds concern whatever the key can do, and say nothing of the account's data.
    middleware: [requires({ scope: null })] as const,
    responses: { 200: ok(successV2(PolicySchema), 'The effective bounds'), ...errors(401, 429) },
  });
  router.openapi(get, (c) => c.json({ success: true as const, data: policy(c) }, 200));
}
