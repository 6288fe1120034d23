// One `wrangler dev` (with an admin token) for the e2e files that need no vars of their own:
// starting one costs seconds of CPU, more than most of these files' tests. Each file makes its
// own keys and files (a policy of its own: an account's overrides through the admin API). A file
// that needs vars of its own, or the server's state directory to itself, starts its own.
import type { TestProject } from 'vitest/node';
import { shareDevServer } from './dev-server.ts';

export default function setup(project: TestProject) {
  return shareDevServer(project, 'e2eServer');
}
