// npm run screenshots: runs the browser tests (test/**/*.browser.test.ts) with UPDATE_SCREENSHOTS=1, so they
// write the README's pictures to docs/screenshots/ (otherwise they go to .tmp/screenshots/).
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { ROOT, wranglerEnv } from './wrangler.ts';

const vitest = join(ROOT, 'node_modules/vitest/vitest.mjs');
const result = spawnSync(process.execPath, [vitest, 'run', '--project', 'browser', ...process.argv.slice(2)], {
  cwd: ROOT,
  stdio: 'inherit',
  env: { ...wranglerEnv(), UPDATE_SCREENSHOTS: '1' },
});
process.exit(result.status ?? 1);
