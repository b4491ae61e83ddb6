import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Engine } from '@thresher/engine';
import { createPostgresRepository } from '@thresher/store-postgres';
import { VirtualClock } from '@thresher/testing';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type ChildExit, CLI_MAIN, PG_URL, spawnThresher, TestSchemas } from './helpers.js';

/**
 * Worker processes sharing one PostgreSQL schema: instances with service tasks, a timer, a message wait and
 * a call activity, one worker SIGKILLed mid-run and replaced. Every instance completes; every handler that
 * completed ran once per step, except steps in flight at the kill (counted, same idempotency key); no
 * instance was run by two workers at once; no message was lost. Needs a server (THRESHER_PG_URL).
 */
const INSTANCES = 1_000;

const ext = (content: string) => `<bpmn:extensionElements>${content}</bpmn:extensionElements>`;
const task = (id: string) =>
  `<bpmn:serviceTask id="${id}">${ext(`<zeebe:taskDefinition type="${id}" />`)}</bpmn:serviceTask>`;
const flows = (...ids: string[]) =>
  ids
    .slice(1)
    .map((id, i) => `<bpmn:sequenceFlow id="f_${ids[i]}_${id}" sourceRef="${ids[i]}" targetRef="${id}" />`)
    .join('');

const model = `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL"
  xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="workers" targetNamespace="http://bpmn.io/schema/bpmn">
  <bpmn:message id="m_paid" name="paid">${ext('<zeebe:subscription correlationKey="=orderId" />')}</bpmn:message>
  <bpmn:process id="order" isExecutable="true">
    <bpmn:startEvent id="start" />
    <bpmn:intermediateCatchEvent id="settle"><bpmn:timerEventDefinition><bpmn:timeDuration>PT0.5S</bpmn:timeDuration></bpmn:timerEventDefinition></bpmn:intermediateCatchEvent>
    ${task('charge')}
    <bpmn:intermediateCatchEvent id="paid"><bpmn:messageEventDefinition messageRef="m_paid" /></bpmn:intermediateCatchEvent>
    <bpmn:callActivity id="packing">${ext('<zeebe:calledElement processId="pack" propagateAllChildVariables="false" />')}</bpmn:callActivity>
    ${task('ship')}
    <bpmn:endEvent id="end" />
    ${flows('start', 'settle', 'charge', 'paid', 'packing', 'ship', 'end')}
  </bpmn:process>
  <bpmn:process id="pack" isExecutable="true">
    <bpmn:startEvent id="p_start" />${task('box')}<bpmn:endEvent id="p_end" />
    ${flows('p_start', 'box', 'p_end')}
  </bpmn:process>
</bpmn:definitions>`;

// Each call appends `start|done <pid> <instance> <element> <key> <ms>` to the log: what ran, where and when.
const handlers = `import { appendFileSync } from 'node:fs';
const log = (what, job) => appendFileSync(process.env.STEP_LOG,
  [what, process.pid, job.instanceId, job.elementId, job.idempotencyKey, Date.now()].join(' ') + '\\n');
const step = (result) => async (job) => {
  log('start', job);
  await new Promise((resolve) => setTimeout(resolve, 5));
  log('done', job);
  return result;
};
export default { charge: step({ charged: true }), box: step({ boxed: true }), ship: step({ shipped: true }) };
`;

let dir: string;
const children: ChildProcess[] = [];
const schemas = new TestSchemas('thresher_workers');

function worker(
  store: string,
  log: string,
  flags = ['--poll', 'PT0.1S', '--report', 'PT1S', '--lease-ttl', 'PT5S'],
): { child: ChildProcess; exit: Promise<ChildExit>; output: () => string } {
  const args = ['worker', '--store', store, '--handlers', 'handlers.mjs', ...flags];
  const run = spawnThresher(args, { cwd: dir, env: { STEP_LOG: log } });
  children.push(run.child);
  return { child: run.child, exit: run.exit, output: run.stderr };
}

interface Line {
  what: 'start' | 'done';
  pid: string;
  instance: string;
  element: string;
  key: string;
  at: number;
}

function lines(log: string): Line[] {
  if (!existsSync(log)) return [];
  return readFileSync(log, 'utf8')
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [what, pid, instance, element, key, at] = line.split(' ');
      return {
        what: what as Line['what'],
        pid: pid!,
        instance: instance!,
        element: element!,
        key: key!,
        at: Number(at),
      };
    });
}

/** Polls `condition`; a condition, not a timing assertion: the limit only keeps a stuck run from hanging. */
async function waitFor(
  condition: () => Promise<boolean> | boolean,
  what: string,
  seconds = 420,
  progress: () => Promise<string> | string = () => '',
): Promise<void> {
  for (let i = 0; i < seconds * 10; i++) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out waiting for ${what}: ${await progress()}`);
}

beforeAll(() => {
  if (!existsSync(CLI_MAIN))
    throw new Error(`${CLI_MAIN} is missing: run \`pnpm build\` (pnpm test does) before these tests`);
});

