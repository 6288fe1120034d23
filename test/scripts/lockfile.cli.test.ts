// The lockfile script on a made-up lockfile: what npm leaves out when its registry lacks other
// platforms' builds, with a second, nested copy of a parent at another version.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const script = join(import.meta.dirname, '..', '..', 'scripts', 'lockfile.ts');
let dir: string;
let lockPath: string;

const platforms = (version: string) => ({
  'tool-darwin-arm64': version,
  'tool-darwin-64': version,
  'tool-linux-arm64': version,
  'tool-linux-x64': version,
  'tool-linux-x64-musl': version,
  'tool-win32-x64-msvc': version,
});

// What npm 11 writes when the registry serves only the Linux glibc builds.
const incomplete = {
  name: 'fixture',
  version: '1.0.0',
  lockfileVersion: 3,
  requires: true,
  packages: {
    '': { name: 'fixture', version: '1.0.0', devDependencies: { other: '2.0.0', tool: '1.0.0' } },
    'node_modules/other': { version: '2.0.0', dev: true, dependencies: { tool: '1.1.0' } },
    'node_modules/other/node_modules/tool': { version: '1.1.0', dev: true, optionalDependencies: platforms('1.1.0') },
    'node_modules/other/node_modules/tool-linux-x64': {
      version: '1.1.0',
      cpu: ['x64'],
      dev: true,
      libc: ['glibc'],
      optional: true,
      os: ['linux'],
    },
    'node_modules/tool': { version: '1.0.0', dev: true, optionalDependencies: platforms('1.0.0') },
    'node_modules/tool-linux-arm64': {
      version: '1.0.0',
      cpu: ['arm64'],
      dev: true,
      optional: true,
      os: ['linux'],
    },
    'node_modules/tool-linux-x64': {
      version: '1.0.0',
      cpu: ['x64'],
      dev: true,
      libc: ['glibc'],
      optional: true,
      os: ['linux'],
    },
  },
};

function run(...args: string[]) {
  return spawnSync(process.execPath, [script, '--lockfile', lockPath, ...args], { encoding: 'utf8' });
}

const packages = () =>
  (JSON.parse(readFileSync(lockPath, 'utf8')) as typeof incomplete).packages as Record<string, Record<string, unknown>>;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'edgeshare-lockfile-'));
  lockPath = join(dir, 'package-lock.json');
  writeFileSync(lockPath, `${JSON.stringify(incomplete, null, 2)}\n`);
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('npm run lockfile', () => {
  it('--check fails naming each missing platform package and its parent', () => {
    const result = run('--check');
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('tool-darwin-arm64@1.0.0 wanted by node_modules/tool (no entry)');
    expect(result.stderr).toContain('tool-win32-x64-msvc@1.1.0 wanted by node_modules/other/node_modules/tool');
    expect(result.stderr).toContain('lacks 9 platform package(s)');
  });

  it('adds every missing entry with its os, cpu and libc, beside its parent', () => {
    execFileSync(process.execPath, [script, '--lockfile', lockPath, '--offline'], { encoding: 'utf8' });
    const lock = packages();
    expect(lock['node_modules/tool-darwin-arm64']).toEqual({
      version: '1.0.0',
      cpu: ['arm64'],
      dev: true,
      optional: true,
      os: ['darwin'],
    });
    expect(lock['node_modules/tool-darwin-64']).toMatchObject({ cpu: ['x64'], os: ['darwin'] });
    expect(lock['node_modules/tool-win32-x64-msvc']).toMatchObject({ version: '1.0.0', cpu: ['x64'], os: ['win32'] });
    expect(lock['node_modules/tool-linux-x64-musl']).toMatchObject({ cpu: ['x64'], libc: ['musl'], os: ['linux'] });
    // The nested copy's builds go where Node finds them from it: under `other`, not at the root.
    expect(lock['node_modules/other/node_modules/tool-darwin-arm64']).toMatchObject({ version: '1.1.0' });
    expect(lock['node_modules/other/node_modules/tool-linux-arm64']).toMatchObject({
      version: '1.1.0',
      os: ['linux'],
      cpu: ['arm64'],
    });
    expect(Object.keys(lock)).toEqual([...Object.keys(lock)].sort((a, b) => a.localeCompare(b, 'en')));
  });

  it('is idempotent, and --check then passes and lists the covered platforms', () => {
    const before = readFileSync(lockPath, 'utf8');
    expect(run('--offline').status).toBe(0);
    expect(readFileSync(lockPath, 'utf8')).toBe(before);
    const result = run('--check');
    expect(result.status).toBe(0);
    expect(result.stdout).toContain(
      'tool@1.1.0 (node_modules/other/node_modules/tool): linux-x64 linux-arm64 darwin-x64 darwin-arm64 win32-x64',
    );
  });

  it('--check fails again when a platform is lost', () => {
    const lock = JSON.parse(readFileSync(lockPath, 'utf8')) as { packages: Record<string, { version?: string }> };
    delete lock.packages['node_modules/tool-darwin-arm64'];
    lock.packages['node_modules/tool-win32-x64-msvc'] = {
      ...lock.packages['node_modules/tool-win32-x64-msvc'],
      version: '0.9.0',
    };
    writeFileSync(lockPath, `${JSON.stringify(lock, null, 2)}\n`);
    const result = run('--check');
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('tool-darwin-arm64@1.0.0 wanted by node_modules/tool (no entry)');
    expect(result.stderr).toContain('(node_modules/tool-win32-x64-msvc is 0.9.0)');
  });
});
