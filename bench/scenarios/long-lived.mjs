// Scenario 11 — a long-lived instance (issue 55): one instance polling a supplier 10,000 times on SQLite (a
// service task, then an exclusive gateway back to it), each poll one persist point. The figure is how fast its
// late polls go beside its early ones in the same run: persist points per second in polls 9,001–10,000 ÷ in
// polls 1–1,000. A document that grew with the instance's age (every completed element in every checkpoint, as
// before schema 14) made each step cost more than the one before; a flat one keeps the ratio near 1.
import { readFileSync, statSync } from 'node:fs';
import { median } from '../lib/stats.mjs';

export const id = '11';
export const title = 'A long-lived instance: late polls ÷ early ones, SQLite';

const model = readFileSync(new URL('../../fixtures/long-lived/poll.bpmn', import.meta.url), 'utf8');

export const tasks = {
  async thresher({ polls, window, rounds, warmup }, { section }) {
    const { Engine, openStore } = await import('../lib/thresher.mjs');
    const results = await section(async () => {
      const taken = [];
      for (let round = 0; round < rounds; round++) {
        const store = await openStore('sqlite');
        const at = new Array(polls + 1);
        const heads = {};
        const engine = new Engine({
          repository: store.repository,
          handlers: {
            'poll-supplier': async ({ variables, instanceId: polling }) => {
              const poll = Number(variables.polls) + 1;
              if (!variables.measured) return { polls: poll };
              at[poll] = performance.now();
              if (poll === window + 1 || poll === polls) {
                heads[poll] = (await store.repository.get(polling)).bytes.byteLength;
              }
              return { polls: poll };
            },
          },
        });
        await engine.deploy(model);
        // The same loop first, on another instance, so the early window is not the JIT's warm-up.
        const warming = await engine.start('supplier-poll', { variables: { limit: warmup, polls: 0 } });
        await engine.settled(warming);
        const instanceId = await engine.start('supplier-poll', {
          variables: { limit: polls, polls: 0, measured: true },
        });
        const state = await engine.settled(instanceId);
        if (state.status !== 'completed') throw new Error(`the polling loop ended ${state.status}`);
        const end = performance.now();
        await engine.close();
        await store.repository.close();
        const fileBytes = statSync(store.path).size;
        await store.dispose();
        // Poll n's time is when its handler was called; a window's rate is its polls over the time they took.
        const early = window / ((at[window + 1] - at[1]) / 1000);
        const late = window / ((end - at[polls - window + 1]) / 1000);
        taken.push({ early, late, ratio: late / early, heads, fileBytes, seconds: (end - at[1]) / 1000 });
      }
      return taken;
    });
    const pick = (field) => median(results.map((result) => result[field]));
    const { heads, fileBytes } = results[0];
    return {
      polls,
      window,
      earlyPerSecond: pick('early'),
      latePerSecond: pick('late'),
      ratio: pick('ratio'),
      seconds: pick('seconds'),
      headEarly: heads[window + 1],
      headLate: heads[polls],
      bytesPerPoll: fileBytes / polls,
      measuredMs: pick('seconds') * 1000,
    };
  },
};

/**
 * Sizes: 10,000 polls, windows of 1,000, the median of 3 loops in a child, each after a warm-up loop of 2,000 polls
 * on another instance; a quick run polls 2,000.
 */
export function plan(quick) {
  return quick
    ? { polls: 2000, window: 200, rounds: 1, warmup: 500 }
    : { polls: 10_000, window: 1000, rounds: 3, warmup: 2000 };
}

export async function run(ctx) {
  const options = plan(ctx.quick);
  const { thresher } = await ctx.measure({ thresher: { scenario: 'long-lived', task: 'thresher', options } });
  const n = (value) => Math.round(value).toLocaleString('en-US');
  return [
    {
      scenario: title,
      measure: `one instance polling ${n(options.polls)} times: persist points/s in its last ${n(options.window)} polls ÷ in its first ${n(options.window)}`,
      thresher: { value: thresher.ratio, unit: '×' },
      target: { text: '≥ 0.9×', on: 'thresher', holds: (v) => v >= 0.9 },
      note: `first ${n(options.window)} polls ${n(thresher.earlyPerSecond)}/s, last ${n(thresher.latePerSecond)}/s; ${thresher.seconds.toFixed(1)} s for all (the median of ${options.rounds} loop${options.rounds === 1 ? '' : 's'} in a child, each on a fresh file, synchronous FULL, after a warm-up loop of ${n(options.warmup)} polls); head document ${n(thresher.headEarly)} B at poll ${n(options.window + 1)}, ${n(thresher.headLate)} B at poll ${n(options.polls)}; the file ${n(thresher.bytesPerPoll)} B a poll once closed (10 checkpoints kept, the log whole); peak RSS of the child ${Math.round(thresher.peakRssBytes / 2 ** 20)} MiB`,
    },
  ];
}