afterEach(async () => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
  await schemas.drop();
});

describe('thresher worker processes on one PostgreSQL', () => {
  it.skipIf(PG_URL === undefined)(
    `should complete ${INSTANCES} instances across 3 workers with one SIGKILLed and replaced, each completed step once`,
    async () => {
      dir = mkdtempSync(join(tmpdir(), 'thresher-workers-'));
      writeFileSync(join(dir, 'handlers.mjs'), handlers);
      const log = join(dir, 'steps.log');
      const schema = schemas.name();
      const store = schemas.store(schema);

      // given the instances, started here and parked on their timer, and their messages sent ahead
      const repository = await createPostgresRepository({ connectionString: PG_URL!, schema });
      // On a clock that stands still, so that none of their timers fires here: the workers run them all.
      const starter = new Engine({ repository, clock: new VirtualClock(Date.now()).view() });
      await starter.deploy(model);
      const ids: string[] = [];
      for (let from = 0; from < INSTANCES; from += 100) {
        const batch = Array.from({ length: Math.min(100, INSTANCES - from) }, (_, i) => `O-${from + i}`);
        ids.push(...(await Promise.all(batch.map((orderId) => starter.start('order', { variables: { orderId } })))));
      }
      for (const [i] of ids.entries()) {
        const sent = await starter.correlateMessage('paid', {
          correlationKey: `O-${i}`,
          variables: { paid: i },
          messageId: `paid-${i}`,
          timeToLive: 600_000,
        });
        expect(sent).toMatchObject({ correlated: false, buffered: true });
      }
      await starter.close();

      // when three workers run them, one is SIGKILLed mid-run and a fourth replaces it
      const workers = [worker(store, log), worker(store, log), worker(store, log)];
      await waitFor(
        () => lines(log).filter((line) => line.what === 'done').length >= INSTANCES,
        'a third of the steps',
      );
      const victim = workers[0]!;
      victim.child.kill('SIGKILL');
      const killed = await victim.exit;
      expect(killed.signal).toBe('SIGKILL');
      const replacement = worker(store, log);
      // What a run that does not end left behind, to tell why.
      const stuck = async () => {
        const running = await repository.instances({ status: 'running', limit: 20 });
        const reader = new Engine({ repository });
        const views = await Promise.all(
          running.map(async (row) => {
            const view = await reader.instance(row.instanceId);
            return {
              id: row.instanceId,
              parentId: row.parentId,
              lease: await repository.lease(row.instanceId),
              active: view?.activeElements,
              incidents: view?.incidents,
              calls: view?.calls,
              variables: view?.variables,
            };
          }),
        );
        await reader.close();
        return views;
      };
      const completedCount = async () =>
        (await repository.instances({ status: 'completed', limit: 2 * INSTANCES + 1 })).length;
      await waitFor(
        async () => (await completedCount()) === 2 * INSTANCES,
        'every instance and child to complete',
        420,
        async () =>
          `${await completedCount()} of ${2 * INSTANCES} completed; stuck: ${JSON.stringify(await stuck())}; ${lines(log).length} log lines; the workers said: ${[...workers.slice(1), replacement].map((w) => w.output().split('\n').slice(-3).join(' | ')).join(' || ')}`,
      );
      const survivors = [workers[1]!, workers[2]!, replacement];
      for (const { child } of survivors) child.kill('SIGTERM');
      const exits = await Promise.all(survivors.map(({ exit }) => exit));

      // then the workers stopped cleanly, reporting what they did
      for (const exit of exits) {
        expect(exit.code, exit.stderr).toBe(0);
        expect(exit.stdout).toMatch(/stopped: claimed \d+, completed \d+/);
      }
      // every instance completed with its own message
      const completed = new Set(
        (await repository.instances({ status: 'completed', limit: 2 * INSTANCES + 1 })).map((row) => row.instanceId),
      );
      expect(ids.filter((id) => !completed.has(id))).toEqual([]);
      const reader = new Engine({ repository });
      for (const [i, id] of ids.entries()) {
        if (i % 97 === 0) expect((await reader.instance(id))?.variables).toMatchObject({ orderId: `O-${i}`, paid: i });
      }
      await reader.close();
      // every step that completed ran once; a step run twice was in flight on the killed worker, same key
      const all = lines(log);
      const victimPid = String(victim.child.pid);
      const runs = new Map<string, Line[]>();
      for (const line of all.filter((entry) => entry.what === 'start')) {
        const step = `${line.instance}/${line.element}`;
        runs.set(step, [...(runs.get(step) ?? []), line]);
      }
      expect(runs.size).toBe(3 * INSTANCES);
      let repeated = 0;
      for (const [step, started] of runs) {
        if (started.length === 1) continue;
        repeated++;
        const done = all.filter((line) => line.what === 'done' && `${line.instance}/${line.element}` === step);
        expect({ step, first: started[0]!.pid }).toEqual({ step, first: victimPid });
        expect(new Set(started.map((line) => line.key)).size).toBe(1);
        expect(done.filter((line) => line.pid !== victimPid)).toHaveLength(1);
      }
      expect(repeated).toBeLessThanOrEqual(16); // at most the killed worker's concurrency
      // no instance ran on two workers at once: its handler runs follow one another, start then done, and
      // a run is cut short only on the killed worker (then the same step starts again elsewhere)
      const open = new Map<string, Line>();
      for (const line of all) {
        const running = open.get(line.instance);
        if (line.what === 'start') {
          const cutShort = running?.pid === victimPid && running.element === line.element;
          expect({ line, overlaps: running !== undefined && !cutShort }).toEqual({ line, overlaps: false });
          open.set(line.instance, line);
        } else {
          expect({ line, opened: running?.pid === line.pid && running.key === line.key }).toEqual({
            line,
            opened: true,
          });
          open.delete(line.instance);
        }
      }
      await repository.close();
    },
    900_000,
  );
});

