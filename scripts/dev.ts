// npm run dev: local D1 migrated, a first API key printed if there is none, then `wrangler dev`
// on 127.0.0.1:8787 with local R2, D1 and Durable Objects. Extra arguments go to wrangler dev
// (for example: npm run dev -- --var MAX_FILE_SIZE:1048576).
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { applyMigrations, exitOnWranglerError, ROOT, sql, wranglerInteractive } from './wrangler.ts';

const local = { remote: false, persistTo: undefined };
let count = 0;
try {
  applyMigrations(local);
  count =
    sql<{ count: number }>(local, "SELECT COUNT(*) AS count FROM api_keys WHERE status = 'active'")[0]?.count ?? 0;
} catch (error) {
  exitOnWranglerError(error);
}
if (count === 0) {
  const created = spawnSync(process.execPath, [join(ROOT, 'scripts/keys.ts'), 'create', '--name', 'dev'], {
    encoding: 'utf8',
  });
  const key = created.stdout.trim().split('\n').at(-1);
  console.log(`\nNo API key existed locally, so one was made for you (shown once):\n\n  ${key}\n`);
  console.log(`Try:  curl -H "Authorization: Bearer ${key}" -F file=@README.md http://127.0.0.1:8787/api/v1/upload\n`);
} else {
  console.log('\nMake an API key with:  npm run keys -- create --name NAME   (the key is the last line printed)\n');
}

process.exit(await wranglerInteractive(['dev', '--ip', '127.0.0.1', '--port', '8787', ...process.argv.slice(2)]));
