// Scenario 8 — a sequential multi-instance loop, in memory: one instance whose only activity is a plain
// `bpmn:task` (no handler, no work of its own) looping sequentially over an input collection of 10,000 items.
// What is measured is the loop itself: per item, a body entered with its `item` and `loopCounter`, completed
// and left, and the next one entered. Thresher only (no peer), on its memory repository; the figure is
// passes (bodies) per second, from `start` to `settled` of the one instance.
import { itemsOf, sequentialLoopModel } from '../lib/models.mjs';
import { median } from '../lib/stats.mjs';
import { WARMUP_MS } from '../lib/warmup.mjs';

export const id = '8';
export const title = 'Sequential multi-instance, in memory';

/** Start one instance over `items` and wait for its end. */
async function runLoop(engine, items) {
  const instanceId = await engine.start('loop', { variables: { items } });
  const state = await engine.settled(instanceId);
  if (state.status !== 'completed') throw new Error(`the loop over ${items.length} items ended ${state.status}`);
}

export const tasks = {
  async thresher({ n, warmup, warmupMs, rounds }, { section }) {
    const { Engine, forgetInstances, openStore } = await import('../lib/thresher.mjs');
    const { repository } = await openStore('memory');
    const engine = new Engine({ repository, handlers: {} });
    await engine.deploy(sequentialLoopModel); // compiled once
    const warmItems = itemsOf(warmup);
    // By wall time, as the other scenarios warm up; the memory repository's checkpoints go after each loop.
    const warmStarted = performance.now();
    do {
      await runLoop(engine, warmItems);
      await forgetInstances(repository);
    } while (performance.now() - warmStarted < warmupMs);
    const items = itemsOf(n); // built before the clock starts
    // Several loops, the median kept: one loop of ~0.45 s took 0.63 s in one full run on a noisy machine.
    const times = await section(async () => {
      const taken = [];
      for (let round = 0; round < rounds; round++) {
        if (round > 0) await forgetInstances(repository);
        const started = performance.now();
        await runLoop(engine, items);
        taken.push((performance.now() - started) / 1000);
      }
      return taken;
    });
    await engine.close();
    const seconds = median(times);
    return { n, seconds, passesPerSecond: n / seconds, measuredMs: seconds * 1000 };
  },
};

/** Sizes: the full run loops over 10,000 items three times; the warm-up is shorter loops on the same engine. */
export function plan(quick) {
  return quick
    ? { n: 1000, warmup: 200, warmupMs: 0, rounds: 1 }
    : { n: 10_000, warmup: 1000, warmupMs: WARMUP_MS, rounds: 3 };
}

export async function run(ctx) {
  const options = plan(ctx.quick);
  const { thresher } = await ctx.measure({
    thresher: { scenario: 'sequential-loop', task: 'thresher', options },
  });
  return [
    {
      scenario: title,
      measure: `sequential multi-instance over ${options.n.toLocaleString('en-US')} items, plain bpmn:task body: passes/s`,
      thresher: { value: thresher.passesPerSecond, unit: '/s' },
      target: { text: '≥ 20,000 passes/s', on: 'thresher', holds: (v) => v >= 20_000 },
      note: `one instance, start to settled: ${thresher.seconds.toFixed(2)} s for ${options.n.toLocaleString('en-US')} passes (the median of ${options.rounds} loop${options.rounds === 1 ? '' : 's'} in a child); memory repository; peak RSS of the child ${Math.round(thresher.peakRssBytes / 2 ** 20)} MiB`,
    },
  ];
}
