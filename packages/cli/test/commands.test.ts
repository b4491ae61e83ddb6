import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExitCode } from '../src/index.js';
import { approvalProcess, callerProcess, definitions, scriptProcess, serviceProcess, Workspace } from './helpers.js';

interface Outcome {
  status: string;
  instanceId: string;
  processId: string;
  variables: Record<string, unknown>;
  userTasks?: { id: string; elementId: string; name: string | null }[];
  incidents?: { id: string; localId: string; elementId: string; message: string; retry: string }[];
  commands?: string[];
  elementId?: string | null;
}

const ws = new Workspace();
const store = (name: string) => ['--store', `sqlite:${name}.db`];

beforeAll(() => {
  ws.write('doubler.bpmn', definitions('doubler-defs', scriptProcess()));
  ws.write('approval.bpmn', definitions('approval-defs', approvalProcess));
  ws.write('greeting.bpmn', definitions('greeting-defs', serviceProcess));
  ws.write(
    'adhoc.bpmn',
    definitions(
      'adhoc-defs',
      `  <bpmn:process id="adhoc" isExecutable="true">
    <bpmn:startEvent id="start" />
    <bpmn:adHocSubProcess id="steps">
      <bpmn:scriptTask id="double"><bpmn:extensionElements><zeebe:script expression="=n * 2" resultVariable="out" /></bpmn:extensionElements></bpmn:scriptTask>
      <bpmn:scriptTask id="negate"><bpmn:extensionElements><zeebe:script expression="=-n" resultVariable="out" /></bpmn:extensionElements></bpmn:scriptTask>
      <bpmn:extensionElements><zeebe:adHoc outputCollection="outs" outputElement="=out" /></bpmn:extensionElements>
    </bpmn:adHocSubProcess>
    <bpmn:endEvent id="end" />
    <bpmn:sequenceFlow id="f1" sourceRef="start" targetRef="steps" />
    <bpmn:sequenceFlow id="f2" sourceRef="steps" targetRef="end" />
  </bpmn:process>`,
    ),
  );
  ws.write('two.bpmn', definitions('two-defs', scriptProcess('first'), scriptProcess('second')));
  ws.write('calls.bpmn', definitions('calls-defs', callerProcess('caller', 'call', 'approval'), approvalProcess));
  ws.write(
    'bad.bpmn',
    definitions(
      'bad-defs',
      `  <bpmn:process id="bad" isExecutable="true">
    <bpmn:startEvent id="start"><bpmn:outgoing>f1</bpmn:outgoing></bpmn:startEvent>
    <bpmn:businessRuleTask id="notify" name="Notify"><bpmn:incoming>f1</bpmn:incoming></bpmn:businessRuleTask>
    <bpmn:sequenceFlow id="f1" sourceRef="start" targetRef="notify" />
    <bpmn:sequenceFlow id="f2" sourceRef="notify" targetRef="missing" />
  </bpmn:process>`,
    ),
  );
  ws.write('greet.mjs', "export function greet(job) {\n  return { greeting: 'hello ' + job.variables.name };\n}\n");
  ws.write(
    'greet-default.mjs',
    "export default { greet: async (job) => ({ greeting: 'hi ' + job.variables.name, attempt: job.attempt }) };\nexport const unused = 1;\n",
  );
  ws.write('fail.mjs', "export function greet() {\n  throw new Error('mail server down');\n}\n");
  ws.write('empty.mjs', 'export const answer = 42;\n');
  ws.write('broken.mjs', 'export function greet( {\n');
});

afterAll(() => ws.remove());

