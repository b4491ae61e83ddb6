import { describe, expect, it } from 'vitest';
import { instanceKey, localKey, MAX_LOCAL, namedKey, readKey, resourceKey } from '../src/keys.js';
import { Problem } from '../src/problem.js';

describe('keys', () => {
  it("should key an instance by its serial, and what it made by the engine's number for it", () => {
    expect(instanceKey(1)).toBe('16777216');
    expect(localKey(1, 'j17')).toBe('16777233');
    expect(readKey(instanceKey(42), '$.key')).toEqual({ kind: 'instance', serial: 42, local: 0 });
    expect(readKey(localKey(42, 'u3')!, '$.key')).toEqual({ kind: 'instance', serial: 42, local: 3 });
  });

  it('should keep keys of the largest serials within int64, read back exactly', () => {
    const serial = 2 ** 36 - 1;
    const key = localKey(serial, `j${MAX_LOCAL}`)!;
    expect(BigInt(key) < 2n ** 60n).toBe(true);
    expect(readKey(key, '$.key')).toEqual({ kind: 'instance', serial, local: MAX_LOCAL });
  });

  it('should key a variable by its instance, scope and name, the same every time, apart from numbered keys', () => {
    const key = namedKey(7, '/', 'order');
    expect(BigInt(key) >= 2n ** 60n && BigInt(key) < 2n ** 61n).toBe(true);
    expect(namedKey(7, '/', 'order')).toBe(key);
    expect(new Set([namedKey(8, '/', 'order'), namedKey(7, '/sub', 'order'), namedKey(7, '/', 'total')]).size).toBe(3);
    expect(namedKey(7, '/', 'order')).not.toBe(namedKey(8, '/', 'order'));
    expect(readKey(key, '$.key')).toEqual({ kind: 'named' });
  });

  it('should give no key to an id past what a key numbers, or to one that is not numbered', () => {
    expect(localKey(1, `j${MAX_LOCAL + 1}`)).toBeUndefined();
    expect(localKey(1, 'j0')).toBeUndefined();
    expect(localKey(1, 'approve')).toBeUndefined();
  });

  it("should key a deployed resource by its deployment's digest and its place, apart from every instance key", () => {
    const key = resourceKey('sha256:abc', 1);
    expect(BigInt(key) >= 2n ** 62n && BigInt(key) < 2n ** 63n).toBe(true);
    expect(resourceKey('sha256:abc', 1)).toBe(key);
    expect(resourceKey('sha256:abd', 1)).not.toBe(key);
    const parts = readKey(key, '$.key');
    expect(parts).toMatchObject({ kind: 'resource', index: 1 });
    expect(readKey(resourceKey('sha256:abc', 0), '$.key')).toEqual({ ...parts, index: 0 });
  });

  it('should refuse text that is not a positive int64 with a 400 naming where it was', () => {
    for (const text of ['0', '-1', '1.5', 'abc', '', '01', '9223372036854775808', ' 1']) {
      expect(() => readKey(text, 'path parameter jobKey'), text).toThrow(Problem);
      try {
        readKey(text, 'path parameter jobKey');
      } catch (error) {
        expect((error as Problem).status).toBe(400);
        expect((error as Problem).detail).toMatch(/^path parameter jobKey: /);
      }
    }
    expect(readKey('9223372036854775807', '$')).toMatchObject({ kind: 'resource' });
  });
});
