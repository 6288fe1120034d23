// Without Chromium the browser tests are skipped loudly on a developer's machine, and fail in CI:
// a CI run that skipped them would pass green without having run them.
import { describe, expect, it, vi } from 'vitest';
import { chromiumOrSkip, isCI } from './browser.ts';

describe('the browser tests without Chromium', () => {
  it.each([{ CI: 'true' }, { CI: '1' }, { CI: 'TRUE' }])('fail in CI (%j), saying how to install it', (env) => {
    expect(() => chromiumOrSkip('the web app browser tests', undefined, env)).toThrow(
      /the web app browser tests cannot run, since no Chromium is installed.*apt-get install -y chromium/,
    );
  });

  it.each([{}, { CI: '' }, { CI: 'false' }, { CI: '0' }])('are skipped with a banner outside CI (%j)', (env) => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      expect(chromiumOrSkip('the web app browser tests', undefined, env)).toBe(false);
      expect(warn).toHaveBeenCalledOnce();
      expect(String(warn.mock.calls[0]?.[0])).toContain('SKIPPED: the web app browser tests');
    } finally {
      warn.mockRestore();
    }
  });

  it('run wherever Chromium is installed, in CI or not', () => {
    expect(chromiumOrSkip('the web app browser tests', '/usr/bin/chromium', { CI: 'true' })).toBe(true);
    expect(chromiumOrSkip('the web app browser tests', '/usr/bin/chromium', {})).toBe(true);
    expect(isCI({ CI: 'true' }) && !isCI({})).toBe(true);
  });
});