describe('thresher run', () => {
  it('should run a model to completion and print one JSON document', async () => {
    // given a script task doubling a
    // when
    const run = await ws.thresher(['run', 'doubler.bpmn', '--var', 'a=21', ...store('run'), '--json']);
    // then
    expect(run.code).toBe(ExitCode.Ok);
    expect(run.stderr).toBe('');
    const outcome = run.json<Outcome>();
    expect(outcome).toMatchObject({ status: 'completed', processId: 'doubler', variables: { a: 21, doubled: 42 } });
    expect(outcome.instanceId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('should print the outcome on stdout and progress on stderr without --json', async () => {
    const run = await ws.thresher(['run', 'doubler.bpmn', '--var', 'a=2', ...store('run')]);
    expect(run.code).toBe(ExitCode.Ok);
    expect(run.stdout).toMatch(/^Instance [0-9a-f-]{36} completed \(process doubler\)\./);
    expect(run.stdout).toContain('doubled = 4');
    expect(run.stderr).toContain('deployed doubler-defs version 1');
    expect(run.stderr).toContain('started doubler as instance');
  });

  it('should pass --var values as JSON when they parse and as strings otherwise', async () => {
    const run = await ws.thresher([
      'run',
      'doubler.bpmn',
      '--var',
      'a=2',
      '--var',
      'ok=true',
      '--var',
      'items=[1,2]',
      '--var',
      'orderId=A-1001',
      '--var',
      'zip=007',
      '--store',
      'memory:',
      '--json',
    ]);
    expect(run.code).toBe(ExitCode.Ok);
    expect(run.json<Outcome>().variables).toEqual({
      a: 2,
      ok: true,
      items: [1, 2],
      orderId: 'A-1001',
      zip: '007',
      doubled: 4,
    });
  });

  it('should complete a user task with the JSON object line read from stdin', async () => {
    const run = await ws.thresher(['run', 'approval.bpmn', ...store('stdin'), '--json'], {
      stdin: '{"approved":true,"by":"ann"}\n',
    });
    expect(run.code).toBe(ExitCode.Ok);
    expect(run.json<Outcome>()).toMatchObject({ status: 'completed', variables: { approved: true, by: 'ann' } });
  });

  it('should exit 0 and name the element when a terminate end event ends the instance', async () => {
    const run = await ws.thresher(['run', 'approval.bpmn', ...store('stdin')], { stdin: '\n{"approved":false}\n' });
    expect(run.code).toBe(ExitCode.Ok);
    expect(run.stdout).toMatch(/terminated at rejected/);
  });

  it('should exit 2 when a stdin answer is not a JSON object, leaving the instance parked', async () => {
    const run = await ws.thresher(['run', 'approval.bpmn', ...store('stdin')], { stdin: 'approved=true\n' });
    expect(run.code).toBe(ExitCode.Usage);
    expect(run.stdout).toMatch(/not a JSON object/);
    expect(run.stdout).toMatch(/thresher complete [0-9a-f-]{36} approve/);
  });

  it('should complete every user task with --yes', async () => {
    const run = await ws.thresher([
      'run',
      'approval.bpmn',
      '--var',
      'approved=true',
      '--yes',
      ...store('yes'),
      '--json',
    ]);
    expect(run.code).toBe(ExitCode.Ok);
    expect(run.json<Outcome>()).toMatchObject({ status: 'completed', variables: { approved: true } });
  });

  it('should brief on a terminal, then ask the user task as a numbered choice until a number in range', async () => {
    // given a terminal where the person approves, types a word, then picks option 1 (approved = true)
    const run = await ws.thresher(['run', 'approval.bpmn', ...store('tty'), '--json'], {
      isTTY: true,
      stdin: 'y\noops\n1\n',
    });
    // then the run completes, and under --json what the person saw went to stderr
    expect(run.code).toBe(ExitCode.Ok);
    const outcome = run.json<Outcome>();
    expect(outcome).toMatchObject({ status: 'completed', variables: { approved: true } });
    expect(run.stderr).toContain('THIS RUN NEEDS YOU AT 1 TOUCHPOINT');
    expect(run.stderr).toContain('Continue? [y/N]: Approved.');
    expect(run.stderr).toContain(`approve in instance ${outcome.instanceId}`);
    expect(run.stderr).toContain('Enter a number from 1 to 2, or q to stop.');
    expect(run.stderr).toMatch(/Chosen: 1 /);
  });

  it('should use the handlers of a --handlers module (named exports)', async () => {
    const run = await ws.thresher([
      'run',
      'greeting.bpmn',
      '--handlers',
      'greet.mjs',
      '--var',
      'name=Ada',
      ...store('h'),
      '--json',
    ]);
    expect(run.code).toBe(ExitCode.Ok);
    expect(run.json<Outcome>().variables).toEqual({ name: 'Ada', greeting: 'hello Ada' });
  });

  it('should use the handlers of a --handlers module (default object export)', async () => {
    const run = await ws.thresher([
      'run',
      'greeting.bpmn',
      '--handlers',
      'greet-default.mjs',
      '--var',
      'name=Bo',
      '--store',
      'memory:',
      '--json',
    ]);
    expect(run.code).toBe(ExitCode.Ok);
    expect(run.json<Outcome>().variables).toEqual({ name: 'Bo', greeting: 'hi Bo', attempt: 1 });
  });

  it('should start the process --process names in a file with several', async () => {
    const run = await ws.thresher([
      'run',
      'two.bpmn',
      '--process',
      'second',
      '--var',
      'a=1',
      '--store',
      'memory:',
      '--json',
    ]);
    expect(run.code).toBe(ExitCode.Ok);
    expect(run.json<Outcome>()).toMatchObject({ status: 'completed', processId: 'second' });
  });

  it('should exit 1 and name the element and how to retry when a handler fails', async () => {
    const run = await ws.thresher(['run', 'greeting.bpmn', '--handlers', 'fail.mjs', ...store('incident'), '--json']);
    expect(run.code).toBe(ExitCode.Failed);
    const outcome = run.json<Outcome>();
    expect(outcome.status).toBe('incident');
    expect(outcome.incidents).toHaveLength(1);
    const [incident] = outcome.incidents!;
    expect(incident).toMatchObject({ elementId: 'greet', message: expect.stringContaining('mail server down') });
    expect(incident!.id).toBe(`${outcome.instanceId}/${incident!.localId}`);
    expect(incident!.retry).toBe(
      `thresher retry ${outcome.instanceId} ${incident!.localId} --handlers fail.mjs --store sqlite:incident.db`,
    );
  });

  it('should say how to retry an incident in human output', async () => {
    const run = await ws.thresher(['run', 'greeting.bpmn', '--handlers', 'fail.mjs', ...store('incident-human')]);
    expect(run.code).toBe(ExitCode.Failed);
    expect(run.stdout).toMatch(/greet: handler failed: mail server down/);
    expect(run.stdout).toMatch(/incident [0-9a-f-]{36}\/i\d+ \(job-failed\)/);
    expect(run.stdout).toMatch(/fix the cause, then retry: thresher retry /);
  });

  it('should exit 1 naming the element of an invalid model', async () => {
    const run = await ws.thresher(['run', 'bad.bpmn', '--store', 'memory:']);
    expect(run.code).toBe(ExitCode.Failed);
    expect(run.stderr).toMatch(/bpmn:BusinessRuleTask "notify" \(line \d+\): .*needs a zeebe:calledDecision/);
    expect(run.stderr).toMatch(/bpmn:SequenceFlow "f2"/);
  });

  it('should say that the memory: store keeps a parked instance nowhere', async () => {
    const run = await ws.thresher(['run', 'approval.bpmn', '--store', 'memory:']);
    expect(run.code).toBe(ExitCode.Parked);
    expect(run.stdout).toMatch(/memory: store keeps nothing/);
    expect(run.stdout).not.toMatch(/thresher complete/);
  });

  it('should create the default store under the working directory', async () => {
    const run = await ws.thresher(['run', 'doubler.bpmn', '--var', 'a=1']);
    expect(run.code).toBe(ExitCode.Ok);
    expect(existsSync(ws.path('.thresher/thresher.db'))).toBe(true);
  });
});

describe('a parked instance, continued by later commands on the same store', () => {
  /** Runs approval.bpmn into the store `name` with no answer on stdin: it parks at its user task. */
  async function parkApproval(name: string): Promise<{ instanceId: string; taskId: string }> {
    const run = await ws.thresher(['run', 'approval.bpmn', ...store(name), '--json']);
    expect(run.code).toBe(ExitCode.Parked);
    const outcome = run.json<Outcome>();
    return { instanceId: outcome.instanceId, taskId: outcome.userTasks![0]!.id };
  }

  /** A parked approval, approved with `thresher complete`: it has completed. */
  async function completedApproval(name: string): Promise<string> {
    const { instanceId } = await parkApproval(name);
    const complete = await ws.thresher(['complete', instanceId, 'approve', '--var', 'approved=true', ...store(name)]);
    expect(complete.code).toBe(ExitCode.Ok);
    return instanceId;
  }

  it('should park with exit 3, naming the task and the commands that continue it', async () => {
    // given no answer on stdin
    const run = await ws.thresher(['run', 'approval.bpmn', ...store('parked'), '--handlers', 'greet.mjs']);
    // then
    expect(run.code).toBe(ExitCode.Parked);
    const instanceId = /Instance ([0-9a-f-]{36}) is parked/.exec(run.stdout)?.[1];
    expect(instanceId).toBeDefined();
    expect(run.stdout).toContain('user task "Approve order" (approve)');
    expect(run.stdout).toContain(
      `thresher complete ${instanceId} approve --var k=v --handlers greet.mjs --store sqlite:parked.db`,
    );
    expect(run.stdout).toContain(`thresher resume ${instanceId} --handlers greet.mjs --store sqlite:parked.db`);
  });

  it('should park with --json too, the document carrying the task and the commands', async () => {
    const run = await ws.thresher(['run', 'approval.bpmn', ...store('parked-json'), '--json']);
    expect(run.code).toBe(ExitCode.Parked);
    const outcome = run.json<Outcome>();
    expect(outcome.status).toBe('parked');
    expect(outcome.userTasks).toEqual([
      {
        id: expect.stringMatching(/\/u\d+$/),
        localId: expect.any(String),
        elementId: 'approve',
        name: 'Approve order',
      },
    ]);
    expect(outcome.commands?.[0]).toBe(
      `thresher complete ${outcome.instanceId} approve --var k=v --store sqlite:parked-json.db`,
    );
  });

  it('should list it with thresher instances', async () => {
    const { instanceId } = await parkApproval('parked-list');
    const list = await ws.thresher(['instances', ...store('parked-list'), '--json']);
    expect(list.code).toBe(ExitCode.Ok);
    const { instances } = list.json<{ instances: { instanceId: string; processId: string; status: string }[] }>();
    expect(instances).toContainEqual(expect.objectContaining({ instanceId, processId: 'approval', status: 'running' }));
    const table = await ws.thresher(['instances', ...store('parked-list'), '--status', 'running']);
    expect(table.stdout).toMatch(/^ID\s+PROCESS\s+STATUS\s+SEQ\s+CALLED AT\s+BUSINESS KEY/);
    expect(table.stdout).toContain(instanceId);
    const none = await ws.thresher(['instances', ...store('parked-list'), '--status', 'completed']);
    expect(none.stdout).toBe('no instances\n');
  });

  it('should list a call tree with each child under its parent, and one tree with --tree', async () => {
    const run = await ws.thresher(['run', 'calls.bpmn', '--process', 'caller', ...store('call-tree'), '--json']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(ExitCode.Parked);
    const rootId = run.json<Outcome>().instanceId;
    const other = await ws.thresher(['run', 'approval.bpmn', ...store('call-tree'), '--json']);
    const otherId = other.json<Outcome>().instanceId;
    const tree = await ws.thresher(['instances', ...store('call-tree'), '--tree', rootId, '--json']);
    const { instances } = tree.json<{ instances: { instanceId: string; parentId: string | null }[] }>();
    expect(instances.map((instance) => instance.parentId).sort()).toEqual([null, rootId].sort());
    const childId = instances.find((instance) => instance.parentId === rootId)!.instanceId;
    const table = await ws.thresher(['instances', ...store('call-tree')]);
    const lines = table.stdout.trimEnd().split('\n').slice(1);
    const at = (id: string) => lines.findIndex((line) => line.includes(id));
    expect(at(childId)).toBe(at(rootId) + 1);
    expect(lines[at(childId)]).toMatch(new RegExp(`^└ ${childId}\\s+approval\\s+running\\s+\\d+\\s+call`));
    expect(at(otherId)).toBeGreaterThanOrEqual(0);
    const parent = await ws.thresher(['show', rootId, ...store('call-tree')]);
    expect(parent.stdout).toContain(`Waiting on called instances:\n  call → ${childId}`);
    const child = await ws.thresher(['show', childId, ...store('call-tree')]);
    expect(child.stdout).toContain(`  called by:    ${rootId} at call`);
  });

  it('should show it running with its open user task', async () => {
    const { instanceId, taskId } = await parkApproval('parked-show');
    const show = await ws.thresher(['show', instanceId, ...store('parked-show'), '--json']);
    expect(show.code).toBe(ExitCode.Ok);
    const view = show.json<{
      status: string;
      userTasks: { id: string; elementId: string }[];
      activeElements: string[];
    }>();
    expect(view.status).toBe('running');
    expect(view.activeElements).toEqual(['approve']);
    expect(view.userTasks).toEqual([expect.objectContaining({ id: taskId, elementId: 'approve' })]);
    const human = await ws.thresher(['show', instanceId, ...store('parked-show')]);
    expect(human.stdout).toContain(`Instance ${instanceId}`);
    expect(human.stdout).toContain(
      `approve "Approve order" [task ${taskId}]\n    state created; assignee (none); priority 50`,
    );
  });

  it('should refuse to complete a task the instance does not have', async () => {
    const { instanceId, taskId } = await parkApproval('parked-no-task');
    const complete = await ws.thresher(['complete', instanceId, 'ship', ...store('parked-no-task')]);
    expect(complete.code).toBe(ExitCode.Failed);
    expect(complete.stderr).toContain(`instance ${instanceId} has no open user task "ship"; open: approve [${taskId}]`);
  });

  it('should finish it with thresher complete', async () => {
    const { instanceId } = await parkApproval('parked-complete');
    const complete = await ws.thresher([
      'complete',
      instanceId,
      'approve',
      '--var',
      'approved=true',
      ...store('parked-complete'),
      '--json',
    ]);
    expect(complete.code).toBe(ExitCode.Ok);
    expect(complete.json<Outcome>()).toMatchObject({ status: 'completed', instanceId, variables: { approved: true } });
  });

  it('should show it completed, with its history', async () => {
    const instanceId = await completedApproval('parked-history');
    const show = await ws.thresher(['show', instanceId, '--history', ...store('parked-history'), '--json']);
    expect(show.code).toBe(ExitCode.Ok);
    const view = show.json<{ status: string; userTasks: unknown[]; history: { node: string }[] }>();
    expect(view.status).toBe('completed');
    expect(view.userTasks).toEqual([]);
    expect(view.history.map((entry) => entry.node)).toContain('approve');
    const human = await ws.thresher(['show', instanceId, '--history', ...store('parked-history')]);
    expect(human.stdout).toMatch(/status:\s+completed/);
    expect(human.stdout).toMatch(/History:/);
  });

  it('should refuse to complete a task of an instance that has ended', async () => {
    const instanceId = await completedApproval('parked-ended');
    const complete = await ws.thresher(['complete', instanceId, 'approve', ...store('parked-ended')]);
    expect(complete.code).toBe(ExitCode.Failed);
    expect(complete.stderr).toContain(`instance ${instanceId} is completed and has no open user task`);
  });
});

describe('thresher complete, by task id', () => {
  it('should accept the full task id and the local id, and park again when more tasks wait', async () => {
    // given two parked instances
    const first = (await ws.thresher(['run', 'approval.bpmn', ...store('ids'), '--json'])).json<Outcome>();
    const second = (await ws.thresher(['run', 'approval.bpmn', ...store('ids'), '--json'])).json<Outcome>();
    // when each is completed by one form of its task id
    const byFull = await ws.thresher([
      'complete',
      first.instanceId,
      first.userTasks![0]!.id,
      '--var',
      'approved=true',
      ...store('ids'),
    ]);
    const local = first.userTasks![0]!.id.split('/').at(-1)!;
    const byLocal = await ws.thresher(['complete', second.instanceId, local, ...store('ids'), '--json']);
    // then
    expect(byFull.code).toBe(ExitCode.Ok);
    expect(byLocal.code).toBe(ExitCode.Ok);
    expect(byLocal.json<Outcome>()).toMatchObject({ status: 'terminated', elementId: 'rejected' });
  });

  it('should exit 1 for an instance that does not exist', async () => {
    const complete = await ws.thresher(['complete', 'no-such-instance', 'approve', ...store('ids')]);
    expect(complete.code).toBe(ExitCode.Failed);
    expect(complete.stderr).toContain('no instance no-such-instance');
  });
});

describe('thresher activate', () => {
  it('should park an ad-hoc sub-process waiting for activations with the command, then activate and finish it', async () => {
    const run = await ws.thresher(['run', 'adhoc.bpmn', ...store('adhoc'), '--json']);
    expect(run.code).toBe(ExitCode.Parked);
    const parked = run.json<
      Outcome & { adHocSubProcesses: { elementId: string; activatable: string[]; command: string }[] }
    >();
    expect(parked.adHocSubProcesses).toEqual([
      expect.objectContaining({
        elementId: 'steps',
        activatable: ['double', 'negate'],
        command: expect.stringContaining(`thresher activate ${parked.instanceId} steps double`),
      }),
    ]);
    const activate = await ws.thresher([
      'activate',
      parked.instanceId,
      'steps',
      'double',
      'negate',
      '--var',
      'n=3',
      ...store('adhoc'),
      '--json',
    ]);
    expect(activate.stderr).toBe('');
    expect(activate.json<Outcome>()).toMatchObject({ status: 'completed', variables: { outs: [6, -3] } });
  });

  it('should refuse an element the ad-hoc sub-process cannot activate, and one that is not running', async () => {
    const run = await ws.thresher(['run', 'adhoc.bpmn', ...store('adhoc-bad'), '--json']);
    const { instanceId } = run.json<Outcome>();
    const wrong = await ws.thresher(['activate', instanceId, 'steps', 'end', ...store('adhoc-bad')]);
    expect(wrong.code).toBe(ExitCode.Failed);
    expect(wrong.stderr).toContain('cannot activate "end"');
    const none = await ws.thresher(['activate', instanceId, 'other', 'double', ...store('adhoc-bad')]);
    expect(none.stderr).toContain(`instance ${instanceId} has no running ad-hoc sub-process "other"`);
  });
});

describe('thresher resume and retry', () => {
  it('should resume a parked instance with --yes', async () => {
    const parked = (
      await ws.thresher(['run', 'approval.bpmn', '--var', 'approved=true', ...store('resume'), '--json'])
    ).json<Outcome>();
    const resume = await ws.thresher(['resume', parked.instanceId, '--yes', ...store('resume'), '--json']);
    expect(resume.code).toBe(ExitCode.Ok);
    const report = resume.json<{ restored: string[]; failed: unknown[]; outcomes: Outcome[] }>();
    expect(report.restored).toEqual([parked.instanceId]);
    expect(report.failed).toEqual([]);
    expect(report.outcomes).toEqual([expect.objectContaining({ status: 'completed', instanceId: parked.instanceId })]);
  });

  it('should park again when resuming off a terminal without --yes', async () => {
    const parked = (await ws.thresher(['run', 'approval.bpmn', ...store('resume2'), '--json'])).json<Outcome>();
    const resume = await ws.thresher(['resume', '--all', ...store('resume2')]);
    expect(resume.code).toBe(ExitCode.Parked);
    expect(resume.stdout).toContain(`Instance ${parked.instanceId} is parked`);
  });

  it('should report an instance it cannot restore and exit 1', async () => {
    const resume = await ws.thresher(['resume', 'no-such-instance', ...store('resume2'), '--json']);
    expect(resume.code).toBe(ExitCode.Failed);
    expect(resume.json<{ failed: { instanceId: string }[] }>().failed).toEqual([
      expect.objectContaining({ instanceId: 'no-such-instance' }),
    ]);
    expect(resume.stderr).toContain('cannot restore instance no-such-instance');
  });

  it('should have nothing to resume in an empty store', async () => {
    const resume = await ws.thresher(['resume', '--all', ...store('never-created')]);
    expect(resume.code).toBe(ExitCode.Ok);
    expect(resume.stdout).toBe('no running instances to resume\n');
    expect(existsSync(ws.path('never-created.db'))).toBe(false);
  });

  it('should retry an incident once the handler is fixed', async () => {
    const failed = await ws.thresher([
      'run',
      'greeting.bpmn',
      '--handlers',
      'fail.mjs',
      '--var',
      'name=Cy',
      ...store('retry'),
      '--json',
    ]);
    expect(failed.code).toBe(ExitCode.Failed);
    const { instanceId, incidents } = failed.json<Outcome>();
    const retry = await ws.thresher([
      'retry',
      instanceId,
      incidents![0]!.localId,
      '--handlers',
      'greet.mjs',
      ...store('retry'),
      '--json',
    ]);
    expect(retry.code).toBe(ExitCode.Ok);
    expect(retry.json<Outcome>()).toMatchObject({ status: 'completed', variables: { greeting: 'hello Cy' } });
  });
});

describe('thresher inspect', () => {
  it('should list the processes and elements of a model', async () => {
    const inspect = await ws.thresher(['inspect', 'greeting.bpmn', '--json']);
    expect(inspect.code).toBe(ExitCode.Ok);
    const model = inspect.json<{ processes: { id: string; flows: number; elements: Record<string, unknown>[] }[] }>();
    expect(model.processes).toHaveLength(1);
    expect(model.processes[0]).toMatchObject({ id: 'greeting', flows: 2 });
    expect(model.processes[0]!.elements).toContainEqual(
      expect.objectContaining({ id: 'greet', type: 'serviceTask', name: 'Greet', taskType: 'greet', retries: 1 }),
    );
    const human = await ws.thresher(['inspect', 'greeting.bpmn']);
    expect(human.stdout).toMatch(/greet\s+serviceTask\s+Greet\s+type=greet retries=1/);
    expect(human.stdout).toContain('3 elements, 2 sequence flows');
  });

  it('should exit 1 listing every issue of an invalid model, naming each element', async () => {
    const inspect = await ws.thresher(['inspect', 'bad.bpmn']);
    expect(inspect.code).toBe(ExitCode.Failed);
    expect(inspect.stdout).toMatch(/invalid model \(2 issues\)/);
    expect(inspect.stdout).toMatch(/bpmn:BusinessRuleTask "notify" \(line \d+\)/);
    expect(inspect.stdout).toMatch(/bpmn:SequenceFlow "f2" \(line \d+\): .*"missing"/);
    const json = await ws.thresher(['inspect', 'bad.bpmn', '--json']);
    expect(json.code).toBe(ExitCode.Failed);
    expect(
      json
        .json<{ issues: { elementId: string }[] }>()
        .issues.map((issue) => issue.elementId)
        .sort(),
    ).toEqual(['f2', 'notify']);
  });
});

describe('usage errors exit 2', () => {
  const usage = (argv: string[], message: RegExp | string) =>
    it(`should refuse "thresher ${argv.join(' ')}"`, async () => {
      const run = await ws.thresher(argv);
      expect(run.code).toBe(ExitCode.Usage);
      expect(run.stdout).toBe('');
      expect(run.stderr).toMatch(message);
      expect(run.stderr).toMatch(/usage: thresher/);
    });
  usage([], /no command given/);
  usage(['frobnicate'], /unknown command "frobnicate"/);
  usage(['--frobnicate'], /unknown option --frobnicate/);
  usage(
    ['run', 'doubler.bpmn', '--frobnicate'],
    /unknown option --frobnicate for "thresher run"\nusage: thresher run FILE\.bpmn/,
  );
  usage(['run'], /missing FILE/);
  usage(['run', 'doubler.bpmn', '--var', 'total'], /--var "total": expected NAME=VALUE/);
  usage(['run', 'nowhere.bpmn'], /cannot read nowhere\.bpmn: no such file/);
  usage(['run', 'doubler.bpmn', '--store', 'postgres:localhost'], /not a PostgreSQL URL/);
  usage(['run', 'doubler.bpmn', '--store', 'data.json'], /unknown store/);
  usage(['run', 'greeting.bpmn', '--handlers', 'nowhere.mjs'], /--handlers nowhere\.mjs: no such file/);
  usage(
    ['run', 'greeting.bpmn', '--handlers', 'empty.mjs'],
    /--handlers empty\.mjs: the module exports no handler functions/,
  );
  usage(['run', 'greeting.bpmn', '--handlers', 'broken.mjs'], /--handlers broken\.mjs: the module failed to load/);
  usage(
    ['run', 'two.bpmn', '--store', 'memory:'],
    /several executable processes; choose one with --process: first, second/,
  );
  usage(
    ['run', 'two.bpmn', '--process', 'third', '--store', 'memory:'],
    /--process third: two\.bpmn has no executable process "third"/,
  );
  usage(['instances', '--roots', '--children'], /--roots and --children exclude each other/);
  usage(['instances', '--children', '--tree', 'x'], /--children and --tree exclude each other/);
  usage(['resume'], /missing ID \(or --all\)/);
  usage(['help', 'frobnicate'], /unknown command "frobnicate"/);

  it('should print an error document under --json', async () => {
    const run = await ws.thresher(['run', 'doubler.bpmn', '--store', 'mysql://x', '--json']);
    expect(run.code).toBe(ExitCode.Usage);
    expect(run.json()).toMatchObject({ status: 'error', exitCode: 2, error: { code: 'THRESHER_CLI_USAGE' } });
  });
});

describe('thresher show and instances on a missing instance or store', () => {
  it('should exit 1 for an instance that does not exist', async () => {
    const show = await ws.thresher(['show', 'no-such-instance', ...store('run')]);
    expect(show.code).toBe(ExitCode.Failed);
    expect(show.stderr).toBe('thresher: no instance no-such-instance\n');
  });

  it('should list nothing, and create nothing, for a store that does not exist', async () => {
    const list = await ws.thresher(['instances', ...store('absent'), '--json']);
    expect(list.code).toBe(ExitCode.Ok);
    expect(list.json()).toEqual({ instances: [] });
    expect(existsSync(ws.path('absent.db'))).toBe(false);
  });
});

describe('help and version', () => {
  it('should list every command for --help', async () => {
    const help = await ws.thresher(['--help']);
    expect(help.code).toBe(ExitCode.Ok);
    for (const command of ['run', 'inspect', 'instances', 'show', 'complete', 'resume', 'retry']) {
      expect(help.stdout).toMatch(new RegExp(`^  ${command}\\s`, 'm'));
    }
  });

  it('should describe one command for help COMMAND and COMMAND --help', async () => {
    const help = await ws.thresher(['help', 'run']);
    expect(help.code).toBe(ExitCode.Ok);
    expect(help.stdout).toMatch(/^Usage: thresher run FILE\.bpmn/);
    expect(help.stdout).toContain('--var k=v...');
    expect(help.stdout).toContain('Exit codes:');
    expect((await ws.thresher(['run', '--help'])).stdout).toBe(help.stdout);
  });

  it('should print the version of the release it belongs to', async () => {
    const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    const version = await ws.thresher(['--version']);
    expect(version.code).toBe(ExitCode.Ok);
    expect(version.stdout).toBe(`${manifest.version}\n`);
    expect(manifest.version).toMatch(/^0\.\d+\.\d+$/);
  });
});

const fixture = (name: string) => fileURLToPath(new URL(`../../../fixtures/order-fulfilment/${name}`, import.meta.url));

describe.runIf(existsSync(fixture('order-fulfilment.bpmn')) && existsSync(fixture('handlers.mjs')))(
  'the order-fulfilment fixture',
  () => {
    it('should run end to end with --yes', async () => {
      const run = await ws.thresher([
        'run',
        fixture('order-fulfilment.bpmn'),
        '--handlers',
        fixture('handlers.mjs'),
        '--var',
        'orderId="A-1001"',
        '--var',
        'total=120',
        '--var',
        'approved=true',
        '--yes',
        ...store('fixture'),
        '--json',
      ]);
      expect(run.stderr).toBe('');
      expect(run.code).toBe(ExitCode.Ok);
      expect(run.json<Outcome>()).toMatchObject({
        status: 'completed',
        processId: 'order-fulfilment',
        variables: { total: 120, approved: true, orderId: 'A-1001' },
      });
    });
  },
);
