// `npm run types` and the types check inside `npm run check`, run as package.json runs them, in a
// throwaway copy of the project that holds a developer's local secrets: .dev.vars with
// ADMIN_TOKEN (as the README advises), an .env, and a shell that passes its environment on.
import { spawnSync } from 'node:child_process';
import { appendFileSync, cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const scripts = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).scripts as Record<string, string>;
const TYPES_FILE = 'worker-configuration.d.ts';
let dir: string;

/** A package.json command (`node scripts/… args`), run in the copy with this Node. */
function run(command: string) {
  const [program, ...args] = command.split(' ');
  expect(program).toBe('node');
  return spawnSync(process.execPath, args, {
    cwd: dir,
    encoding: 'utf8',
    env: { ...process.env, CLOUDFLARE_INCLUDE_PROCESS_ENV: 'true', SHELL_ONLY_SECRET: 'from the shell' },
  });
}

const typesCheck = () => {
  const command = scripts.check?.split(' && ').find((part) => part.includes(' types ') && part.includes('--check'));
  expect(command, 'npm run check runs a types check').toBeDefined();
  return run(command ?? '');
};

describe('the generated Env types and local secrets', () => {
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'edgeshare-types-'));
    // The copy's own scripts (they find the project from their own path) and config; the rest shared.
    for (const file of ['package.json', 'wrangler.toml', TYPES_FILE]) cpSync(join(root, file), join(dir, file));
    cpSync(join(root, 'scripts'), join(dir, 'scripts'), { recursive: true });
    for (const shared of ['node_modules', 'src', 'migrations']) symlinkSync(join(root, shared), join(dir, shared));
    writeFileSync(join(dir, '.dev.vars'), 'ADMIN_TOKEN=local-secret-0123456789abcdefghijklmnop\n');
    writeFileSync(join(dir, '.env'), 'DOTENV_SECRET=local\n');
  });
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('npm run check’s types check passes with ADMIN_TOKEN in .dev.vars, a .env and the shell’s environment', () => {
    const result = typesCheck();
    expect(result.status, `${result.stdout}${result.stderr}`).toBe(0);
  });

  it('npm run types leaves the committed file as it is: no local secret’s name gets in', () => {
    const before = readFileSync(join(dir, TYPES_FILE), 'utf8');
    const result = run(scripts.types ?? '');
    expect(result.status, `${result.stdout}${result.stderr}`).toBe(0);
    const after = readFileSync(join(dir, TYPES_FILE), 'utf8');
    expect(after).toBe(before);
    for (const name of ['ADMIN_TOKEN', 'DOTENV_SECRET', 'SHELL_ONLY_SECRET']) expect(after).not.toContain(name);
  });

  it('still fails the check when wrangler.toml gains a binding the committed file lacks', () => {
    appendFileSync(join(dir, 'wrangler.toml'), '\n[[kv_namespaces]]\nbinding = "NEW_CACHE"\nid = "local"\n');
    const result = typesCheck();
    expect(result.status).not.toBe(0);
    expect(`${result.stdout}${result.stderr}`).toContain('out of date');
  });
});
