// Scenario 9 — workers: N instances (a moment's timer, then two service tasks) are seeded on a fresh
// PostgreSQL schema by an engine on a clock that stands still (so none runs there), then K `thresher worker`
// processes run them all. Figure: instances/s for K = 1, 2 and 3 in one run, measured while all K work: from
// 20% to 80% of the instances completed (a worker's start-up, ~0.9 s of CPU on 2 cores, and the tail,
// where some workers have nothing left, are outside it; the whole run's rate is in the note). The ratios to
// K = 1 are the point. This machine has 2 cores, so a third worker process competes with the others (and with
// PostgreSQL) for CPU: on more cores each worker adds its own.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const id = '9';
export const title = 'Workers';

const CLI = fileURLToPath(new URL('../../packages/cli/dist/main.js', import.meta.url));

const task = (id) =>
  `<bpmn:serviceTask id="${id}"><bpmn:extensionElements><zeebe:taskDefinition type="work" /></bpmn:extensionElements></bpmn:serviceTask>`;
const model = `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL"
  xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="bench-workers" targetNamespace="http://bpmn.io/schema/bpmn">
  <bpmn:process id="workers" isExecutable="true">
    <bpmn:startEvent id="start" />
    <bpmn:intermediateCatchEvent id="moment"><bpmn:timerEventDefinition><bpmn:timeDuration>PT0.1S</bpmn:timeDuration></bpmn:timerEventDefinition></bpmn:intermediateCatchEvent>
    ${task('a')}${task('b')}
    <bpmn:endEvent id="end" />
    <bpmn:sequenceFlow id="f1" sourceRef="start" targetRef="moment" />
    <bpmn:sequenceFlow id="f2" sourceRef="moment" targetRef="a" />
    <bpmn:sequenceFlow id="f3" sourceRef="a" targetRef="b" />
    <bpmn:sequenceFlow id="f4" sourceRef="b" targetRef="end" />
  </bpmn:process>
</bpmn:definitions>`;
const handlers = 'export default { work: (job) => ({ [job.elementId]: true }) };\n';

