import { describe, expect, it } from 'vitest';
import { sha256, sha256Of } from '../src/digest.js';

const bytes = (length: number, seed: number) => Uint8Array.from({ length }, (_, i) => (i * 31 + seed) % 251);

describe('sha256Of', () => {
  it('should hash two ranges as their concatenation, each call on its own bytes', () => {
    // a longer pair first, then a shorter one: nothing of the first may count in the second
    for (const [head, tail] of [
      [bytes(3000, 1), bytes(900, 2)],
      [bytes(10, 3), bytes(5, 4)],
      [bytes(0, 5), bytes(7, 6)],
      [bytes(7, 7), bytes(0, 8)],
    ] as const) {
      expect(sha256Of(head, tail)).toBe(sha256(Buffer.concat([head, tail])));
    }
  });

  it('should hash ranges together larger than the buffer kept for joining them', () => {
    const head = bytes(50 * 1024, 9);
    const tail = bytes(30 * 1024, 10);

    expect(sha256Of(head, tail)).toBe(sha256(Buffer.concat([head, tail])));
  });
});
