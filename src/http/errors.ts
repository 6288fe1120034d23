import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { type Config, ConfigError } from '../config';
import type { AppEnv } from '../env';
import { ApiError, ERROR_STATUS, validationError } from '../errors';
import { log } from '../log';
import type { ErrorBody } from '../schemas';

/**
 * RFC 7725: every 451 names where to turn (`Link: <ABUSE_CONTACT>; rel="blocked-by"`) when the
 * operator set ABUSE_CONTACT; undefined otherwise.
 */
export function blockedByLink(config: Pick<Config, 'ABUSE_CONTACT'> | undefined, status: number): string | undefined {
  if (status !== 451 || !config?.ABUSE_CONTACT) return undefined;
  return `<${config.ABUSE_CONTACT}>; rel="blocked-by"`;
}

/** Renders any failure as the error envelope. Unexpected errors never show their details. */
export function renderError(error: Error, c: Context<AppEnv>): Response {
  let apiError: ApiError;
  if (error instanceof ApiError) {
    apiError = error;
  } else if (error instanceof HTTPException && error.status === 413) {
    apiError = new ApiError('FILE_TOO_LARGE');
  } else if (error instanceof HTTPException && error.status === 415) {
    // A JSON route's validator found another Content-Type.
    apiError = validationError('body', 'must be JSON, sent with Content-Type: application/json');
  } else if (error instanceof HTTPException && error.status < 500) {
    // Hono's own 400s (malformed JSON, say) are about the body: name it, like every validation error.
    apiError = validationError(
      'body',
      /json/i.test(error.message) ? 'must be valid JSON' : error.message || 'is not valid',
    );
  } else {
    log('error', error instanceof ConfigError ? error.message : 'unhandled error', {
      requestId: c.get('requestId'),
      error: String(error),
      stack: error.stack,
    });
    apiError = new ApiError('INTERNAL_ERROR');
  }
  const body: ErrorBody = { error: apiError.message, code: apiError.code };
  const requestId = c.get('requestId');
  if (requestId) body.requestId = requestId;
  if (apiError.details) body.details = apiError.details;
  if (apiError.statement !== undefined) body.statement = apiError.statement;
  const response = c.json(body, ERROR_STATUS[apiError.code]);
  for (const [name, value] of Object.entries(apiError.headers)) response.headers.set(name, value);
  const blockedBy = blockedByLink(c.get('config'), ERROR_STATUS[apiError.code]);
  if (blockedBy) response.headers.set('Link', blockedBy);
  return response;
}
