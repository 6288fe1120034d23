// Copies the vendored browser code the pages need (Swagger UI, for /docs) from node_modules into
// the static assets directory, public/assets/vendor/ (git-ignored): the repository holds no
// minified vendor bundle, and the pages load nothing from a CDN. Runs as wrangler.toml's
// [build] command (so before every `wrangler dev` and `wrangler deploy`, dry runs included) and
// from vitest.config.ts (the worker tests read public/ through the ASSETS binding).
//
// Plain JavaScript on purpose: wrangler runs it with whatever `node` is first on PATH, which may
// be a machine's Node 20 when wrangler is called directly.
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SOURCE = join(ROOT, 'node_modules/swagger-ui-dist');
export const VENDOR_DIR = join(ROOT, 'public/assets/vendor/swagger-ui');
const FILES = ['swagger-ui-bundle.js', 'swagger-ui.css', 'LICENSE', 'NOTICE'];

/** The bundle ends with a source map comment; the map is not copied, so the comment goes too. */
const withoutSourceMap = (text) =>
  text.replace(/\n?\/\/# sourceMappingURL=\S+\s*$/, '\n').replace(/\n?\/\*# sourceMappingURL=[^*\s]+\s*\*\/\s*$/, '\n');

/**
 * Copies the files unless this version is already there (npm gives every installed file the same
 * old mtime, so the version, not the times, says whether a copy is stale). Returns the version;
 * throws when swagger-ui-dist is not installed.
 */
export function copyVendorAssets() {
  const { version } = JSON.parse(readFileSync(join(SOURCE, 'package.json'), 'utf8'));
  const stamp = join(VENDOR_DIR, 'VERSION');
  const wanted = `swagger-ui-dist ${version}\n`;
  const current = existsSync(stamp) ? readFileSync(stamp, 'utf8') : '';
  if (current === wanted && FILES.every((file) => existsSync(join(VENDOR_DIR, file)))) return version;
  mkdirSync(VENDOR_DIR, { recursive: true });
  for (const file of FILES) {
    const from = join(SOURCE, file);
    const to = join(VENDOR_DIR, file);
    if (file.endsWith('.js') || file.endsWith('.css')) writeFileSync(to, withoutSourceMap(readFileSync(from, 'utf8')));
    else copyFileSync(from, to);
  }
  writeFileSync(stamp, wanted);
  return version;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const version = copyVendorAssets();
  console.log(`vendor assets: swagger-ui-dist ${version} in public/assets/vendor/`);
}
