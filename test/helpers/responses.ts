// Reading the API's answers: versions and paths, JSON with v2's `_perf` checked, the error envelope.
import { expect } from 'vitest';
import type { ErrorBody } from './records';

/** The API versions every behaviour test runs against. */
export const VERSIONS = ['v1', 'v2'] as const;
export type ApiVersion = (typeof VERSIONS)[number];

/** A route's path in one version: `api('v2', '/files')` is `/api/v2/files`. */
export const api = (version: ApiVersion, path: string) => `/api/${version}${path}`;

/**
 * Checks the `_perf` contract on a JSON body: in v2 a non-negative whole number of milliseconds
 * plus a Server-Timing header with the total; in v1 no `_perf` at all.
 */
export function expectPerf(version: ApiVersion, response: Response, body: unknown): void {
  expect(typeof body === 'object' && body !== null, 'JSON body is an object').toBe(true);
  if (version === 'v2') {
    const perf = (body as { _perf?: unknown })._perf;
    expect(Number.isInteger(perf), `_perf is a whole number, got ${JSON.stringify(perf)}`).toBe(true);
    expect(perf as number).toBeGreaterThanOrEqual(0);
    expect(response.headers.get('server-timing') ?? '').toContain('total;dur=');
  } else {
    expect(body).not.toHaveProperty('_perf');
  }
}

/**
 * Reads a JSON response of `version`, checks its `_perf` (see expectPerf) and returns the body
 * without `_perf`, so exact shape assertions hold unchanged for both versions.
 */
export async function readJson<T>(version: ApiVersion, response: Response): Promise<T> {
  const body: unknown = await response.json();
  expectPerf(version, response, body);
  const { _perf: _checked, ...rest } = body as Record<string, unknown>;
  return rest as T;
}

/** The response body as JSON, typed by the caller. */
export async function json<T>(response: Response): Promise<T> {
  return (await response.json()) as T;
}

/**
 * Checks the error envelope (status, code, a message) and returns the body for more checks.
 * With a version it also checks `_perf` (see readJson) and returns the body without it.
 */
export async function expectError(
  response: Response,
  status: number,
  code: string,
  version?: ApiVersion,
): Promise<ErrorBody> {
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type') ?? '').toMatch(/^application\/json/);
  const body = version ? await readJson<ErrorBody>(version, response) : await json<ErrorBody>(response);
  expect(body.code).toBe(code);
  expect(typeof body.error).toBe('string');
  expect(body.error.length).toBeGreaterThan(0);
  return body;
}
