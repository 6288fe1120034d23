// The layer check inside `npm run check` (scripts/check-layers.ts, .dependency-cruiser.cjs), run as
// package.json runs it, on throwaway copies of src/: as it is, and with imports made to run the wrong
// way. One run over src/ costs ~4 s of CPU, so the violations that do not mix share one copy and one
// run, each case asserting its own is named (a wrong import from a feature to the API assembly makes
// every folder one loop, so it gets a copy of its own).
import { type SpawnSyncReturns, spawnSync } from 'node:child_process';
import { appendFileSync, cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const scripts = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).scripts as Record<string, string>;

function layerCheck(dir: string) {
  const command = scripts.check?.split(' && ').find((part) => part.includes('check-layers'));
  expect(command, 'npm run check runs the layer check').toBeDefined();
  const [, ...args] = (command ?? '').split(' ');
  return spawnSync(process.execPath, [join(root, args[0] ?? '')], { cwd: dir, encoding: 'utf8' });
}

/** A throwaway copy of the project's src/ and the files the layer check reads. */
function copyOfProject(): string {
  const dir = mkdtempSync(join(tmpdir(), 'edgeshare-layers-'));
  for (const file of ['.dependency-cruiser.cjs', 'tsconfig.json', 'worker-configuration.d.ts'])
    cpSync(join(root, file), join(dir, file));
  cpSync(join(root, 'src'), join(dir, 'src'), { recursive: true });
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'));
  return dir;
}

describe('the layer check', () => {
  let dir: string;
  beforeEach(() => {
    dir = copyOfProject();
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  /** Adds a line to a module of the copy. */
  const addLine = (file: string, line: string) => appendFileSync(join(dir, file), `\n${line}\n`);

  it('passes on the project as it is', () => {
    const run = layerCheck(dir);
    expect(run.status, run.stderr).toBe(0);
  });

  it('fails on a feature that imports the API assembly, and on lib/ importing the project', () => {
    addLine('src/webhooks/service.ts', "export { createV2Router as _router } from '../api/v2';");
    addLine('src/lib/format.ts', "export { log as _log } from '../log';");
    const run = layerCheck(dir);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('src/webhooks/service.ts → src/api/v2.ts');
    expect(run.stderr).toContain('lib-is-a-leaf: src/lib/format.ts → src/log.ts');
  });
});

describe('the layer check, on one copy with a wrong import for each other rule', () => {
  let dir: string;
  let run: SpawnSyncReturns<string>;
  /** Adds a line to a module of the copy. */
  const addLine = (file: string, line: string) => appendFileSync(join(dir, file), `\n${line}\n`);

  beforeAll(() => {
    dir = copyOfProject();
    // services-know-no-http, a type import.
    addLine('src/links/service.ts', "import type { AppEnv as _Unused } from '../middleware/auth';");
    // worker-holds-no-keys: the keyed part of lib/age and age-encryption, and (allowed) the keyless part.
    addLine('src/files/upload.ts', "export { makeHeader as _makeHeader } from '../lib/age/index';");
    addLine('src/links/service.ts', "export { Decrypter as _Decrypter } from 'age-encryption';");
    addLine('src/tus/service.ts', "export { checkHeader as _checkHeader } from '../lib/age/format';");
    // A cycle between files; events/ ← files/ already, so events/ → webhooks/ → events/ closes a loop of folders.
    writeFileSync(join(dir, 'src/lib/a-probe.ts'), "import { b } from './b-probe';\nexport const a = () => b;\n");
    writeFileSync(join(dir, 'src/lib/b-probe.ts'), "import { a } from './a-probe';\nexport const b = () => a;\n");
    addLine('src/events/emit.ts', "export type { WebhookRow as _Row } from '../webhooks/records-probe';");
    writeFileSync(
      join(dir, 'src/webhooks/records-probe.ts'),
      "import type { EventsMessage } from '../events/types';\nexport type WebhookRow = EventsMessage;\n",
    );
    run = layerCheck(dir);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('fails on a service that imports middleware, a type import included', () => {
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/services-know-no-http: src\/links\/service\.ts → src\/middleware\/auth\.ts/);
  });

  it('fails on Worker code that imports the keyed part of lib/age or age-encryption, not on its keyless part', () => {
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('worker-holds-no-keys: src/files/upload.ts → src/lib/age/index.ts');
    expect(run.stderr).toMatch(/worker-holds-no-keys: src\/links\/service\.ts → \S*node_modules\/age-encryption\//);
    expect(run.stderr).not.toContain('src/tus/service.ts');
  });

  it('fails on a cycle between files, and on one between folders', () => {
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/no-cycle: src\/lib\/(a|b)-probe\.ts/);
    expect(run.stderr).toMatch(/folder cycle: .*events.*webhooks|folder cycle: .*webhooks.*events/);
  });
});
