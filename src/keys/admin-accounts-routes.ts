// /admin/accounts: the operator's account view. Create an account with its first key, list
// accounts and an account's keys, give an account another key, set an account's limits and its
// policy overrides (src/policy/), suspend an account and lift its suspension (src/abuse/).
import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import { abuseDeps } from '../abuse/admin-routes';
import { OptionalStatementBodySchema, StatementBodySchema } from '../abuse/schemas';
import { setAccountSuspension } from '../abuse/service';
import type { AppEnv } from '../env';
import { ApiError } from '../errors';
import { jsonResponse } from '../http/openapi';
import { keyChanged } from '../limiter/key-limiter-client';
import { SCOPES, storeScopes } from '../limiter/scopes';
import { PolicyOverridesPatchSchema, StoredOverridesSchema } from '../policy/schemas';
import { parseOverrides } from '../policy/service';
import { type AccountRow, findAccount, listAccounts, updateAccountLimits } from '../storage/accounts-repo';
import { insertKey, listAccountKeys } from '../storage/keys-repo';
import { isoNow } from '../time';
import { newKeyMaterial } from './key-material';
import { KeyNameSchema } from './key-name';
import { KeySchema, keyRecord } from './records';

const LimitsSchema = z.object({
  storageQuotaBytes: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).nullish(),
  maxFiles: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).nullish(),
  /** The account's own bounds (docs/policy.md): each named one set, lifted (false) or cleared (null). */
  policy: PolicyOverridesPatchSchema.optional(),
});

/** A change of policy overrides as D1 applies it (a JSON merge patch), or undefined: none. */
const policyPatch = (patch: z.infer<typeof PolicyOverridesPatchSchema> | undefined) =>
  patch === undefined ? undefined : JSON.stringify(patch);

const AccountKeySchema = z.object({
  name: KeyNameSchema,
  /** Absent: every scope. */
  scopes: z.array(z.enum(SCOPES)).min(1).optional(),
  expiresAt: z.iso.datetime({ offset: true }).nullish(),
});

const CreateAccountSchema = LimitsSchema.extend({
  // The first key takes the account's name by default, so the account's name follows the same rule.
  name: KeyNameSchema,
  /** The first key: by default named after the account, with every scope. */
  key: AccountKeySchema.partial({ name: true }).optional(),
});

const AccountSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    storageQuotaBytes: z.number().int().nullable(),
    maxFiles: z.number().int().nullable(),
    policy: StoredOverridesSchema.openapi({
      description: 'The bounds overridden for this account (false: lifted); the others follow the configuration',
    }),
    suspension: z
      .object({ statement: z.string(), at: z.string() })
      .nullable()
      .openapi({
        description:
          'Suspended by the operator (docs/abuse.md): every key answers 403 ACCOUNT_SUSPENDED, every link and ' +
          'file request 451; null: not suspended',
      }),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi('Account');

