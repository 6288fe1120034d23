import { describe, expect, it } from 'vitest';
import { originOf } from '../../src/http/request-deps';

describe('originOf', () => {
  it('is what new URL(url).origin says, for every shape of request URL', () => {
    const urls = [
      'http://127.0.0.1:8787/api/v2/files/abc',
      'https://files.example/api/v2/files/abc?x=1',
      'https://FILES.Example:443/api/v2/files',
      'http://files.example:80/',
      'https://user:pass@files.example/share/t',
      'http://files.example?a=/b',
      'http://files.example#frag/x',
      'https://files.example',
      'http://[::1]:8787/health',
    ];
    for (const url of urls) {
      expect(originOf(url), url).toBe(new URL(url).origin);
      // A second look comes from the cache and still agrees.
      expect(originOf(url), url).toBe(new URL(url).origin);
    }
  });
});
