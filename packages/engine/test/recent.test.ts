import { describe, expect, it } from 'vitest';
import { Recent } from '../src/common/recent.js';

describe('Recent', () => {
  it('should keep at least the latest `keep` entries however many were set', () => {
    const recent = new Recent<number, string>(100);
    for (let key = 0; key < 1_050; key++) recent.set(key, `v${key}`);

    for (let key = 950; key < 1_050; key++) expect(recent.get(key)).toBe(`v${key}`);
  });

  it('should forget entries more than twice `keep` sets old', () => {
    const recent = new Recent<number, string>(100);
    for (let key = 0; key < 1_050; key++) recent.set(key, `v${key}`);

    for (let key = 0; key < 850; key++) expect(recent.get(key)).toBeUndefined();
  });

  it('should answer the value set last for a key set again, in either generation', () => {
    const recent = new Recent<string, number>(2);
    recent.set('a', 1);
    recent.set('b', 2); // 'a' and 'b' now the older generation
    recent.set('a', 3);

    expect(recent.get('a')).toBe(3);
    expect(recent.get('b')).toBe(2);
    recent.set('c', 4); // the generation holding 'a' = 3 and 'c' becomes the older one; 'b' is dropped
    expect(recent.get('a')).toBe(3);
    expect(recent.get('b')).toBeUndefined();
  });
});
