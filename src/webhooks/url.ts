// Which receiver URLs a webhook may have: https anywhere, plain http only on this machine.

const MAX_URL_LENGTH = 2048;

/** 127.0.0.0/8, [::1] and localhost: reach something only in local development. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (host === '[::1]') return true;
  const octets = host.split('.');
  return (
    octets.length === 4 &&
    octets[0] === '127' &&
    octets.every((octet) => /^\d{1,3}$/.test(octet) && Number(octet) <= 255)
  );
}

/** Why `url` cannot be a webhook's receiver, or undefined when it can. */
export function webhookUrlProblem(url: string): string | undefined {
  if (url.length > MAX_URL_LENGTH) return `must be at most ${MAX_URL_LENGTH} characters`;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'must be an absolute URL';
  }
  if (parsed.username || parsed.password) return 'must not carry a user name or password';
  if (parsed.protocol === 'https:') return undefined;
  if (parsed.protocol === 'http:') {
    return isLoopbackHost(parsed.hostname)
      ? undefined
      : 'must use https (plain http only for 127.0.0.0/8, [::1] and localhost)';
  }
  return 'must use https';
}
