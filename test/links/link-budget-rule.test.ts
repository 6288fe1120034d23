// The one rule of a capped link's byte budget (src/links/link-counter-contract.ts): what it
// admits, what it still allows (remainingBytes) and when it is spent (status "exhausted").
import { describe, expect, it } from 'vitest';
import { admits, isSpent, remainingBytes } from '../../src/links/link-counter-contract';

describe('a link’s byte budget', () => {
  it('allows max × size less what was served, never below 0; null without a cap', () => {
    expect(remainingBytes({ count: 0, served: 0 }, 3, 100)).toBe(300);
    expect(remainingBytes({ count: 0, served: 299 }, 3, 100)).toBe(1);
    expect(remainingBytes({ count: 3, served: 300 }, 3, 100)).toBe(0);
    // An archive that shrank below what was served.
    expect(remainingBytes({ count: 1, served: 500 }, 1, 200)).toBe(0);
    expect(remainingBytes({ count: 9, served: 9000 }, null, 100)).toBeNull();
  });

  it('is spent exactly when it cannot serve another byte, whatever the downloads counted', () => {
    for (const served of [0, 1, 150, 299]) {
      expect(isSpent({ count: 0, served }, 3, 100), `${served}`).toBe(false);
      expect(admits({ count: 0, served }, 3, 100, 1), `${served}`).toBe(true);
    }
    for (const served of [300, 301, 10_000]) {
      expect(isSpent({ count: 0, served }, 3, 100), `${served}`).toBe(true);
      expect(admits({ count: 0, served }, 3, 100, 1), `${served}`).toBe(false);
    }
    expect(isSpent({ count: 99, served: 0 }, 3, 100)).toBe(false);
    expect(isSpent({ count: 99, served: 1e9 }, null, 100)).toBe(false);
  });

  it('counts downloads for an empty file, whose budget has no bytes', () => {
    expect(remainingBytes({ count: 0, served: 0 }, 2, 0)).toBe(0);
    expect(isSpent({ count: 1, served: 0 }, 2, 0)).toBe(false);
    expect(isSpent({ count: 2, served: 0 }, 2, 0)).toBe(true);
  });
});
