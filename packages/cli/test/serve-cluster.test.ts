import { afterEach, describe, expect, it } from 'vitest';
import { deployAndCreate, PG_URL, postJson, serveOn, type spawnThresher, TestSchemas, Workspace } from './helpers.js';

/**
 * Two `thresher serve` processes on one PostgreSQL store, three job workers spread over them talking Camunda's REST
 * API, one server SIGKILLed midway: every job of every instance is completed exactly once, none is lost.
 */
const NO_SERVER = PG_URL === undefined ? ' (skipped: THRESHER_PG_URL is not set, so there is no server)' : '';

const INSTANCES = 2_000;

const TWO_JOBS = `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="defs-two" targetNamespace="t">
  <bpmn:process id="two-jobs" isExecutable="true">
    <bpmn:startEvent id="s" />
    <bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="first" />
    <bpmn:serviceTask id="first"><bpmn:extensionElements><zeebe:taskDefinition type="first" /></bpmn:extensionElements></bpmn:serviceTask>
    <bpmn:sequenceFlow id="f2" sourceRef="first" targetRef="second" />
    <bpmn:serviceTask id="second"><bpmn:extensionElements><zeebe:taskDefinition type="second" /></bpmn:extensionElements></bpmn:serviceTask>
    <bpmn:sequenceFlow id="f3" sourceRef="second" targetRef="e" />
    <bpmn:endEvent id="e" />
  </bpmn:process>
</bpmn:definitions>`;

const workspace = new Workspace();
const schemas = new TestSchemas('thresher_cluster');
const servers: Array<ReturnType<typeof spawnThresher>> = [];
afterEach(async () => {
  for (const server of servers.splice(0)) server.child.kill('SIGKILL');
  await schemas.drop();
});

const serve = (store: string) => serveOn(workspace, store, servers);
const post = postJson;

/** What the workers saw: per job key, when it was handed out and how many completions the API took (204). */
interface Tally {
  activated: Map<string, number[]>;
  completed: Map<string, number>;
  /** Completions sent to a server killed before it answered: done or not, as far as the worker knows. */
  unanswered: Set<string>;
}

/** The lock a worker asks for, in ms: no job may be handed out again before it ends. */
const LOCK_MS = 10_000;

/** A worker polling `urls()` in turn (the next one when a server is gone) for jobs of both types, completing each. */
async function worker(name: string, urls: () => string[], tally: Tally, done: () => boolean): Promise<void> {
  let at = 0;
  while (!done()) {
    const live = urls();
    const url = live[at % live.length]!;
    try {
      for (const type of ['first', 'second']) {
        const response = await post(`${url}/jobs/activation`, {
          type,
          worker: name,
          timeout: LOCK_MS,
          maxJobsToActivate: 32,
          requestTimeout: 200,
        });
        const { jobs } = (await response.json()) as { jobs: { jobKey: string }[] };
        const at = Date.now();
        for (const job of jobs) tally.activated.set(job.jobKey, [...(tally.activated.get(job.jobKey) ?? []), at]);
        for (const job of jobs) {
          let completion: Response;
          try {
            completion = await post(`${url}/jobs/${job.jobKey}/completion`, {});
          } catch (error) {
            tally.unanswered.add(job.jobKey);
            throw error;
          }
          if (completion.status === 204) tally.completed.set(job.jobKey, (tally.completed.get(job.jobKey) ?? 0) + 1);
        }
      }
    } catch {
      at += 1; // the server went away mid-request: the lock of what it handed out expires, another hands it out
    }
  }
}

describe('two thresher serve processes on one PostgreSQL', () => {
  it.skipIf(PG_URL === undefined)(
    `should complete every job of ${INSTANCES} instances exactly once through three workers, one server SIGKILLed midway${NO_SERVER}`,
    { timeout: 240_000 },
    async () => {
      const store = schemas.store();
      const a = await serve(store);
      const b = await serve(store);
      const keys = await deployAndCreate([a.url, b.url], TWO_JOBS, 'two-jobs', INSTANCES);

      const tally: Tally = { activated: new Map(), completed: new Map(), unanswered: new Set() };
      let bAlive = true;
      const all = () => (bAlive ? [a.url, b.url] : [a.url]);
      let finished = false;
      const workers = [
        worker(
          'w1',
          () => [a.url],
          tally,
          () => finished,
        ),
        worker(
          'w2',
          () => (bAlive ? [b.url] : [a.url]),
          tally,
          () => finished,
        ),
        worker('w3', all, tally, () => finished),
      ];
      try {
        // B goes down once a quarter of the jobs are done, with work of its own in hand.
        while (tally.completed.size < INSTANCES / 2) await new Promise((resolve) => setTimeout(resolve, 20));
        b.child.kill('SIGKILL');
        bAlive = false;
        await b.exit;

        // Until every job is completed as far as the workers know (or was sent to the killed server, unanswered).
        const deadline = Date.now() + 180_000;
        const settled = () => new Set([...tally.completed.keys(), ...tally.unanswered]).size >= INSTANCES * 2;
        while (!settled() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
        expect(settled()).toBe(true);
        expect([...tally.completed.values()].every((times) => times === 1)).toBe(true);
        // A job handed out again (its worker's server was killed) only once its lock had run out.
        const early = [...tally.activated].filter(([, times]) =>
          times.some((t, i) => i > 0 && t - times[i - 1]! < LOCK_MS - 200),
        );
        expect(early).toEqual([]);
        // Every instance completed, as the store has it (a read by key is never behind); an unanswered completion
        // that never landed is handed out again once its lock ran out, so the workers go on until then.
        const states = new Map<string, string>();
        const read = async (pending: string[]) => {
          for (let key = pending.pop(); key !== undefined; key = pending.pop()) {
            const response = await fetch(`${a.url}/process-instances/${key}`);
            states.set(key, ((await response.json()) as { state: string }).state);
          }
        };
        let open = [...keys];
        for (let round = 0; open.length > 0 && round < 10; round++) {
          if (round > 0) await new Promise((resolve) => setTimeout(resolve, LOCK_MS / 4));
          const pending = [...open];
          await Promise.all(Array.from({ length: 16 }, () => read(pending)));
          open = open.filter((key) => states.get(key) !== 'COMPLETED');
        }
        expect(states.size).toBe(INSTANCES);
        expect(open).toEqual([]);
      } finally {
        finished = true;
        await Promise.all(workers);
      }
    },
  );
});
