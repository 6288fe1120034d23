/** The bearer token of a request, or null. */
export function bearerToken(header: string | undefined): string | null {
  const match = /^Bearer[ ]+([^\s]+)\s*$/i.exec(header ?? '');
  return match?.[1] ?? null;
}
