// The scanner client's pure parts: SCANNER's address, and what each of clamd's answers means.
// (Its talk with a real clamd: scanner-client.clamd.test.ts.)
import { describe, expect, it } from 'vitest';
import { ConfigError, getConfig } from '../../src/config';
import { scannerAddress, verdictOf } from '../../src/scanning/scanner-client';

describe('SCANNER', () => {
  it('names clamd by host and port', () => {
    expect(scannerAddress('clamd://127.0.0.1:3310')).toEqual({ hostname: '127.0.0.1', port: 3310 });
    expect(scannerAddress('clamd://clamd.example.net:65535')).toEqual({ hostname: 'clamd.example.net', port: 65_535 });
    expect(scannerAddress(undefined)).toBeNull();
    expect(scannerAddress('clamd://127.0.0.1:0')).toBeNull();
  });

  it('is refused by the configuration unless it is clamd://host:port with a port from 1 to 65535', () => {
    expect(getConfig({ SCANNER: 'clamd://scanner.internal.example:3310' }).SCANNER).toBe(
      'clamd://scanner.internal.example:3310',
    );
    for (const value of [
      'tcp://127.0.0.1:3310',
      'clamd://127.0.0.1',
      'clamd://127.0.0.1:0',
      'clamd://127.0.0.1:70000',
    ]) {
      expect(() => getConfig({ SCANNER: value }), value).toThrow(ConfigError);
    }
  });
});

describe('clamd’s answers', () => {
  it.each([
    ['stream: OK', { status: 'clean' }],
    ['stream: Win.Test.EICAR_HDB-1 FOUND', { status: 'infected', signature: 'Win.Test.EICAR_HDB-1' }],
    [
      'stream: Edgeshare.Test.EICAR.UNOFFICIAL FOUND',
      { status: 'infected', signature: 'Edgeshare.Test.EICAR.UNOFFICIAL' },
    ],
    // AlertExceedsMax: clamd could not read all of it; no malware was found, and it is not clean either.
    ['stream: Heuristics.Limits.Exceeded.MaxFileSize FOUND', { status: 'too_large' }],
    ['INSTREAM size limit exceeded. ERROR', { status: 'too_large' }],
    ['COMMAND READ TIMED OUT', { status: 'error' }],
    ['', { status: 'error' }],
  ])('%j is %j', (reply, verdict) => {
    expect(verdictOf(reply)).toMatchObject(verdict);
  });
});
