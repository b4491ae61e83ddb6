// Scenario 6 — dehydration: N instances parked at a user task by one engine with `dehydrate: true`, on
// SQLite and on PostgreSQL; the engine's RSS once all are parked (after a full GC), for N = 100,000 and
// N = 1,000 in separate processes. Parked instances leave memory, so the two should be close: target the
// 100,000 figure within 1.5× of the 1,000 one. SQLite is opened with synchronous=NORMAL here: what is
// measured is memory, and FULL would only make seeding 100,000 instances slower.
import { parkedModel, thresherHandlers } from '../lib/models.mjs';
import { collectGarbage as fullGc } from '../lib/warmup.mjs';

export const id = '6';
export const title = 'Dehydration';

const BATCH = 500;

export const tasks = {
  async park({ store, n }, { section }) {
    const { Engine, openStore } = await import('../lib/thresher.mjs');
    const opened = await openStore(store, { synchronous: 'NORMAL' });
    try {
      const engine = new Engine({ repository: opened.repository, handlers: thresherHandlers, dehydrate: true });
      await engine.deploy(parkedModel);
      const seconds = await section(async () => {
        const started = performance.now();
        for (let from = 0; from < n; from += BATCH) {
          const count = Math.min(BATCH, n - from);
          const ids = await Promise.all(
            Array.from({ length: count }, (_, i) => engine.start('parked', { variables: { i: from + i } })),
          );
          const states = await Promise.all(ids.map((instanceId) => engine.settled(instanceId)));
          if (states.some((state) => state.status !== 'waiting')) throw new Error('an instance did not park');
        }
        return (performance.now() - started) / 1000;
      });
      // Let the last retirements (queued behind each settle) happen, then measure what stays.
      await new Promise((resolve) => setTimeout(resolve, 200));
      fullGc();
      const rssParkedBytes = process.memoryUsage().rss;
      const heapUsedBytes = process.memoryUsage().heapUsed;
      const running = await opened.repository.instances({ status: 'running', limit: n + 1 });
      if (running.length !== n) throw new Error(`${running.length} running instances stored, wanted ${n}`);
      await engine.close();
      return { n, seconds, instancesPerSecond: n / seconds, rssParkedBytes, heapUsedBytes, measuredMs: seconds * 1000 };
    } finally {
      await opened.repository.close();
      await opened.dispose();
    }
  },
};

export function plan(quick) {
  return quick ? { small: 100, large: 10_000 } : { small: 1_000, large: 100_000 };
}

const mib = (bytes) => `${Math.round(bytes / 2 ** 20)} MiB`;

export async function run(ctx) {
  const { small, large } = plan(ctx.quick);
  const stores = ['sqlite', ...(process.env.THRESHER_PG_URL ? ['postgres'] : [])];
  const rows = [];
  for (const store of stores) {
    const { few, many } = await ctx.measure({
      few: { scenario: 'dehydration', task: 'park', options: { store, n: small } },
      many: { scenario: 'dehydration', task: 'park', options: { store, n: large }, runs: 1 },
    });
    const ratio = many.rssParkedBytes / few.rssParkedBytes;
    rows.push({
      scenario: title,
      measure: `${large.toLocaleString('en-US')} parked instances (${store === 'sqlite' ? 'SQLite' : 'PostgreSQL'}): engine RSS; ratio ÷ RSS with ${small.toLocaleString('en-US')}`,
      thresher: { value: many.rssParkedBytes, unit: 'bytes' },
      ratio,
      target: { text: '≤ 1.5×', holds: (r) => r <= 1.5 },
      note: `RSS ${mib(many.rssParkedBytes)} with ${large.toLocaleString('en-US')} parked (heap ${mib(many.heapUsedBytes)}), ${mib(few.rssParkedBytes)} with ${small.toLocaleString('en-US')} (heap ${mib(few.heapUsedBytes)}), after a full GC; parking ran at ${Math.round(many.instancesPerSecond).toLocaleString('en-US')} instances/s`,
    });
  }
  return rows;
}
