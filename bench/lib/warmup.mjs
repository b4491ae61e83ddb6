// Warm-up to the JIT's steady state. V8 optimises a function only after many calls, and an engine calls some of
// its functions once per instance: a cold process runs its first few thousand instances about 2× slower than
// later ones. A warm-up of a fixed count would measure that ramp for the faster engine and not for the slower,
// so every side warms up for the same wall time (and at least a minimum count): the figures are steady state.

/** Warm-up wall time of a full run; `--quick` runs only the minimum count. */
export const WARMUP_MS = 4000;

/**
 * Call `batch(size, offset)` until at least `min` items ran and `ms` passed. Offsets count from 1,000,000 up,
 * so warm-up items never share ids or variables with measured ones.
 */
export async function warmUp(batch, { min, ms, size = 50 }) {
  const started = performance.now();
  let done = 0;
  while (done < min || performance.now() - started < ms) {
    const count = done < min ? Math.min(size, min - done) : size;
    await batch(count, 1_000_000 + done);
    done += count;
  }
  return done;
}
