// node scripts/wrangler-run.ts ARGS…: the project's wrangler with the offline, quiet environment
// of every other script (no telemetry, no request.cf fetch, no banner). package.json's `types`,
// `check` and `deploy` go through it; `types` reads no local secret (see LOCAL_SECRETS_OFF).
import { LOCAL_SECRETS_OFF, typesArgs, wranglerInteractive } from './wrangler.ts';

const args = process.argv.slice(2);
process.exit(
  await (args[0] === 'types' ? wranglerInteractive(typesArgs(args), LOCAL_SECRETS_OFF) : wranglerInteractive(args)),
);
