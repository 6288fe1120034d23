// Vitest talks to each test file inside workerd over a WebSocket that Miniflare opens with the `ws`
// package, whose clients offer permessage-deflate, which workerd accepts: every message was
// deflated at one end and inflated at the other, a sixth of the worker project's CPU. Miniflare
// takes no option for it (and has loaded `ws` by the time this runs), so the offer is renamed in
// that `ws`: workerd does not know the name, answers without the extension, and messages go
// uncompressed. Only the tests' plumbing: the Worker itself opens no WebSocket. Nothing changes
// if the packages are laid out differently.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

try {
  const plugin = fileURLToPath(import.meta.resolve('@cloudflare/vitest-plugin'));
  const fromMiniflare = createRequire(createRequire(plugin).resolve('miniflare'));
  // ws exports only its entry; the class is the module beside it that every ws client reads.
  const PerMessageDeflate = fromMiniflare(join(dirname(fromMiniflare.resolve('ws')), 'lib', 'permessage-deflate.js'));
  Object.defineProperty(PerMessageDeflate, 'extensionName', { value: 'x-edgeshare-tests-no-deflate' });
} catch {
  // Another layout of the packages: compressed, as before.
}
