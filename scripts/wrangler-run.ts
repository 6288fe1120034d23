// node scripts/wrangler-run.ts ARGS…: the project's wrangler with the offline, quiet environment
// of every other script (no telemetry, no request.cf fetch, no banner). package.json's `types`,
// `check` and `deploy` go through it.
import { wranglerInteractive } from './wrangler.ts';

process.exit(await wranglerInteractive(process.argv.slice(2)));
