// The abuse round's settings as src/config.ts parses them: the scan modes' defaults, the forms
// ABUSE_CONTACT and SCANNER must have, and the operator's webhook turned off (not the service)
// when its secret is missing or malformed.
// And ALLOW_LOOPBACK_TARGETS, whose default matters to safety.
import { describe, expect, it } from 'vitest';
import { ConfigError, getConfig } from '../src/config';

const SECRET = `whsec_${btoa('an operator secret of 32 bytes..')}`;

describe('abuse settings', () => {
  it('scans file requests’ uploads with gate by default once SCANNER is set, and nothing without it', () => {
    expect(getConfig({})).toMatchObject({ SCAN_MODE: 'off', SCAN_REQUEST_UPLOADS: 'off', SCAN_MAX_BYTES: 104_857_600 });
    expect(getConfig({ SCANNER: 'clamd://clamd.internal:3310' })).toMatchObject({
      SCANNER: 'clamd://clamd.internal:3310',
      SCAN_MODE: 'off',
      SCAN_REQUEST_UPLOADS: 'gate',
    });
    expect(getConfig({ SCANNER: 'clamd://127.0.0.1:3310', SCAN_REQUEST_UPLOADS: 'async' }).SCAN_REQUEST_UPLOADS).toBe(
      'async',
    );
  });

  it('refuses a contact that is no mailto: or https: URL, a scanner that is no clamd://host:port, an unknown mode', () => {
    expect(getConfig({ ABUSE_CONTACT: 'mailto:abuse@example.com' }).ABUSE_CONTACT).toBe('mailto:abuse@example.com');
    expect(getConfig({ ABUSE_CONTACT: 'https://example.com/abuse' }).ABUSE_CONTACT).toBe('https://example.com/abuse');
    for (const bad of [
      { ABUSE_CONTACT: 'javascript:alert(1)' },
      { ABUSE_CONTACT: 'http://example.com' },
      { ABUSE_CONTACT: 'https://example.com/a>b' },
      { SCANNER: 'tcp://127.0.0.1:3310' },
      { SCANNER: 'clamd://127.0.0.1' },
      { SCAN_MODE: 'always' },
      { SCAN_REQUEST_UPLOADS: 'sometimes' },
    ]) {
      expect(() => getConfig(bad), JSON.stringify(bad)).toThrow(ConfigError);
    }
  });

  it('keeps the operator’s webhook only with a well-formed whsec_ secret, and never fails the service over it', () => {
    const url = 'https://ops.example.com/hook';
    expect(getConfig({ OPERATOR_WEBHOOK_URL: url, OPERATOR_WEBHOOK_SECRET: SECRET })).toMatchObject({
      OPERATOR_WEBHOOK_URL: url,
      OPERATOR_WEBHOOK_SECRET: SECRET,
    });
    for (const secret of [undefined, '', 'not-a-secret', 'whsec_short']) {
      const config = getConfig({ OPERATOR_WEBHOOK_URL: url, OPERATOR_WEBHOOK_SECRET: secret });
      expect(config.OPERATOR_WEBHOOK_URL, String(secret)).toBeUndefined();
      expect(config.OPERATOR_WEBHOOK_SECRET).toBeUndefined();
    }
  });
});

describe('ALLOW_LOOPBACK_TARGETS', () => {
  it('is off unless set to true (a deployment never sets it), and refuses anything but true or false', () => {
    expect(getConfig({}).ALLOW_LOOPBACK_TARGETS).toBe(false);
    expect(getConfig({ ALLOW_LOOPBACK_TARGETS: '' }).ALLOW_LOOPBACK_TARGETS).toBe(false);
    expect(getConfig({ ALLOW_LOOPBACK_TARGETS: 'false' }).ALLOW_LOOPBACK_TARGETS).toBe(false);
    expect(getConfig({ ALLOW_LOOPBACK_TARGETS: 'TRUE' }).ALLOW_LOOPBACK_TARGETS).toBe(true);
    expect(() => getConfig({ ALLOW_LOOPBACK_TARGETS: 'yes' })).toThrow(ConfigError);
  });
});
