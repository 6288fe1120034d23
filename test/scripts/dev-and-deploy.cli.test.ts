// npm run dev's arguments to wrangler dev, and npm run deploy's warning about link origins.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { devArgs, optionValue } from '../../scripts/dev-args.ts';
import { linkOriginWarning, tomlVar } from '../../scripts/link-origins.ts';

const root = join(import.meta.dirname, '..', '..');

describe('npm run dev', () => {
  it('passes 127.0.0.1:8787 and allows loopback targets when the user gives neither --ip nor --port', () => {
    expect(devArgs([])).toEqual({
      args: ['dev', '--ip', '127.0.0.1', '--port', '8787', '--var', 'ALLOW_LOOPBACK_TARGETS:true'],
      host: '127.0.0.1',
      port: '8787',
    });
  });

  it.each([
    [
      ['--port', '9000'],
      ['dev', '--ip', '127.0.0.1', '--var', 'ALLOW_LOOPBACK_TARGETS:true', '--port', '9000'],
      'http://127.0.0.1:9000',
    ],
    [
      ['--port=9001'],
      ['dev', '--ip', '127.0.0.1', '--var', 'ALLOW_LOOPBACK_TARGETS:true', '--port=9001'],
      'http://127.0.0.1:9001',
    ],
    [
      ['--ip', '0.0.0.0'],
      ['dev', '--port', '8787', '--var', 'ALLOW_LOOPBACK_TARGETS:true', '--ip', '0.0.0.0'],
      'http://127.0.0.1:8787',
    ],
    [
      ['--ip=::1', '--port', '9002'],
      ['dev', '--var', 'ALLOW_LOOPBACK_TARGETS:true', '--ip=::1', '--port', '9002'],
      'http://[::1]:9002',
    ],
    [
      ['--var', 'MAX_FILE_SIZE:10', '--port', '9003'],
      [
        'dev',
        '--ip',
        '127.0.0.1',
        '--var',
        'ALLOW_LOOPBACK_TARGETS:true',
        '--var',
        'MAX_FILE_SIZE:10',
        '--port',
        '9003',
      ],
      'http://127.0.0.1:9003',
    ],
    [
      // The user's own choice wins: no loopback targets even in development.
      ['--var', 'ALLOW_LOOPBACK_TARGETS:false'],
      ['dev', '--ip', '127.0.0.1', '--port', '8787', '--var', 'ALLOW_LOOPBACK_TARGETS:false'],
      'http://127.0.0.1:8787',
    ],
    [
      ['--var=ALLOW_LOOPBACK_TARGETS:false'],
      ['dev', '--ip', '127.0.0.1', '--port', '8787', '--var=ALLOW_LOOPBACK_TARGETS:false'],
      'http://127.0.0.1:8787',
    ],
  ])('gives wrangler %j once each, and the hint the real address', (user, args, base) => {
    const result = devArgs(user);
    expect(result.args).toEqual(args);
    expect(`http://${result.host}:${result.port}`).toBe(base);
    expect(result.args.filter((arg) => arg.startsWith('--port')).length).toBe(1);
    expect(result.args.filter((arg) => arg.startsWith('--ip')).length).toBe(1);
  });

  it('migrates and makes the first key in the state wrangler dev uses (--persist-to DIR)', () => {
    expect(devArgs(['--persist-to', '/tmp/state', '--port', '9004'])).toMatchObject({
      args: [
        'dev',
        '--ip',
        '127.0.0.1',
        '--var',
        'ALLOW_LOOPBACK_TARGETS:true',
        '--persist-to',
        '/tmp/state',
        '--port',
        '9004',
      ],
      persistTo: '/tmp/state',
    });
    expect(devArgs(['--persist-to=/tmp/other']).persistTo).toBe('/tmp/other');
    expect(devArgs([]).persistTo).toBeUndefined();
  });

  it('reads options in both spellings', () => {
    expect(optionValue(['--port', '1'], 'port')).toBe('1');
    expect(optionValue(['--port=2'], 'port')).toBe('2');
    expect(optionValue(['--portal', '3'], 'port')).toBeUndefined();
  });
});

describe('npm run deploy', () => {
  it('deploys with loopback targets off: wrangler.toml never sets ALLOW_LOOPBACK_TARGETS true', () => {
    const toml = readFileSync(join(root, 'wrangler.toml'), 'utf8');
    expect(tomlVar(toml, 'ALLOW_LOOPBACK_TARGETS')).toBe('false');
  });

  it('warns that links come from the Host header while SITE_URL and PUBLIC_BASE_URL are unset', () => {
    const toml = readFileSync(join(root, 'wrangler.toml'), 'utf8');
    const warning = linkOriginWarning(toml, {});
    expect(warning).toMatch(/SITE_URL and PUBLIC_BASE_URL are not set/);
    expect(warning).toMatch(/Host header/);
    expect(package_().scripts.deploy).toBe('node scripts/deploy.ts');
  });

  it('says nothing once both are set, in wrangler.toml or the environment, and names the one missing', () => {
    const toml = '[vars]\nSITE_URL = "https://share.example"\nPUBLIC_BASE_URL = "https://api.example"\n';
    expect(tomlVar(toml, 'SITE_URL')).toBe('https://share.example');
    expect(linkOriginWarning(toml)).toBeUndefined();
    expect(linkOriginWarning('[vars]\nSITE_URL = ""\n', { SITE_URL: 'https://a', PUBLIC_BASE_URL: 'https://b' })).toBe(
      undefined,
    );
    expect(linkOriginWarning('[vars]\nSITE_URL = "https://a"\n')).toMatch(/PUBLIC_BASE_URL is not set/);
    // A value under another table is not a var.
    expect(tomlVar('[env.x.vars]\nSITE_URL = "https://a"\n', 'SITE_URL')).toBe('');
  });
});

describe('npm run types and npm run check', () => {
  it('run wrangler through the script that sets the offline, quiet environment', () => {
    const { scripts } = package_();
    expect(scripts.types).toMatch(/^node scripts\/wrangler-run\.ts types /);
    expect(scripts.check).not.toMatch(/(^|&& )wrangler /);
    expect(scripts.deploy).not.toMatch(/(^|&& )wrangler /);
  });
});

function package_(): { scripts: Record<string, string> } {
  return JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
}
