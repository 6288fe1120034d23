// The age module as the browser gets it (esbuild, as scripts/assets.mjs bundles the web app), and
// the keyless part the Worker may import: it must bundle without any cipher or key code.
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

const AGE = fileURLToPath(new URL('../../../src/lib/age/', import.meta.url));

async function bundle(contents: string) {
  const result = await build({
    stdin: { contents, resolveDir: AGE, loader: 'ts' },
    bundle: true,
    platform: 'browser',
    format: 'esm',
    target: ['es2022'],
    minify: true,
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  return { bytes: result.outputFiles[0]?.contents.length ?? 0, inputs: Object.keys(result.metafile.inputs) };
}

describe('the age module bundled for browsers', () => {
  it('bundles whole, with no Node built-in, in under 160 KB (138 KB today, 54 of them age-encryption’s post-quantum identities)', async () => {
    const { bytes, inputs } = await bundle("export * from './index.ts';");
    expect(inputs.some((input) => input.includes('node_modules/age-encryption/'))).toBe(true);
    expect(inputs.filter((input) => input.startsWith('node:'))).toEqual([]);
    expect(bytes).toBeLessThan(160_000);
  });

  it('bundles the Worker’s keyless part (header and length checks) without age-encryption or any cipher', async () => {
    const { inputs } = await bundle(
      "export * from './format.ts'; export * from './length.ts'; export * from './io.ts'; export * from './errors.ts';",
    );
    expect(inputs.filter((input) => /age-encryption|@noble|recipients|stream|meta|identity/.test(input))).toEqual([]);
  });
});
