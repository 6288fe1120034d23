// The pages' one way of writing sizes and times (src/lib/format.ts) for their plain scripts
// (/assets/keys.js, /assets/account-keys.js), which are not bundled: built by scripts/assets.mjs
// to /assets/format.js and loaded before them, it names one global, `edgeshareFormat`.
import { formatBytes, formatDate } from '../lib/format.ts';

(globalThis as { edgeshareFormat?: unknown }).edgeshareFormat = { formatBytes, formatDate };
