/**
 * Zeebe compatibility, values: models written the way Camunda Modeler (Camunda 8.6, Zeebe flavour) writes
 * them, asserting what Camunda's documentation says each attribute produces. The rule ("Expressions"): a
 * value that starts with `=` is a FEEL expression; anything else is a static value, the literal string.
 */
import { createMemoryRepository } from '@thresher/checkpoint';
import { VirtualClock } from '@thresher/testing';
import { describe, expect, it } from 'vitest';
import { Engine } from '../src/engine.js';
import type { Job } from '../src/index.js';
import { type El, END, modeler, PROCESS, refused, START, single } from './fixtures/bpmn/modeler.js';
import { engineWith } from './fixtures/runtime.js';

/** Runs a model to where it settles, recording the jobs of the handler types given. */
async function run(xml: string, types: string[], variables = {}) {
  const jobs: Job[] = [];
  const handlers = Object.fromEntries(types.map((type) => [type, (job: Job) => void jobs.push(job)]));
  const engine = await engineWith(xml, handlers);
  const id = await engine.start(PROCESS, { variables });
  const settled = await engine.settled(id);
  return { engine, id, jobs, settled };
}

// ── the suite ─────────────────────────────────────────────────────────────────────────────────────────

describe('zeebe:input source', () => {
  it.each<[string, string, unknown]>([
    ['a static input source is the literal string, not a FEEL name', 'Me', 'Me'],
    ['an = source holding a FEEL string literal gives that string', '=&quot;Me&quot;', 'Me'],
    ['a static source written with quote marks keeps them', '&quot;You&quot;', '"You"'],
    ['an = source is a FEEL expression over the variables', '=x + 1', 2],
    ['a static source that looks like a number stays a string', '42', '42'],
    ['a space after the leading = still makes a FEEL expression', '= true', true],
    ['a static source containing = is the literal text, not a comparison', 'a = b', 'a = b'],
  ])('%s', async (_, source, expected) => {
    const input = `<zeebe:ioMapping><zeebe:input source="${source}" target="who" /></zeebe:ioMapping>`;
    const { jobs } = await run(single(`<zeebe:taskDefinition type="greet" />${input}`), ['greet'], { x: 1 });
    expect(jobs).toHaveLength(1);
    expect(jobs[0]!.variables.who).toStrictEqual(expected);
    if (expected === '"You"') expect(String(jobs[0]!.variables.who)).toHaveLength(5);
  });
});

describe('zeebe:output source', () => {
  it('a static output source sets the process variable to the literal string', async () => {
    const output = '<zeebe:ioMapping><zeebe:output source="done" target="status" /></zeebe:ioMapping>';
    const { engine, id, settled } = await run(single(`<zeebe:taskDefinition type="greet" />${output}`), ['greet']);
    expect(settled.status).toBe('completed');
    expect((await engine.instance(id))!.variables.status).toBe('done');
  });

  it("an = output source reads the handler's returned variables", async () => {
    const output = '<zeebe:ioMapping><zeebe:output source="=result.total" target="total" /></zeebe:ioMapping>';
    const engine = await engineWith(single(`<zeebe:taskDefinition type="sum" />${output}`), {
      sum: () => ({ result: { total: 42 } }),
    });
    const id = await engine.start(PROCESS);
    expect((await engine.settled(id)).status).toBe('completed');
    expect((await engine.instance(id))!.variables).toEqual({ total: 42 });
  });
});

describe('sequence flow conditions', () => {
  /** Start → gateway: `=x > 1` → high, `=x = 1` → one, default → other; each task to its own end. */
  function routed(high = '=x &gt; 1', one = '=x = 1'): string {
    const task = (id: string, row: number): El => ({
      tag: 'serviceTask',
      id,
      row,
      ext: '<zeebe:taskDefinition type="route" />',
    });
    const end = (id: string, row: number): El => ({ tag: 'endEvent', id, row });
    return modeler(
      [
        START,
        { tag: 'exclusiveGateway', id: 'Gateway_0k2j3h', name: 'x?', attrs: 'default="Flow_0dflt1"' },
        task('Activity_1high1', -1),
        task('Activity_1one11', 0),
        task('Activity_1other', 1),
        end('Event_1high1', -1),
        end('Event_1one11', 0),
        end('Event_1other', 1),
      ],
      [
        ['Flow_1a2b3c', 'StartEvent_1', 'Gateway_0k2j3h'],
        ['Flow_1high1', 'Gateway_0k2j3h', 'Activity_1high1', high],
        ['Flow_1one11', 'Gateway_0k2j3h', 'Activity_1one11', one],
        ['Flow_0dflt1', 'Gateway_0k2j3h', 'Activity_1other'],
        ['Flow_2high1', 'Activity_1high1', 'Event_1high1'],
        ['Flow_2one11', 'Activity_1one11', 'Event_1one11'],
        ['Flow_2other', 'Activity_1other', 'Event_1other'],
      ],
    );
  }

  it('a condition written as order == true is refused, with the fix =order = true in the message', async () => {
    const error = await refused(routed('order == true'));
    const issue = error.issues.find((i) => i.elementId === 'Flow_1high1');
    expect(issue).toBeDefined();
    expect(issue!.message).toContain('==');
    expect(issue!.message).toMatch(/equal/i);
    expect(issue!.message).toContain('=order = true');
  });

  it('a condition written without = (x > 1) is refused, with the fix =x > 1 in the message', async () => {
    const error = await refused(routed('x &gt; 1'));
    const issue = error.issues.find((i) => i.elementId === 'Flow_1high1');
    expect(issue).toBeDefined();
    expect(issue!.message).toContain('=x > 1');
  });

  it.each([
    [2, 'Activity_1high1'],
    [1, 'Activity_1one11'],
    [0, 'Activity_1other'],
  ])('with x = %i the = conditions route to %s (the default flow when none is true)', async (x, taken) => {
    const { jobs, settled } = await run(routed(), ['route'], { x });
    expect(settled.status).toBe('completed');
    expect(jobs.map((job) => job.elementId)).toEqual([taken]);
  });
});

