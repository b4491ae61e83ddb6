import { createMemoryRepository, type Repository, type Variables } from '@thresher/checkpoint';
import type { Handlers, SettledState } from '../api-types.js';
import { Engine } from '../engine.js';
import { KillSwitch } from './kill-switch.js';

/** A process run the harness can repeat: models, a start, deterministic handlers, user-task answers. */
export interface KillScenario {
  name: string;
  models: string[];
  processId: string;
  variables?: Variables;
  handlers: Handlers;
  /** Variables to complete each user task with, by element id. */
  answers?: Record<string, Variables>;
  /** Retries per task when the model does not say; the harness uses no backoff. */
  retries?: number;
}

/** What must be equal after a kill and a resume: generated ids and timestamps are left out. */
export interface EndState {
  status: string;
  variables: Variables;
  /** `scope|element` of every completed element, sorted (a multiset). */
  completed: string[];
  incidents: string[];
}

export interface RunOutcome {
  end: EndState;
  /** Handler calls by `taskType|elementId` (identities embed the instance id, so they differ between runs). */
  calls: Map<string, number>;
  /** Persist points (checkpoint puts and journal writes) the run went through. */
  persistPoints: number;
}

export interface KilledOutcome extends RunOutcome {
  killAt: number;
  /** Calls made after the restore for steps whose results were already durable: must be empty. */
  rerunAfterDurable: string[];
  /** Handler calls by step identity, across both engines. */
  callsByIdentity: Map<string, number>;
  /** Identities whose results were in the journal before the kill. */
  durableIdentities: ReadonlySet<string>;
  /** The repository both engines ran on, to inspect after the run. */
  repository: Repository;
  instanceId: string;
}

function countingHandlers(
  handlers: Handlers,
  calls: Map<string, number>,
  alive: () => boolean,
  after?: Set<string>,
  byIdentity?: Map<string, number>,
): Handlers {
  const out: Handlers = {};
  for (const [type, handler] of Object.entries(handlers)) {
    out[type] = (job) => {
      // A dead engine is a dead process: whatever it would still call never happens.
      if (!alive()) return new Promise(() => {});
      const key = `${type}|${job.elementId}`;
      calls.set(key, (calls.get(key) ?? 0) + 1);
      after?.add(job.idempotencyKey);
      byIdentity?.set(job.idempotencyKey, (byIdentity.get(job.idempotencyKey) ?? 0) + 1);
      return handler(job);
    };
  }
  return out;
}

async function drive(engine: Engine, instanceId: string, answers: Record<string, Variables>): Promise<SettledState> {
  for (;;) {
    const settled = await engine.settled(instanceId);
    if (settled.status !== 'waiting' || settled.incidents.length > 0 || settled.userTasks.length === 0) return settled;
    for (const task of settled.userTasks) await engine.completeUserTask(task.id, answers[task.elementId] ?? {});
  }
}

async function endState(engine: Engine, instanceId: string): Promise<EndState> {
  const view = await engine.instance(instanceId);
  if (!view) throw new Error(`instance ${instanceId} vanished`);
  return {
    status: view.status,
    variables: view.variables,
    completed: view.history.map((entry) => `${entry.scope}|${entry.node}`).sort(),
    incidents: view.incidents.map((incident) => `${incident.nodeId}|${incident.kind}`).sort(),
  };
}

function engineFor(repository: Repository, scenario: KillScenario, handlers: Handlers): Engine {
  return new Engine({ repository, handlers, retries: scenario.retries ?? 3, backoff: () => 0 });
}

async function deployAll(engine: Engine, scenario: KillScenario): Promise<void> {
  for (const xml of scenario.models) await engine.deploy(xml);
}

/** Run a scenario once without interruption, counting its persist points. */
export async function runUninterrupted(scenario: KillScenario): Promise<RunOutcome> {
  const calls = new Map<string, number>();
  const store = new KillSwitch(createMemoryRepository());
  const engine = engineFor(
    store,
    scenario,
    countingHandlers(scenario.handlers, calls, () => true),
  );
  await deployAll(engine, scenario);
  const id = await engine.start(scenario.processId, { variables: scenario.variables ?? {} });
  await drive(engine, id, scenario.answers ?? {});
  const end = await endState(engine, id);
  await engine.close();
  return { end, calls, persistPoints: store.writes };
}

/**
 * Run a scenario, kill it right after its `killAt`-th persist point (the engine is abandoned, no shutdown),
 * build a new engine on the same repository, `recover()`, and drive the instance to its end.
 */
export async function runKilledAt(scenario: KillScenario, killAt: number): Promise<KilledOutcome> {
  const calls = new Map<string, number>();
  const callsByIdentity = new Map<string, number>();
  const repository = createMemoryRepository();
  const store = new KillSwitch(repository, killAt);
  const first = engineFor(
    store,
    scenario,
    countingHandlers(scenario.handlers, calls, () => !store.isDead, undefined, callsByIdentity),
  );
  await deployAll(first, scenario);
  const run = (async () => {
    const id = await first.start(scenario.processId, { variables: scenario.variables ?? {} });
    return drive(first, id, scenario.answers ?? {});
  })();
  const outcome = await Promise.race([run.then(() => 'finished' as const), store.killed.then(() => 'killed' as const)]);
  if (outcome !== 'killed') throw new Error(`${scenario.name}: the run finished before persist point ${killAt}`);

  const rerun = new Set<string>();
  const second = engineFor(
    repository,
    scenario,
    countingHandlers(scenario.handlers, calls, () => true, rerun, callsByIdentity),
  );
  const report = await second.recover();
  if (report.failed.length > 0) throw report.failed[0]!.error;
  const [summary] = await repository.instances();
  if (!summary) throw new Error(`${scenario.name}: no instance was durable at persist point ${killAt}`);
  await drive(second, summary.instanceId, scenario.answers ?? {});
  const end = await endState(second, summary.instanceId);
  await second.close();
  const rerunAfterDurable = [...rerun].filter((identity) => store.durableIdentities.has(identity));
  return {
    end,
    calls,
    persistPoints: store.writes,
    killAt,
    rerunAfterDurable,
    callsByIdentity,
    durableIdentities: store.durableIdentities,
    repository,
    instanceId: summary.instanceId,
  };
}
