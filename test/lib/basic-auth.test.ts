import { describe, expect, it } from 'vitest';
import { basicPassword, parseBasicAuth } from '../../src/lib/basic-auth';

const utf8Base64 = (text: string) => btoa(String.fromCharCode(...new TextEncoder().encode(text)));

describe('parseBasicAuth', () => {
  it('reads the user id and the password (which may hold colons)', () => {
    expect(parseBasicAuth(`Basic ${btoa('ana:pass:word')}`)).toEqual({ user: 'ana', password: 'pass:word' });
    expect(basicPassword(`basic ${btoa(':secret')}`)).toBe('secret');
  });

  it('reads UTF-8 credentials as UTF-8 and anything else as Latin-1', () => {
    expect(basicPassword(`Basic ${utf8Base64(':pässwörd €')}`)).toBe('pässwörd €');
    expect(basicPassword(`Basic ${btoa(':pässwörd')}`)).toBe('pässwörd');
  });

  it('is undefined for what is not Basic credentials', () => {
    for (const header of [undefined, '', 'Bearer abc', 'Basic', 'Basic !!!', `Basic ${btoa('no-colon')}`]) {
      expect(parseBasicAuth(header)).toBeUndefined();
    }
  });
});
