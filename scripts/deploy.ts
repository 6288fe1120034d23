// npm run deploy [-- wrangler deploy options]: warns when links would be built from the request's
// Host header (SITE_URL/PUBLIC_BASE_URL unset), applies migrations to the deployed D1, deploys.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { linkOriginWarning } from './link-origins.ts';
import { applyMigrations, exitOnWranglerError, ROOT, wranglerInteractive } from './wrangler.ts';

const warning = linkOriginWarning(readFileSync(join(ROOT, 'wrangler.toml'), 'utf8'), process.env);
if (warning) console.warn(`\n${warning}\n`);
try {
  await applyMigrations({ remote: true, persistTo: undefined }, false);
} catch (error) {
  exitOnWranglerError(error);
}
process.exit(await wranglerInteractive(['deploy', ...process.argv.slice(2)]));