describe('zeebe:subscription correlationKey', () => {
  function awaitPayment(correlationKey: string): string {
    const catchEvent: El = {
      tag: 'intermediateCatchEvent',
      id: 'Event_0pay1rc',
      name: 'Payment received',
      body: '<bpmn:messageEventDefinition id="MessageEventDefinition_0v3d9xk" messageRef="Message_2k1j0aa" />',
    };
    const message = `<bpmn:message id="Message_2k1j0aa" name="payment-received">
    <bpmn:extensionElements><zeebe:subscription correlationKey="${correlationKey}" /></bpmn:extensionElements>
  </bpmn:message>`;
    return modeler(
      [START, catchEvent, END],
      [
        ['Flow_1q2w3e', 'StartEvent_1', 'Event_0pay1rc'],
        ['Flow_0p9o8i', 'Event_0pay1rc', 'Event_0e9m3kd'],
      ],
      { roots: message },
    );
  }

  it.each([
    ['a static correlation key is matched as the literal text', 'order-1', {}, 'order-1'],
    ['an = correlation key is evaluated against the variables', '=orderId', { orderId: 'A7' }, 'A7'],
  ])('%s', async (_, correlationKey, variables, key) => {
    const { engine, id, settled } = await run(awaitPayment(correlationKey), [], variables);
    expect(settled.status).toBe('waiting');
    if (settled.status === 'waiting') expect(settled.subscriptions[0]?.correlationKey).toBe(key);
    expect(await engine.correlateMessage('payment-received', { correlationKey: key })).toEqual({
      correlated: true,
      instanceId: id,
      instanceIds: [id],
    });
    expect((await engine.settled(id)).status).toBe('completed');
  });
});

describe('timer timeDuration', () => {
  it.each([
    ['a static duration', 'PT1S'],
    ['an = duration() expression', '=duration(&quot;PT1S&quot;)'],
    ['an = string expression', '=&quot;PT1S&quot;'],
  ])('%s is accepted and waits one second', async (_, duration) => {
    const timer: El = {
      tag: 'intermediateCatchEvent',
      id: 'Event_1tmr2ab',
      name: '1 second',
      body: `<bpmn:timerEventDefinition id="TimerEventDefinition_0q8w7e"><bpmn:timeDuration xsi:type="bpmn:tFormalExpression">${duration}</bpmn:timeDuration></bpmn:timerEventDefinition>`,
    };
    const xml = modeler(
      [START, timer, END],
      [
        ['Flow_1q2w3e', 'StartEvent_1', 'Event_1tmr2ab'],
        ['Flow_0p9o8i', 'Event_1tmr2ab', 'Event_0e9m3kd'],
      ],
    );
    const clock = new VirtualClock();
    const engine = new Engine({ repository: createMemoryRepository(), clock: clock.view() });
    await expect(engine.deploy(xml)).resolves.toMatchObject({ processes: [PROCESS] });
    const id = await engine.start(PROCESS);
    const waiting = await engine.settled(id);
    expect(waiting.status === 'waiting' && waiting.timers.map((t) => t.dueAt)).toEqual([clock.now() + 1000]);
    clock.advanceTo(clock.now() + 1000);
    expect((await engine.settled(id)).status).toBe('completed');
  });
});

describe('zeebe:taskDefinition', () => {
  it('a static job type runs the handler registered under that text', async () => {
    const { jobs, settled } = await run(single('<zeebe:taskDefinition type="charge" />'), ['charge']);
    expect(settled.status).toBe('completed');
    expect(jobs.map((job) => job.taskType)).toEqual(['charge']);
  });

  it('an = job type is evaluated when the job is created and runs the handler of its value', async () => {
    const type = '=&quot;charge-&quot; + region';
    const { jobs, settled } = await run(single(`<zeebe:taskDefinition type="${type}" />`), ['charge', 'charge-eu'], {
      region: 'eu',
    });
    expect(settled.status).toBe('completed');
    expect(jobs.map((job) => job.taskType)).toEqual(['charge-eu']);
  });

  it('an = retries expression of 2 calls an always-failing handler exactly twice, then raises an incident', async () => {
    let calls = 0;
    const engine = await engineWith(single('<zeebe:taskDefinition type="charge" retries="=2" />'), {
      charge: () => {
        calls += 1;
        throw new Error('card declined');
      },
    });
    const id = await engine.start(PROCESS);
    const waiting = await engine.settled(id);
    expect(waiting.status).toBe('waiting');
    expect(waiting.status === 'waiting' && waiting.incidents.map((i) => i.kind)).toEqual(['job-failed']);
    expect(calls).toBe(2);
  });
});

describe('zeebe:assignmentDefinition assignee', () => {
  it.each([
    ['a static assignee is the literal user id', 'demo', {}, 'demo'],
    ['an = assignee is evaluated against the variables, not kept as text', '=owner', { owner: 'ann' }, 'ann'],
  ])('%s', async (_, assignee, variables, expected) => {
    const ext = `<zeebe:userTask /><zeebe:assignmentDefinition assignee="${assignee}" />`;
    const { engine, id, settled } = await run(single(ext, 'userTask'), [], variables);
    expect(settled.status).toBe('waiting');
    const tasks = await engine.userTasks({ instanceId: id });
    expect(tasks.map((task) => [task.elementId, task.assignee])).toEqual([['Activity_0x1abc', expected]]);
  });
});
