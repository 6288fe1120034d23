// Without clamd the scanning tests are skipped loudly on a developer's machine, and fail in CI: a
// CI run that skipped them would pass green without having run them.
import { describe, expect, it, vi } from 'vitest';
import { clamdOrSkip } from './clamd-global-setup.ts';

describe('the scanning tests without clamd', () => {
  it.each([{ CI: 'true' }, { CI: '1' }])('fail in CI (%j), saying how to install it', (env) => {
    expect(() => clamdOrSkip(undefined, env)).toThrow(
      /the ClamAV scanning tests cannot run, since clamd is not installed.*apt-get install -y clamav-daemon/,
    );
  });

  it.each([{}, { CI: '' }, { CI: 'false' }, { CI: '0' }])('are skipped with a banner outside CI (%j)', (env) => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      expect(clamdOrSkip(undefined, env)).toBe(false);
      expect(warn).toHaveBeenCalledOnce();
      expect(String(warn.mock.calls[0]?.[0])).toContain('SKIPPED: the ClamAV scanning tests');
    } finally {
      warn.mockRestore();
    }
  });

  it('run wherever clamd is installed, in CI or not', () => {
    expect(clamdOrSkip('/usr/sbin/clamd', { CI: 'true' })).toBe(true);
    expect(clamdOrSkip('/usr/sbin/clamd', {})).toBe(true);
  });
});
