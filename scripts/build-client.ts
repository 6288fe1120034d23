// npm run build:client: the typed client (src/client/edgeshare.ts) as plain JavaScript for Node
// 20+ and bundlers, at dist/client/edgeshare.js (an ES module; tus-js-client stays an import, so
// Node loads its Node build and a bundler its browser build). Types: src/client/edgeshare.ts.

import { fileURLToPath } from 'node:url';
import { buildSync } from 'esbuild';

export const CLIENT_ENTRY = fileURLToPath(new URL('../src/client/edgeshare.ts', import.meta.url));
export const CLIENT_BUNDLE = fileURLToPath(new URL('../dist/client/edgeshare.js', import.meta.url));

export function buildClient(): string {
  buildSync({
    entryPoints: [CLIENT_ENTRY],
    outfile: CLIENT_BUNDLE,
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    target: ['node20', 'es2022'],
    external: ['tus-js-client'],
    banner: { js: '// edgeshare typed client, built from src/client/edgeshare.ts by scripts/build-client.ts.' },
    logLevel: 'warning',
  });
  return CLIENT_BUNDLE;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) console.log(buildClient());
