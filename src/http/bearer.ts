import { ApiError } from '../errors';

/** The one 401 for a missing or refused credential, with the challenge RFC 6750 asks for. */
export const unauthorized = (message?: string) =>
  new ApiError('UNAUTHORIZED', message, { headers: { 'WWW-Authenticate': 'Bearer' } });

/** The bearer token of a request, or null. */
export function bearerToken(header: string | undefined): string | null {
  const match = /^Bearer[ ]+([^\s]+)\s*$/i.exec(header ?? '');
  return match?.[1] ?? null;
}
