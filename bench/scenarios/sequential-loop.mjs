// Scenario 8 — a sequential multi-instance loop, in memory: one instance whose only activity is a plain
// `bpmn:task` (no handler, no work of its own) looping sequentially over an input collection of 10,000 items.
// What is measured is the loop itself: per item, a body entered with its `item` and `loopCounter`, completed
// and left, and the next one entered. Thresher only (no peer), on its memory repository; the figure is
// passes (bodies) per second, from `start` to `settled` of the one instance.
import { itemsOf, sequentialLoopModel } from '../lib/models.mjs';

export const id = '8';
export const title = 'Sequential multi-instance, in memory';

/** Start one instance over `items` and wait for its end. */
async function runLoop(engine, items) {
  const instanceId = await engine.start('loop', { variables: { items } });
  const state = await engine.settled(instanceId);
  if (state.status !== 'completed') throw new Error(`the loop over ${items.length} items ended ${state.status}`);
}

export const tasks = {
  async thresher({ n, warmup, warmupRounds }, { section }) {
    const { Engine, openStore } = await import('../lib/thresher.mjs');
    const { repository } = await openStore('memory');
    const engine = new Engine({ repository, handlers: {} });
    await engine.deploy(sequentialLoopModel); // compiled once
    for (let i = 0; i < warmupRounds; i++) await runLoop(engine, itemsOf(warmup));
    const items = itemsOf(n); // built before the clock starts
    const seconds = await section(async () => {
      const started = performance.now();
      await runLoop(engine, items);
      return (performance.now() - started) / 1000;
    });
    await engine.close();
    return { n, seconds, passesPerSecond: n / seconds, measuredMs: seconds * 1000 };
  },
};

/** Sizes: the full run loops over 10,000 items; the warm-up is a few shorter loops on the same engine. */
export function plan(quick) {
  return quick ? { n: 1000, warmup: 200, warmupRounds: 2 } : { n: 10_000, warmup: 1000, warmupRounds: 3 };
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
      note: `one instance, start to settled: ${thresher.seconds.toFixed(2)} s for ${options.n.toLocaleString('en-US')} passes; memory repository; peak RSS of the child ${Math.round(thresher.peakRssBytes / 2 ** 20)} MiB`,
    },
  ];
}
