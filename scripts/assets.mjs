// Makes the pages' generated browser code, all git-ignored: copies the vendored Swagger UI (for
// /docs) from node_modules into public/assets/vendor/, bundles the web app (src/web/, for /)
// with esbuild into public/assets/app.js, and copies the guides (docs/*.md) into
// public/assets/guides/, where the OpenAPI document's tags link to them. The repository holds no minified bundle, and the pages
// load nothing from a CDN. Runs as wrangler.toml's [build] command (so before every
// `wrangler dev` and `wrangler deploy`, dry runs included) and from vitest.config.ts (the worker
// tests read public/ through the ASSETS binding).
//
// Plain JavaScript on purpose: wrangler runs it with whatever `node` is first on PATH, which may
// be a machine's Node 20 when wrangler is called directly.
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSync } from 'esbuild';

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

export const WEB_APP_ENTRY = join(ROOT, 'src/web/app.ts');
export const WEB_APP_BUNDLE = join(ROOT, 'public/assets/app.js');
/** The file request page's script ({site_url}/r/<token>), bundled the same way. */
export const REQUEST_PAGE_ENTRY = join(ROOT, 'src/web/request-page.ts');
export const REQUEST_PAGE_BUNDLE = join(ROOT, 'public/assets/request.js');
/** The Web Worker that encrypts for the web app and the file request page (end-to-end encryption). */
export const E2E_WORKER_ENTRY = join(ROOT, 'src/web/e2e-worker.ts');
export const E2E_WORKER_BUNDLE = join(ROOT, 'public/assets/e2e-worker.js');
/**
 * The share pages' decrypting script (a file's or a collection's page of end-to-end encrypted
 * files, the key from the link's fragment) and their saving Service Worker, which public/_headers
 * lets register with scope /share/ (Service-Worker-Allowed).
 */
export const E2E_SHARE_ENTRY = join(ROOT, 'src/web/e2e-share.ts');
export const E2E_SHARE_BUNDLE = join(ROOT, 'public/assets/e2e-share.js');
export const E2E_SW_ENTRY = join(ROOT, 'src/web/e2e-sw.ts');
export const E2E_SW_BUNDLE = join(ROOT, 'public/assets/e2e-sw.js');

/** The pages' size and time format for their plain scripts (the keys page), as a global. */
export const PAGE_FORMAT_ENTRY = join(ROOT, 'src/web/page-format.ts');
export const PAGE_FORMAT_BUNDLE = join(ROOT, 'public/assets/format.js');

/**
 * Bundles the web app (src/web/app.ts, the typed client and tus-js-client's browser build) into
 * one minified classic script. It is rebuilt every time (esbuild takes a fraction of a second);
 * the file is replaced only when its bytes change, and by a rename, because several
 * `wrangler dev`s (the e2e and browser tests) may build and serve it at the same time. Returns the
 * bundled npm packages.
 */
export function buildWebApp() {
  buildBundle(REQUEST_PAGE_ENTRY, REQUEST_PAGE_BUNDLE, 'file request page');
  buildBundle(E2E_SHARE_ENTRY, E2E_SHARE_BUNDLE, 'share pages’ decryption');
  buildBundle(E2E_SW_ENTRY, E2E_SW_BUNDLE, 'share pages’ saving Service Worker');
  buildBundle(E2E_WORKER_ENTRY, E2E_WORKER_BUNDLE, 'encrypting Web Worker');
  buildBundle(PAGE_FORMAT_ENTRY, PAGE_FORMAT_BUNDLE, 'pages’ size and time format');
  return buildBundle(WEB_APP_ENTRY, WEB_APP_BUNDLE, 'web app');
}

function buildBundle(entry, bundle, title) {
  const result = buildSync({
    entryPoints: [entry],
    bundle: true,
    platform: 'browser',
    format: 'iife',
    target: ['es2022'],
    minify: true,
    legalComments: 'eof',
    metafile: true,
    write: false,
    logLevel: 'warning',
  });
  const packages = bundledPackages(Object.keys(result.metafile.inputs));
  const banner = `/* edgeshare ${title}, bundled from src/web/ by scripts/assets.mjs. Includes ${packages.map((p) => `${p.name} ${p.version} (${p.license})`).join(', ')}. */\n`;
  const code = banner + (result.outputFiles[0]?.text ?? '');
  if (existsSync(bundle) && readFileSync(bundle, 'utf8') === code) return packages;
  const temporary = `${bundle}.${process.pid}.tmp`;
  writeFileSync(temporary, code);
  renameSync(temporary, bundle);
  return packages;
}

/** The npm packages among a bundle's inputs, with their version and licence. */
function bundledPackages(inputs) {
  const names = new Set();
  for (const input of inputs) {
    const match = /(?:^|\/)node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input);
    if (match) names.add(match[1]);
  }
  return [...names].sort().map((name) => {
    const { version, license } = JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8'));
    return { name, version, license };
  });
}

export const GUIDES_DIR = join(ROOT, 'public/assets/guides');

/**
 * Copies the guides (docs/*.md, and the README they link to as ../README.md) where the Worker
 * serves them as static files: /assets/guides/<name>.md. A file is written only when its bytes
 * change, and by a rename (several `wrangler dev`s may build at once). Returns how many. A copy of
 * the project without docs/ (the tests of the build's own scripts make one) has none to copy.
 */
export function copyGuides() {
  if (!existsSync(join(ROOT, 'docs'))) return 0;
  mkdirSync(GUIDES_DIR, { recursive: true });
  const sources = readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => [join(ROOT, 'docs', name), join(GUIDES_DIR, name)]);
  sources.push([join(ROOT, 'README.md'), join(ROOT, 'public/assets/README.md')]);
  for (const [from, to] of sources) {
    const bytes = readFileSync(from);
    if (existsSync(to) && readFileSync(to).equals(bytes)) continue;
    const temporary = `${to}.${process.pid}.tmp`;
    writeFileSync(temporary, bytes);
    renameSync(temporary, to);
  }
  return sources.length;
}

/** Everything the pages need in public/ that the repository does not hold. */
export function buildBrowserAssets() {
  return { swaggerUi: copyVendorAssets(), webApp: buildWebApp(), guides: copyGuides() };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { swaggerUi, webApp, guides } = buildBrowserAssets();
  console.log(`vendor assets: swagger-ui-dist ${swaggerUi} in public/assets/vendor/`);
  console.log(`web app: public/assets/app.js (with ${webApp.map((p) => p.name).join(', ')})`);
  console.log(`guides: ${guides} in public/assets/guides/`);
}
