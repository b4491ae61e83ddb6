import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type ChildExit, CLI_MAIN, PG_URL, spawnThresher, TestSchemas } from './helpers.js';

/**
 * Two OS processes recovering the same stored instance at once, on one SQLite file and on one PostgreSQL
 * schema: the instance runs in one of them, and every step that completed runs once. The instance is left
 * by a process SIGKILLed inside a handler, so its lease is still live: the recovering processes take it over
 * at once because that process is gone (same host, pid exited).
 */

const model = `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL"
  xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="two-engines" targetNamespace="http://bpmn.io/schema/bpmn">
  <bpmn:process id="steps" isExecutable="true">
    <bpmn:startEvent id="start" />
    <bpmn:serviceTask id="work"><bpmn:extensionElements><zeebe:taskDefinition type="step" /></bpmn:extensionElements></bpmn:serviceTask>
    <bpmn:serviceTask id="ship"><bpmn:extensionElements><zeebe:taskDefinition type="step" /></bpmn:extensionElements></bpmn:serviceTask>
    <bpmn:endEvent id="end" />
    <bpmn:sequenceFlow id="f1" sourceRef="start" targetRef="work" />
    <bpmn:sequenceFlow id="f2" sourceRef="work" targetRef="ship" />
    <bpmn:sequenceFlow id="f3" sourceRef="ship" targetRef="end" />
  </bpmn:process>
</bpmn:definitions>`;

// Each call appends `<pid> <element>` to the log; with DIE_IN set, that element's handler kills its process.
const handlers = `import { appendFileSync } from 'node:fs';
export default {
  step: async (job) => {
    appendFileSync(process.env.STEP_LOG, process.pid + ' ' + job.elementId + '\\n');
    if (process.env.DIE_IN === job.elementId) process.kill(process.pid, 'SIGKILL');
    await new Promise((resolve) => setTimeout(resolve, 20));
    return { [job.elementId + 'By']: process.pid };
  },
};
`;

let dir: string;
const children: ChildProcess[] = [];
const schemas = new TestSchemas('thresher_two');

function thresher(args: string[], env: Record<string, string>): Promise<ChildExit> {
  const run = spawnThresher(args, { cwd: dir, env });
  children.push(run.child);
  return run.exit;
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

const stores = [
  { kind: 'SQLite', store: () => `sqlite:${join(dir, 'store.db')}`, skip: false },
  { kind: 'PostgreSQL', store: () => schemas.store(), skip: PG_URL === undefined },
];

describe('two thresher processes recovering one instance at once', () => {
  for (const { kind, store, skip } of stores) {
    it.skipIf(skip)(`should run it in one of them, each completed step once, on ${kind}`, async () => {
      dir = mkdtempSync(join(tmpdir(), 'thresher-two-engines-'));
      writeFileSync(join(dir, 'steps.bpmn'), model);
      writeFileSync(join(dir, 'handlers.mjs'), handlers);
      const log = join(dir, 'steps.log');
      const at = ['--store', store(), '--handlers', 'handlers.mjs', '--json'];

      // given a run killed inside its work handler: the instance's lease is live, its holder gone
      const killed = await thresher(['run', 'steps.bpmn', ...at], { STEP_LOG: log, DIE_IN: 'work' });
      expect(killed.signal).toBe('SIGKILL');

      // when two processes resume every instance at once
      const [one, two] = await Promise.all([
        thresher(['resume', '--all', ...at], { STEP_LOG: log }),
        thresher(['resume', '--all', ...at], { STEP_LOG: log }),
      ]);

      // then exactly one ran it to its end, and the other neither ran a step nor wrote
      const ran = readFileSync(log, 'utf8').trim().split('\n');
      const runner = ran[1]!.split(' ')[0];
      expect(ran).toEqual([`${killed.pid} work`, `${runner} work`, `${runner} ship`]);
      const outcomes = [one, two].map((exit) => ({ exit, document: JSON.parse(exit.stdout) }));
      const winner = outcomes.find(({ exit }) => String(exit.pid) === runner)!;
      const loser = outcomes.find(({ exit }) => String(exit.pid) !== runner)!;
      expect(winner.exit.code, winner.exit.stderr).toBe(0);
      expect(winner.document.outcomes).toEqual([expect.objectContaining({ status: 'completed' })]);
      // the other either found it held by the runner (and said so) or found nothing left to resume
      const refusals = loser.document.failed as Array<{ error: { code: string; message: string } }>;
      expect(loser.document.restored).toEqual([]);
      if (refusals.length > 0) {
        expect(refusals.map((failure) => failure.error.code)).toEqual(['THRESHER_INSTANCE_HELD']);
        expect(refusals[0]!.error.message).toContain(`:${runner}:`);
        expect(loser.exit.code).toBe(1);
      } else {
        expect(loser.exit.code, loser.exit.stderr).toBe(0);
      }
    });
  }
});