export const tasks = {
  async run({ workers, n }) {
    const { Engine, openStore } = await import('../lib/thresher.mjs');
    const { VirtualClock } = await import('@thresher/testing');
    const { default: pg } = await import('pg');
    const opened = await openStore('postgres');
    const dir = mkdtempSync(join(process.env.BENCH_TMPDIR ?? tmpdir(), 'thresher-bench-workers-'));
    const children = [];
    try {
      writeFileSync(join(dir, 'handlers.mjs'), handlers);
      const seeder = new Engine({ repository: opened.repository, clock: new VirtualClock(Date.now()).view() });
      await seeder.deploy(model);
      for (let from = 0; from < n; from += 500) {
        const count = Math.min(500, n - from);
        await Promise.all(Array.from({ length: count }, () => seeder.start('workers')));
      }
      await seeder.close();
      const url = new URL(process.env.THRESHER_PG_URL);
      url.searchParams.set('schema', opened.schema);
      const started = performance.now();
      for (let i = 0; i < workers; i++) {
        const args = [CLI, 'worker', '--store', url.toString(), '--handlers', 'handlers.mjs', '--poll', 'PT0.05S'];
        children.push(spawn(process.execPath, [...args, '--concurrency', '32'], { cwd: dir, stdio: 'ignore' }));
      }
      // A count on the server, not the store's summaries: reading up to n summaries 20 times a second was load
      // of the bench's own on the two cores the workers share.
      const counter = new pg.Client({ connectionString: process.env.THRESHER_PG_URL });
      await counter.connect();
      const counts = [];
      let window;
      try {
        const count = `SELECT count(*)::int AS done FROM "${opened.schema}".instances WHERE status = 'completed'`;
        for (;;) {
          const done = (await counter.query(count)).rows[0].done;
          counts.push({ at: performance.now(), done, cpu: machineCpu() });
          if (done >= n) break;
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        window = steadyWindow(counts, n);
      } finally {
        await counter.end();
      }
      const seconds = (performance.now() - started) / 1000;
      return {
        workers,
        n,
        seconds,
        wholeRunPerSecond: n / seconds,
        instancesPerSecond: window.perSecond,
        windowSeconds: window.seconds,
        measuredMs: seconds * 1000,
        busy: busyShare(window.from.cpu, window.to.cpu),
      };
    } finally {
      for (const child of children) child.kill('SIGTERM');
      await Promise.all(children.map((child) => new Promise((resolve) => child.once('exit', resolve))));
      rmSync(dir, { recursive: true, force: true });
      await opened.repository.close();
      await opened.dispose();
    }
  },
};

/**
 * The completions from the first count at or past 20% of n to the first at or past 80%: the rate while every
 * worker is at work. Counts come every 50 ms, so the window is its counts' own times, not 20% and 80% exactly.
 */
function steadyWindow(counts, n) {
  const first = (share) => counts.find(({ done }) => done >= share * n);
  const from = first(0.2);
  const to = first(0.8);
  if (to.at === from.at) throw new Error('the run was too short to measure a rate between 20% and 80% of it');
  const seconds = (to.at - from.at) / 1000;
  return { from, to, seconds, perSecond: (to.done - from.done) / seconds };
}

/** The machine's CPU counters (jiffies: busy and all), or null where /proc/stat is not there (not Linux). */
function machineCpu() {
  try {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    const all = fields.reduce((sum, value) => sum + value, 0);
    // idle and iowait are the time no core worked
    return { busy: all - fields[3] - (fields[4] ?? 0), all };
  } catch {
    return null;
  }
}

/** The share of the machine's cores that were busy between two readings of {@link machineCpu}. */
function busyShare(before, after) {
  if (before === null || after === null || after.all === before.all) return null;
  return (after.busy - before.busy) / (after.all - before.all);
}

export function plan(quick) {
  return { n: quick ? 300 : 6_000 };
}

export async function run(ctx) {
  if (!process.env.THRESHER_PG_URL) {
    return [
      {
        scenario: title,
        measure: 'instances/s with 1, 2 and 3 workers on PostgreSQL',
        thresher: { text: 'not measured: THRESHER_PG_URL is not set' },
        status: 'n/a',
      },
    ];
  }
  const { n } = plan(ctx.quick);
  const { one, two, three } = await ctx.measure({
    one: { scenario: 'workers', task: 'run', options: { workers: 1, n }, runs: 1 },
    two: { scenario: 'workers', task: 'run', options: { workers: 2, n }, runs: 1 },
    three: { scenario: 'workers', task: 'run', options: { workers: 3, n }, runs: 1 },
  });
  const busy = (result) =>
    result.busy === null ? '' : `, the machine's cores ${Math.round(result.busy * 100)}% busy meanwhile`;
  const row = (result, k) => ({
    scenario: title,
    measure: `${n.toLocaleString('en-US')} instances (timer, 2 service tasks) on PostgreSQL by ${k} worker process${k === 1 ? '' : 'es'}: instances/s while all work; ratio ÷ 1 worker`,
    thresher: { value: result.instancesPerSecond, unit: '/s' },
    ratio: result.instancesPerSecond / one.instancesPerSecond,
    note: `from 20% to 80% of the instances completed (${result.windowSeconds.toFixed(2)} s)${busy(result)}; the whole run, worker start-up and tail included: ${result.seconds.toFixed(2)} s, ${Math.round(result.wholeRunPerSecond)}/s`,
  });
  const cores = availableParallelism();
  return [
    row(one, 1),
    row(two, 2),
    {
      ...row(three, 3),
      target: { text: '≥ 1.5×', holds: (r) => r >= 1.5 },
      note: `${row(three, 3).note}; the whole run's ratio ${(three.wholeRunPerSecond / one.wholeRunPerSecond).toFixed(2)}×. One worker is bound by its look for work (a look every --poll claims what there is room for), not by the machine; the workers, PostgreSQL and the bench share ${cores} cores, and once those are all busy more workers add no capacity: the CPU each instance costs, in the workers and in PostgreSQL, is then what bounds the rate`,
    },
  ];
}