const accountRecord = (row: AccountRow) => ({
  id: row.id,
  name: row.name,
  storageQuotaBytes: row.storage_quota_bytes,
  maxFiles: row.max_files,
  policy: parseOverrides(row.policy),
  suspension:
    row.suspension_statement === null ? null : { statement: row.suspension_statement, at: row.suspended_at ?? '' },
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

const IdParam = z.object({ id: z.string() });
const ok = <T extends z.ZodType>(data: T, description: string) =>
  jsonResponse(z.object({ success: z.literal(true), data }), description);

/** Every key of the account applies the account's new storage limits (and policy overrides, when given) at once. */
export async function pushAccountLimits(
  env: AppEnv['Bindings'],
  accountId: string,
  overrides: { storageQuotaBytes: number | null; maxFiles: number | null },
  policy?: string | null,
) {
  const accountKeys = await listAccountKeys(env.DB, accountId);
  const update = policy === undefined ? { overrides } : { overrides, policy };
  await Promise.all(accountKeys.map((key) => keyChanged(env.KEY_LIMITER, key.id, update)));
}

export function addAccountRoutes(router: OpenAPIHono<AppEnv>) {
  const create = createRoute({
    method: 'post',
    path: '/accounts',
    request: { body: { required: true, content: { 'application/json': { schema: CreateAccountSchema } } } },
    responses: {
      201: ok(
        z.object({ account: AccountSchema, key: KeySchema.extend({ key: z.string() }) }),
        'The account and its first key',
      ),
    },
  });
  router.openapi(create, async (c) => {
    const input = c.req.valid('json');
    const material = await newKeyMaterial();
    const now = isoNow();
    // An account takes its first key's id (see docs/storage.md): the key founds it.
    const row = await insertKey(
      c.env.DB,
      { ...material, name: input.key?.name ?? input.name },
      { storageQuotaBytes: input.storageQuotaBytes, maxFiles: input.maxFiles, policy: policyPatch(input.policy) },
      now,
      {
        accountName: input.name,
        scopes: input.key?.scopes ? storeScopes(input.key.scopes) : null,
        expiresAt: input.key?.expiresAt ?? null,
      },
    );
    const account = await findAccount(c.env.DB, row.account_id);
    if (!account) throw new Error('account not found after insert');
    return c.json(
      {
        success: true as const,
        data: { account: accountRecord(account), key: { ...keyRecord(row), key: material.key } },
      },
      201,
    );
  });

  const list = createRoute({
    method: 'get',
    path: '/accounts',
    responses: { 200: ok(z.object({ accounts: z.array(AccountSchema) }), 'All accounts') },
  });
  router.openapi(list, async (c) => {
    const rows = await listAccounts(c.env.DB);
    return c.json({ success: true as const, data: { accounts: rows.map(accountRecord) } }, 200);
  });

  const keys = createRoute({
    method: 'get',
    path: '/accounts/{id}/keys',
    request: { params: IdParam },
    responses: { 200: ok(z.object({ keys: z.array(KeySchema) }), 'The account’s keys') },
  });
  router.openapi(keys, async (c) => {
    const { id } = c.req.valid('param');
    if (!(await findAccount(c.env.DB, id))) throw new ApiError('NOT_FOUND', 'No such account');
    const rows = await listAccountKeys(c.env.DB, id);
    return c.json({ success: true as const, data: { keys: rows.map(keyRecord) } }, 200);
  });

  const addKey = createRoute({
    method: 'post',
    path: '/accounts/{id}/keys',
    request: {
      params: IdParam,
      body: { required: true, content: { 'application/json': { schema: AccountKeySchema } } },
    },
    responses: { 201: ok(KeySchema.extend({ key: z.string() }), 'The new key; `key` is shown only this once') },
  });
  router.openapi(addKey, async (c) => {
    const { id } = c.req.valid('param');
    const input = c.req.valid('json');
    if (!(await findAccount(c.env.DB, id))) throw new ApiError('NOT_FOUND', 'No such account');
    const material = await newKeyMaterial();
    const row = await insertKey(c.env.DB, { ...material, name: input.name }, {}, isoNow(), {
      accountId: id,
      scopes: input.scopes ? storeScopes(input.scopes) : null,
      expiresAt: input.expiresAt ?? null,
    });
    return c.json({ success: true as const, data: { ...keyRecord(row), key: material.key } }, 201);
  });

  const setLimits = createRoute({
    method: 'patch',
    path: '/accounts/{id}',
    request: {
      params: IdParam,
      body: { required: true, content: { 'application/json': { schema: LimitsSchema } } },
    },
    responses: { 200: ok(AccountSchema, 'The account') },
  });
  router.openapi(setLimits, async (c) => {
    const { id } = c.req.valid('param');
    const input = c.req.valid('json');
    const limits = { storageQuotaBytes: input.storageQuotaBytes, maxFiles: input.maxFiles };
    const row = await updateAccountLimits(c.env.DB, id, { ...limits, policy: policyPatch(input.policy) }, isoNow());
    if (!row) throw new ApiError('NOT_FOUND', 'No such account');
    const overrides = { storageQuotaBytes: row.storage_quota_bytes, maxFiles: row.max_files };
    await pushAccountLimits(c.env, id, overrides, row.policy);
    return c.json({ success: true as const, data: accountRecord(row) }, 200);
  });

  const suspend = createRoute({
    method: 'post',
    path: '/accounts/{id}/suspend',
    request: {
      params: IdParam,
      body: { required: true, content: { 'application/json': { schema: StatementBodySchema } } },
    },
    responses: { 200: ok(AccountSchema, 'The account, suspended: its keys answer 403, its links and requests 451') },
  });
  router.openapi(suspend, async (c) => {
    const { statement } = c.req.valid('json');
    const row = await setAccountSuspension(abuseDeps(c), c.req.valid('param').id, { suspend: true, statement });
    return c.json({ success: true as const, data: accountRecord(row) }, 200);
  });

  // The statement is optional here: what the owner is told with the notice, if anything.
  const unsuspend = createRoute({
    method: 'post',
    path: '/accounts/{id}/unsuspend',
    request: {
      params: IdParam,
      body: { required: false, content: { 'application/json': { schema: OptionalStatementBodySchema } } },
    },
    responses: { 200: ok(AccountSchema, 'The account, no longer suspended') },
  });
  router.openapi(unsuspend, async (c) => {
    const statement = c.req.valid('json')?.statement ?? null;
    const row = await setAccountSuspension(abuseDeps(c), c.req.valid('param').id, { suspend: false, statement });
    return c.json({ success: true as const, data: accountRecord(row) }, 200);
  });
}
