// Before each browser test file: the shared wrangler dev may still be starting (the global setup
// does not wait for it, so that other projects' files run meanwhile).
import { CHROMIUM_PATH } from './browser.ts';
import { sharedDevServer } from './dev-server.ts';

if (CHROMIUM_PATH) await sharedDevServer('browserServer');
