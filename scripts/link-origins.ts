// What `npm run deploy` says about SITE_URL and PUBLIC_BASE_URL before it deploys.

/** A `NAME = "value"` of wrangler.toml's top-level [vars] table ('' when absent or empty). */
export function tomlVar(toml: string, name: string): string {
  let inVars = false;
  for (const raw of toml.split('\n')) {
    const line = raw.trim();
    if (line.startsWith('[')) inVars = line === '[vars]';
    else if (inVars) {
      const match = new RegExp(`^${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)')`).exec(line);
      if (match) return (match[1] ?? match[2] ?? '').trim();
    }
  }
  return '';
}

/**
 * The warning for a deploy whose links would be built from each request's Host header, or
 * undefined when both origins are set (in wrangler.toml's [vars] or the environment).
 */
export function linkOriginWarning(toml: string, env: Record<string, string | undefined> = {}): string | undefined {
  const unset = ['SITE_URL', 'PUBLIC_BASE_URL'].filter((name) => !(env[name]?.trim() || tomlVar(toml, name)));
  if (unset.length === 0) return undefined;
  return [
    `WARNING: ${unset.join(' and ')} ${unset.length === 1 ? 'is' : 'are'} not set (wrangler.toml [vars]).`,
    `  Links in API answers (${unset.includes('SITE_URL') ? 'shareUrl' : ''}${unset.length === 2 ? ', ' : ''}${unset.includes('PUBLIC_BASE_URL') ? 'downloadUrl, tus Location' : ''}) will be built from each`,
    "  request's Host header: behind a proxy or on a workers.dev and a custom domain at once they",
    '  can point at the wrong host. Set them to the public origin, e.g. SITE_URL = "https://files.example.com".',
  ].join('\n');
}
