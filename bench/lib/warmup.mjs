import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

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

/**
 * A full garbage collection, twice (the second one frees what the first one's finalizers let go). Works
 * without `--expose-gc` on the command line. Not before a throughput section: code runs at about half speed
 * for a while after it (measured), so the warm-up would be partly undone.
 */
export function collectGarbage() {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc');
  gc();
  gc();
}
