import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type ChildExit, CLI_MAIN as main, spawnThresher } from './helpers.js';

// These tests run the real binary as a child process, so they need the built CLI (`pnpm test` builds first).

const model = `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL"
  xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="sigkill" targetNamespace="http://bpmn.io/schema/bpmn">
  <bpmn:process id="steps" isExecutable="true">
    <bpmn:startEvent id="start" />
    <bpmn:serviceTask id="a"><bpmn:extensionElements><zeebe:taskDefinition type="step" /></bpmn:extensionElements></bpmn:serviceTask>
    <bpmn:parallelGateway id="fork" />
    <bpmn:serviceTask id="b"><bpmn:extensionElements><zeebe:taskDefinition type="step" /></bpmn:extensionElements></bpmn:serviceTask>
    <bpmn:serviceTask id="c"><bpmn:extensionElements><zeebe:taskDefinition type="step" /></bpmn:extensionElements></bpmn:serviceTask>
    <bpmn:parallelGateway id="join" />
    <bpmn:serviceTask id="d"><bpmn:extensionElements><zeebe:taskDefinition type="step" /></bpmn:extensionElements></bpmn:serviceTask>
    <bpmn:endEvent id="end" />
    <bpmn:sequenceFlow id="f1" sourceRef="start" targetRef="a" />
    <bpmn:sequenceFlow id="f2" sourceRef="a" targetRef="fork" />
    <bpmn:sequenceFlow id="f3" sourceRef="fork" targetRef="b" />
    <bpmn:sequenceFlow id="f4" sourceRef="fork" targetRef="c" />
    <bpmn:sequenceFlow id="f5" sourceRef="b" targetRef="join" />
    <bpmn:sequenceFlow id="f6" sourceRef="c" targetRef="join" />
    <bpmn:sequenceFlow id="f7" sourceRef="join" targetRef="d" />
    <bpmn:sequenceFlow id="f8" sourceRef="d" targetRef="end" />
  </bpmn:process>
</bpmn:definitions>`;

// Every call appends `start` and `done` lines (with the idempotency key) to the log, the outside world's
// record of what ran. The element named by STALL_ON hangs, so the kill lands while it is in flight.
const handlers = `import { appendFileSync } from 'node:fs';
export default {
  step: async (job) => {
    const log = (what) => appendFileSync(process.env.STEP_LOG, what + ' ' + job.elementId + ' ' + job.idempotencyKey + '\\n');
    log('start');
    if (process.env.STALL_ON === job.elementId) await new Promise(() => setInterval(() => {}, 1000));
    log('done');
    return { [job.elementId + 'Done']: true };
  },
};
`;

let dir: string;
const children: ChildProcess[] = [];

function thresher(args: string[], env: Record<string, string>): { child: ChildProcess; exit: Promise<ChildExit> } {
  const run = spawnThresher(args, { cwd: dir, env });
  children.push(run.child);
  return run;
}

function logLines(log: string): string[] {
  return existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n').filter(Boolean) : [];
}

/** Wait until the outside world's log shows a line; a condition, not a timing assertion. */
async function until(log: string, pattern: RegExp, exit: Promise<ChildExit>): Promise<void> {
  let exited: ChildExit | undefined;
  void exit.then((e) => {
    exited = e;
  });
  for (let i = 0; i < 600; i++) {
    if (logLines(log).some((line) => pattern.test(line))) return;
    if (exited) throw new Error(`thresher exited before ${pattern}: ${exited.stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`the log never showed ${pattern}: ${logLines(log).join(' | ')}`);
}

const count = (lines: string[], prefix: string) => lines.filter((line) => line.startsWith(prefix)).length;

beforeAll(() => {
  if (!existsSync(main)) throw new Error(`${main} is missing: run \`pnpm build\` (pnpm test does) before these tests`);
});

afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

describe('thresher under SIGKILL', () => {
  it.each(['b', 'd'])(
    'should finish with resume --all after a SIGKILL while %s runs, running no completed step again',
    async (stallOn) => {
      dir = mkdtempSync(join(tmpdir(), 'thresher-sigkill-'));
      writeFileSync(join(dir, 'steps.bpmn'), model);
      writeFileSync(join(dir, 'handlers.mjs'), handlers);
      const log = join(dir, 'steps.log');
      const store = ['--store', `sqlite:${join(dir, 'store.db')}`, '--handlers', 'handlers.mjs'];

      // given a run killed while `stallOn` is in flight
      const first = thresher(['run', 'steps.bpmn', ...store, '--json'], { STEP_LOG: log, STALL_ON: stallOn });
      await until(log, new RegExp(`^start ${stallOn} `), first.exit);
      first.child.kill('SIGKILL');
      expect((await first.exit).signal).toBe('SIGKILL');
      const before = logLines(log);

      // when a new process resumes every instance
      const second = thresher(['resume', '--all', ...store, '--json'], { STEP_LOG: log });
      const resumed = await second.exit;

      // then the instance completed; every step ran once, but for c, which runs beside b: the kill can land
      // after c's handler returned (and logged `done`) and before the engine filed its result, and then c is in
      // flight, not completed, and runs again under the same key (at-least-once). That a step the engine had
      // made durable never runs again is proven at every persist point by the fixture kit (`thresher test`).
      expect(resumed.code, resumed.stderr).toBe(0);
      const after = logLines(log);
      for (const step of ['a', 'b', 'c', 'd']) {
        const doneBeforeKill = count(before, `done ${step} `);
        const mayRepeat = stallOn === 'b' && step === 'c' && doneBeforeKill > 0;
        const runs = count(after, `done ${step} `);
        expect({ step, runs: mayRepeat ? Math.min(runs, 1) : runs }).toEqual({ step, runs: 1 });
        expect(runs).toBeLessThanOrEqual(2);
        const starts = count(after, `start ${step} `);
        const expected = (step === stallOn && doneBeforeKill === 0 ? 2 : 1) + (mayRepeat ? runs - 1 : 0);
        expect({ step, starts }).toEqual({ step, starts: expected });
        const keys = after.filter((line) => line.startsWith(`start ${step} `)).map((line) => line.split(' ')[2]);
        expect({ step, keys: new Set(keys).size }).toEqual({ step, keys: 1 });
      }
      // the stalled step ran again under the same idempotency key: at-least-once, recognisably
      const keys = after.filter((line) => line.startsWith(`start ${stallOn} `)).map((line) => line.split(' ')[2]);
      expect(new Set(keys).size).toBe(1);

      const listed = thresher(['instances', '--store', `sqlite:${join(dir, 'store.db')}`, '--json'], {});
      const instances = JSON.parse((await listed.exit).stdout) as unknown;
      expect(JSON.stringify(instances)).toContain('"completed"');
    },
  );
});
