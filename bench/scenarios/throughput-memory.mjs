// Scenario 1 — throughput in memory: N sequential instances of start → service task → exclusive gateway
// (condition) → script task → end. Thresher on its memory repository vs bpmn-engine, each model compiled
// once. Each run is a fresh child process: warm-up instances, then N measured ones; peak RSS is the child's.
import { peerServices, peerThroughputModel, thresherHandlers, throughputModel } from '../lib/models.mjs';
import { ratio } from '../lib/stats.mjs';
import { WARMUP_MS, warmUp } from '../lib/warmup.mjs';

export const id = '1';
export const title = 'Throughput, in memory';

export const tasks = {
  async thresher({ n, warmup, warmupMs }, { section }) {
    const { Engine, forgetInstances, openStore, runSequential } = await import('../lib/thresher.mjs');
    const { repository } = await openStore('memory');
    const engine = new Engine({ repository, handlers: thresherHandlers });
    await engine.deploy(throughputModel); // compiled once; every instance reuses it
    // The memory repository keeps every checkpoint: each warm-up batch's are deleted after it, so neither the
    // measured section's collections nor the peak RSS carry them.
    const warmed = await warmUp(
      async (count, offset) => {
        await runSequential(engine, 'bench', count, offset);
        await forgetInstances(repository);
      },
      { min: warmup, ms: warmupMs },
    );
    const seconds = await section(async () => {
      const started = performance.now();
      await runSequential(engine, 'bench', n);
      return (performance.now() - started) / 1000;
    });
    await engine.close();
    return { n, instancesPerSecond: n / seconds, measuredMs: seconds * 1000, warmed };
  },

  async peer({ n, warmup, warmupMs }, { section }) {
    const { compilePeer, peerVersion, runPeerSequential } = await import('../lib/peer.mjs');
    const sourceContext = await compilePeer(peerThroughputModel); // parsed once; every engine reuses it
    const warmed = await warmUp((count, offset) => runPeerSequential(sourceContext, peerServices, count, offset), {
      min: warmup,
      ms: warmupMs,
    });
    const seconds = await section(async () => {
      const started = performance.now();
      await runPeerSequential(sourceContext, peerServices, n);
      return (performance.now() - started) / 1000;
    });
    return { n, instancesPerSecond: n / seconds, measuredMs: seconds * 1000, peerVersion, warmed };
  },
};

/** Sizes: the full run compares at 2,000 sequential instances (the RSS target names that figure). */
export function plan(quick) {
  return quick ? { n: 150, warmup: 20, warmupMs: 0 } : { n: 2000, warmup: 200, warmupMs: WARMUP_MS };
}

export async function run(ctx) {
  const { n, warmup, warmupMs } = plan(ctx.quick);
  const { thresher, peer } = await ctx.measure({
    thresher: { scenario: 'throughput-memory', task: 'thresher', options: { n, warmup, warmupMs } },
    peer: { scenario: 'throughput-memory', task: 'peer', options: { n, warmup, warmupMs }, side: 'peer' },
  });
  ctx.shared.peerVersion = peer.peerVersion;
  ctx.shared.peerInMemory = { n, instancesPerSecond: peer.instancesPerSecond, peakRssBytes: peer.peakRssBytes };
  // What recover() is judged beside (scenario 10): Thresher's own instances/s in memory, in the same run.
  ctx.shared.thresherInMemory = { instancesPerSecond: thresher.instancesPerSecond };
  const peerName = `bpmn-engine ${peer.peerVersion}`;
  return [
    {
      scenario: title,
      measure: `instances/s, ${n.toLocaleString('en-US')} sequential`,
      thresher: { value: thresher.instancesPerSecond, unit: '/s' },
      peer: { value: peer.instancesPerSecond, unit: '/s', what: peerName },
      ratio: ratio(thresher.instancesPerSecond, peer.instancesPerSecond),
      target: { text: '≥ 40×', holds: (r) => r >= 40 },
    },
    {
      scenario: title,
      measure: `peak RSS, ${n.toLocaleString('en-US')} sequential`,
      thresher: { value: thresher.peakRssBytes, unit: 'bytes' },
      peer: { value: peer.peakRssBytes, unit: 'bytes', what: peerName },
      ratio: ratio(thresher.peakRssBytes, peer.peakRssBytes),
      note: 'peak RSS of the measuring child process (ru_maxrss); Thresher keeps every checkpoint in its memory repository',
    },
  ];
}