/** start → a moment → slow (a handler that takes a while) → after → end. */
const pausable = `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL"
  xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="pausable-defs" targetNamespace="http://bpmn.io/schema/bpmn">
  <bpmn:process id="pausable" isExecutable="true">
    <bpmn:startEvent id="start" />
    <bpmn:intermediateCatchEvent id="moment"><bpmn:timerEventDefinition><bpmn:timeDuration>PT0.1S</bpmn:timeDuration></bpmn:timerEventDefinition></bpmn:intermediateCatchEvent>
    ${task('slow')}${task('after')}
    <bpmn:endEvent id="end" />
    ${flows('start', 'moment', 'slow', 'after', 'end')}
  </bpmn:process>
</bpmn:definitions>`;

const pausableHandlers = `import { appendFileSync } from 'node:fs';
const log = (what, job) => appendFileSync(process.env.STEP_LOG,
  [what, process.pid, job.instanceId, job.elementId, job.idempotencyKey, Date.now()].join(' ') + '\\n');
export default {
  slow: async (job) => {
    log('start', job);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    log('done', job);
    return { slowBy: process.pid };
  },
  after: async (job) => {
    log('start', job);
    log('done', job);
    return { afterBy: process.pid };
  },
};
`;

describe('a thresher worker paused past its lease', () => {
  it('should have its late writes refused once another worker took over, and perform nothing more', async () => {
    dir = mkdtempSync(join(tmpdir(), 'thresher-paused-'));
    writeFileSync(join(dir, 'handlers.mjs'), pausableHandlers);
    const log = join(dir, 'steps.log');
    const path = join(dir, 'store.db');
    const store = `sqlite:${path}`;
    const { createSqliteRepository } = await import('@thresher/store-sqlite');
    const repository = createSqliteRepository({ path });
    const starter = new Engine({ repository, clock: new VirtualClock(Date.now()).view() });
    await starter.deploy(pausable);
    const id = await starter.start('pausable');
    await starter.close();

    // given worker a inside the slow handler, then paused (SIGSTOP) for longer than its 1 s lease
    const flags = ['--lease-ttl', 'PT1S', '--poll', 'PT0.1S', '--report', 'PT0.5S'];
    const a = worker(store, log, flags);
    await waitFor(() => lines(log).some((line) => line.what === 'start' && line.element === 'slow'), 'a in slow');
    a.child.kill('SIGSTOP');

    // when worker b takes the instance over and finishes it, and a is resumed (SIGCONT)
    const b = worker(store, log, flags);
    const reader = new Engine({ repository });
    await waitFor(async () => (await reader.instance(id))?.status === 'completed', 'b to finish the instance', 60);
    a.child.kill('SIGCONT');
    await waitFor(() => /lost \+1/.test(a.output()), 'a to report the instance lost', 30);
    for (const { child } of [a, b]) child.kill('SIGTERM');
    const [exitA, exitB] = await Promise.all([a.exit, b.exit]);

    // then a did nothing after its lease moved on: b ran the slow step again (it was in flight) and the rest
    const aPid = String(a.child.pid);
    const bPid = String(b.child.pid);
    const steps = lines(log).map(
      (line) => `${line.what} ${line.element} ${line.pid === aPid ? 'a' : line.pid === bPid ? 'b' : line.pid}`,
    );
    expect(steps.filter((step) => step.endsWith(' b'))).toEqual([
      'start slow b',
      'done slow b',
      'start after b',
      'done after b',
    ]);
    expect(steps.filter((step) => step.endsWith(' a'))).toEqual(['start slow a', 'done slow a']);
    expect((await reader.instance(id))?.variables).toEqual({ slowBy: Number(bPid), afterBy: Number(bPid) });
    expect(exitA.code, exitA.stderr).toBe(0);
    expect(exitB.code, exitB.stderr).toBe(0);
    await reader.close();
    await repository.close();
  }, 120_000);
});
