// One `wrangler dev` for every browser test file (starting one takes longer than most tests),
// with an admin token so /keys exists. Each test makes its own keys and files.
import type { TestProject } from 'vitest/node';
import { CHROMIUM_PATH } from './browser.ts';
import { shareDevServer } from './dev-server.ts';

export default function setup(project: TestProject) {
  return shareDevServer(project, 'browserServer', CHROMIUM_PATH !== undefined);
}
