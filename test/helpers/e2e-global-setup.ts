// One `wrangler dev` (with an admin token) for the e2e files that need no vars of their own:
// starting one costs seconds of CPU, more than most of these files' tests. Each file makes its
// own keys and files. webhooks.e2e.test.ts, which needs its own vars, starts its own.
import type { TestProject } from 'vitest/node';
import { shareDevServer } from './dev-server.ts';

export default function setup(project: TestProject) {
  return shareDevServer(project, 'e2eServer');
}
