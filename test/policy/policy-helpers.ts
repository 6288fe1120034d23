// Helpers for the policy tests: bounds set in the configuration (per request, as env overrides)
// or per account (the admin API), and the 422 POLICY_VIOLATION they answer.
import { expect } from 'vitest';
import { api } from '../helpers/responses';
import { createUpload } from '../helpers/tus';
import { form } from '../helpers/upload';
import { call, createKey } from '../helpers/worker';

export type Auth = Record<string, string>;
export type Violation = { field: string; rule: string; limit: number | boolean };
export type Env = Record<string, string>;

export const ADMIN = { Authorization: 'Bearer test-admin-token-0123456789abcdefghij' };

/** A fresh key (its own account, whose id is the key's), with room for bursts of requests. */
export const newAccount = (name = 'policy') => createKey(name, { rateLimitRequests: 100_000 });

export const jsonInit = (auth: Auth, method: string, body: unknown): RequestInit => ({
  method,
  headers: { ...auth, 'Content-Type': 'application/json' },
  body: JSON.stringify(body),
});

/** Sends a JSON body to a v2 path under `env` (the configured bounds); the status and parsed body. */
export async function send(auth: Auth, method: string, path: string, body: unknown, env: Env = {}) {
  const response = await call(`/api/v2${path}`, jsonInit(auth, method, body), env);
  // biome-ignore lint/suspicious/noExplicitAny: answers of several shapes, read field by field
  return { status: response.status, body: (await response.json()) as any };
}

/** The answer is 422 POLICY_VIOLATION naming exactly these bounds (in any order). */
export function expectViolation(answer: { status: number; body: unknown }, details: Violation[], what = ''): void {
  const body = answer.body as { code?: string; error?: string; details?: Violation[] };
  expect({ status: answer.status, code: body.code }, `${what} ${JSON.stringify(body)}`).toEqual({
    status: 422,
    code: 'POLICY_VIOLATION',
  });
  expect(typeof body.error).toBe('string');
  const order = (list: Violation[]) =>
    [...list].sort((a, b) => `${a.field}${a.rule}`.localeCompare(`${b.field}${b.rule}`));
  expect(order(body.details ?? []), what).toEqual(order(details));
}

/** Sets (or with null clears, with false lifts) an account's policy overrides through the admin API. */
export async function setAccountPolicy(accountId: string, policy: Record<string, unknown>) {
  const response = await call(`/admin/accounts/${accountId}`, jsonInit(ADMIN, 'PATCH', { policy }));
  // biome-ignore lint/suspicious/noExplicitAny: the admin API's account record
  const body = (await response.json()) as any;
  expect(response.status, JSON.stringify(body)).toBe(200);
  return body.data;
}

/** GET /api/v2/policy's data. */
export async function policyOf(auth: Auth, env: Env = {}) {
  const response = await call('/api/v2/policy', { headers: auth }, env);
  const body = (await response.json()) as { data: Record<string, unknown> };
  expect(response.status, JSON.stringify(body)).toBe(200);
  return body.data;
}

/** Seconds from now until an ISO time. */
export const secondsUntil = (iso: string) => (Date.parse(iso) - Date.now()) / 1000;

/**
 * One upload path: sends one small text file with these fields (expiresIn, isPublic, …) under
 * `env`. `form`: the fields are form parts, each judged as it is read (a refused one stops the
 * form before its file).
 */
export type UploadPath = {
  name: string;
  form?: boolean;
  upload: (auth: Auth, fields: Record<string, string>, env: Env) => Promise<Response>;
};

export const multipartPath = (version: 'v1' | 'v2'): UploadPath => ({
  name: `POST /api/${version}/upload`,
  form: true,
  upload: (auth, fields, env) =>
    call(
      api(version, '/upload'),
      { method: 'POST', headers: auth, body: form([{ filename: 'a.txt', content: 'a file' }], fields) },
      env,
    ),
});

/** Every way a file arrives with its owner's key: v1 and v2 multipart, bulk, the raw PUT, tus creation. */
export const UPLOAD_PATHS: UploadPath[] = [
  multipartPath('v1'),
  multipartPath('v2'),
  {
    name: 'POST /api/v2/upload/bulk',
    form: true,
    upload: (auth, fields, env) =>
      call(
        '/api/v2/upload/bulk',
        {
          method: 'POST',
          headers: auth,
          body: form(
            [
              { name: 'files', filename: 'a.txt', content: 'one' },
              { name: 'files', filename: 'b.txt', content: 'two' },
            ],
            fields,
          ),
        },
        env,
      ),
  },
  {
    name: 'PUT /api/v2/upload/{filename}',
    upload: (auth, fields, env) =>
      call(
        `/api/v2/upload/a.txt?${new URLSearchParams(fields)}`,
        { method: 'PUT', headers: { ...auth, 'Content-Type': 'text/plain' }, body: 'a file' },
        env,
      ),
  },
  {
    name: 'POST /api/v2/uploads (tus creation)',
    upload: async (auth, fields, env) =>
      (await createUpload(auth, 6, { filename: 'a.txt', ...fields }, { env, body: new TextEncoder().encode('a file') }))
        .response,
  },
];
