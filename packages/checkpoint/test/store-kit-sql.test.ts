import { describe, expect, it } from 'vitest';
import { toBytes } from '../src/store-kit/index.js';

describe('toBytes', () => {
  it('should copy bytes that are a view into a larger buffer, so the driver memory stays its own', () => {
    const pooled = Buffer.from('a small value');
    expect(pooled.byteLength).toBeLessThan(pooled.buffer.byteLength);

    const bytes = toBytes(pooled);
    pooled[0] = 0x7a;

    expect(Buffer.from(bytes).toString()).toBe('a small value');
    expect(Object.getPrototypeOf(bytes)).toBe(Uint8Array.prototype);
  });

  it('should give a plain Uint8Array of a Buffer that owns its whole memory, with the same bytes', () => {
    const whole = Buffer.alloc(5000, 7);
    expect(whole.byteLength).toBe(whole.buffer.byteLength);

    const bytes = toBytes(whole);

    expect(Object.getPrototypeOf(bytes)).toBe(Uint8Array.prototype);
    expect(bytes.byteLength).toBe(5000);
    expect(bytes.every((byte) => byte === 7)).toBe(true);
  });
});
