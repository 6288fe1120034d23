// One `wrangler dev` for every browser test file (starting one takes longer than most tests),
// with an admin token so /keys exists. Each test makes its own keys and files.
import { randomBytes } from 'node:crypto';
import type { TestProject } from 'vitest/node';
import { type DevServer, startDevServer } from '../e2e/dev-server.ts';
import { CHROMIUM_PATH } from './browser.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    browserOrigin: string;
    browserAdminToken: string;
  }
}

export default async function setup(project: TestProject) {
  let server: DevServer | undefined;
  const adminToken = randomBytes(24).toString('base64url');
  if (CHROMIUM_PATH) server = await startDevServer({ vars: { ADMIN_TOKEN: adminToken } });
  project.provide('browserOrigin', server?.origin ?? '');
  project.provide('browserAdminToken', adminToken);
  return async () => {
    await server?.stop();
  };
}
