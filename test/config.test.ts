// The configuration's parsing, where a variable's default matters to safety.
import { describe, expect, it } from 'vitest';
import { ConfigError, getConfig } from '../src/config';

describe('ALLOW_LOOPBACK_TARGETS', () => {
  it('is off unless set to true (a deployment never sets it), and refuses anything but true or false', () => {
    expect(getConfig({}).ALLOW_LOOPBACK_TARGETS).toBe(false);
    expect(getConfig({ ALLOW_LOOPBACK_TARGETS: '' }).ALLOW_LOOPBACK_TARGETS).toBe(false);
    expect(getConfig({ ALLOW_LOOPBACK_TARGETS: 'false' }).ALLOW_LOOPBACK_TARGETS).toBe(false);
    expect(getConfig({ ALLOW_LOOPBACK_TARGETS: 'TRUE' }).ALLOW_LOOPBACK_TARGETS).toBe(true);
    expect(() => getConfig({ ALLOW_LOOPBACK_TARGETS: 'yes' })).toThrow(ConfigError);
  });
});
