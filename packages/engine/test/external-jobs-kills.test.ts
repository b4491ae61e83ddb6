import { createMemoryRepository, type Repository } from '@thresher/checkpoint';
import { KillSwitch, VirtualClock } from '@thresher/testing';
import { describe, expect, it } from 'vitest';
import { Engine } from '../src/engine.js';
import { bpmn, chain, ext } from './fixtures/bpmn/xml.js';

const LOCK_MS = 60_000;
const BACKOFF_MS = 1_000;

/** Charged (by a worker that fails the first attempt), then shipped: both jobs for workers outside the engine. */
const ORDER = bpmn(`<bpmn:startEvent id="start" />
  <bpmn:serviceTask id="charge">${ext('<zeebe:taskDefinition type="charge" retries="3" />')}</bpmn:serviceTask>
  <bpmn:serviceTask id="ship">${ext('<zeebe:taskDefinition type="ship" />')}</bpmn:serviceTask>
  <bpmn:endEvent id="end" />
  ${chain('start', 'charge', 'ship', 'end')}`);

function engineOn(repository: Repository, clock: VirtualClock): Engine {
  return new Engine({ repository, clock: clock.view(), externalJobs: true, backoff: () => 0 });
}

/**
 * The worker, as a real one runs: it asks for jobs of each type, fails a charge's first attempt with a backoff and
 * completes every other, until the instance has ended. It keeps nothing between rounds, so it goes on after a kill
 * from whatever the store says.
 */
async function work(engine: Engine, clock: VirtualClock, instanceId: string): Promise<void> {
  for (let round = 0; round < 10; round++) {
    if ((await engine.settled(instanceId)).status !== 'waiting') return;
    for (const type of ['charge', 'ship']) {
      for (const job of await engine.activateJobs({ type, worker: 'w', timeout: LOCK_MS, maxJobs: 1 })) {
        if (type === 'charge' && job.attempt === 1) {
          await engine.failJob(job.id, { retries: 2, retryBackOff: BACKOFF_MS, errorMessage: 'card busy' });
        } else {
          await engine.completeJob(job.id, { [`${type}d`]: job.attempt });
        }
      }
    }
    clock.advance(BACKOFF_MS);
  }
  throw new Error(`instance ${instanceId} did not end in 10 rounds`);
}

/** Run the scenario on a store that dies at its `killAt`-th write; after a kill, another engine takes it up. */
async function run(killAt: number) {
  const clock = new VirtualClock();
  const repository = createMemoryRepository();
  const store = new KillSwitch(repository, killAt);
  const first = engineOn(store, clock);
  let instanceId: string | undefined;
  const scenario = (async () => {
    await first.deploy(ORDER);
    instanceId = await first.start('p', { variables: { total: 30 } });
    await work(first, clock, instanceId);
  })();
  const outcome = await Promise.race([
    scenario.then(() => 'done' as const),
    store.killed.then(() => 'killed' as const),
  ]);
  let engine = first;
  if (outcome === 'killed') {
    // The worker's locks die with nothing: they lapse, and the jobs are activated again.
    clock.advance(LOCK_MS);
    engine = engineOn(repository, clock);
    expect((await engine.recover()).failed).toEqual([]);
    if (instanceId === undefined) {
      // Killed before the start was durable, or before it answered: the start is asked again.
      await engine.deploy(ORDER);
      const [stored] = await engine.instances();
      instanceId = stored?.instanceId ?? (await engine.start('p', { variables: { total: 30 } }));
    }
    await work(engine, clock, instanceId);
  }
  const view = await engine.instance(instanceId!);
  await engine.close();
  return { outcome, writes: store.writes, status: view?.status, variables: view?.variables };
}

describe('external jobs killed at every persist point', () => {
  it('should end as the uninterrupted run does when the engine dies at any write, the worker going on by job id', async () => {
    const baseline = await run(Number.POSITIVE_INFINITY);
    expect(baseline).toMatchObject({ outcome: 'done', status: 'completed' });
    expect(baseline.variables).toEqual({ total: 30, charged: 2, shipd: 1 });
    // Puts of each step, each offer, each activation, each withdrawal: every one a point to die at.
    expect(baseline.writes).toBeGreaterThanOrEqual(12);

    for (let killAt = 1; killAt <= baseline.writes; killAt++) {
      const killed = await run(killAt);
      expect({ killAt, outcome: killed.outcome, status: killed.status, variables: killed.variables }).toEqual({
        killAt,
        outcome: 'killed',
        status: 'completed',
        variables: baseline.variables,
      });
    }
  });
});
