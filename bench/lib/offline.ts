// Imported first by bench/run.ts: the wrangler and Miniflare code the bench runs in this process
// (config reading, Miniflare) sees the same offline settings as the wrangler it spawns.
import { wranglerEnv } from '../../scripts/wrangler.ts';

Object.assign(process.env, wranglerEnv());
