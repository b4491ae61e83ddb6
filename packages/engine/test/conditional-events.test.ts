/**
 * Conditional events (Camunda 8.9): checked after every step. An intermediate catch completes the first time
 * its condition holds; a boundary event and an event sub-process start fire when it turns true (a
 * non-interrupting one again only after it was false). A process's conditional start events are evaluated
 * when asked (`evaluateConditionals`). A `zeebe:conditionalFilter` narrows the checks to the changes it names.
 */
import { createMemoryRepository } from '@thresher/checkpoint';
import { describe, expect, it } from 'vitest';
import { ModelError } from '../src/common/errors.js';
import { Engine } from '../src/engine.js';
import { around, boundary, bpmn, chain, definitions, ext, flow, process } from './fixtures/bpmn/xml.js';

const job = (id: string) =>
  `<bpmn:serviceTask id="${id}">${ext(`<zeebe:taskDefinition type="${id}" />`)}</bpmn:serviceTask>`;

const when = (condition: string, filter = '') =>
  `<bpmn:conditionalEventDefinition>${filter}<bpmn:condition xsi:type="bpmn:tFormalExpression">${condition}</bpmn:condition></bpmn:conditionalEventDefinition>`;

const conditionalCatch = (id: string, condition: string) =>
  `<bpmn:intermediateCatchEvent id="${id}">${when(condition)}</bpmn:intermediateCatchEvent>`;

/** A fork: one branch waits on `x > 5` at `wait`, the other runs the job `bump`, which sets x. */
const RACE = bpmn(`
  <bpmn:startEvent id="start" />
  <bpmn:parallelGateway id="fork" />
  ${conditionalCatch('wait', '=x &gt; 5')}
  <bpmn:serviceTask id="bump">${ext('<zeebe:taskDefinition type="bump" />')}</bpmn:serviceTask>
  <bpmn:parallelGateway id="join" />
  <bpmn:endEvent id="end" />
  ${chain('start', 'fork', 'wait', 'join', 'end')}
  ${flow('f_fork_bump', 'fork', 'bump')}
  ${flow('f_bump_join', 'bump', 'join')}`);

function engine(handlers: ConstructorParameters<typeof Engine>[0]['handlers'] = {}): Engine {
  return new Engine({ repository: createMemoryRepository(), handlers });
}

const runs = (history: { node: string }[], node: string) => history.filter((entry) => entry.node === node).length;

describe('a conditional intermediate catch event', () => {
  it('should pass at once when its condition holds as the token arrives', async () => {
    const e = engine();
    await e.deploy(around(conditionalCatch('x', '=amount &gt; 100')));
    const id = await e.start('p', { variables: { amount: 150 } });
    expect((await e.settled(id)).status).toBe('completed');
    await e.close();
  });

  it('should wait while it does not hold, and go on, once, in the step that makes it hold', async () => {
    const e = engine({ bump: () => ({ x: 10 }) });
    await e.deploy(RACE);
    const id = await e.start('p', { variables: { x: 1 } });
    expect((await e.settled(id)).status).toBe('completed');
    const view = await e.instance(id);
    expect(runs(view!.history, 'wait')).toBe(1);
    expect(runs(view!.history, 'end')).toBe(1);
    await e.close();
  });

  it('should keep waiting after a step that leaves it false', async () => {
    const e = engine({ bump: () => ({ x: 3 }) });
    await e.deploy(RACE);
    const id = await e.start('p', { variables: { x: 1 } });
    const settled = await e.settled(id);
    expect(settled.status).toBe('waiting');
    expect((await e.instance(id))?.activeElements).toContain('wait');
    await e.close();
  });

  it('should go on when a user task completes with the variable that makes it hold', async () => {
    const e = engine();
    await e.deploy(
      bpmn(`
        <bpmn:startEvent id="start" />
        <bpmn:parallelGateway id="fork" />
        ${conditionalCatch('wait', '=approved = true')}
        <bpmn:userTask id="review" />
        <bpmn:endEvent id="end1" /><bpmn:endEvent id="end2" />
        ${chain('start', 'fork', 'wait', 'end1')}
        ${flow('f_fork_review', 'fork', 'review')}
        ${flow('f_review_end2', 'review', 'end2')}`),
    );
    const id = await e.start('p');
    const settled = await e.settled(id);
    if (settled.status !== 'waiting') throw new Error('expected the review to wait');
    await e.completeUserTask(settled.userTasks[0]!.id, { approved: true });
    expect((await e.settled(id)).status).toBe('completed');
    await e.close();
  });

  it('should raise an incident when its condition is not true or false', async () => {
    const e = engine();
    await e.deploy(around(conditionalCatch('x', '=amount')));
    const id = await e.start('p', { variables: { amount: 3 } });
    const settled = await e.settled(id);
    expect(settled.status === 'waiting' && settled.incidents).toEqual([
      expect.objectContaining({ nodeId: 'x', message: expect.stringContaining('it must be true or false') }),
    ]);
    await e.close();
  });
});

/** A user task `review` with a conditional boundary `alarm` on `x > 5`, beside a branch of jobs `steps`. */
function watched(interrupting: boolean, steps: string[], filter = '') {
  return bpmn(`
    <bpmn:startEvent id="start" />
    <bpmn:parallelGateway id="fork" />
    <bpmn:userTask id="review" />
    ${boundary('alarm', 'review', when('=x &gt; 5', filter), interrupting ? '' : 'cancelActivity="false"')}
    <bpmn:serviceTask id="raise">${ext('<zeebe:taskDefinition type="raise" />')}</bpmn:serviceTask>
    <bpmn:endEvent id="reviewed" /><bpmn:endEvent id="raised" /><bpmn:endEvent id="stepped" />
    ${steps.map(job).join('')}
    ${chain('start', 'fork', 'review', 'reviewed')}
    ${chain('alarm', 'raise', 'raised')}
    ${steps.length > 0 ? `${flow('f_fork_steps', 'fork', steps[0]!)}${chain(...steps, 'stepped')}` : ''}`);
}

describe('a conditional boundary event', () => {
  it('should interrupt its activity in the step that makes its condition hold', async () => {
    const e = engine({ set: () => ({ x: 10 }), raise: () => ({}) });
    await e.deploy(watched(true, ['set']));
    const id = await e.start('p', { variables: { x: 0 } });
    expect((await e.settled(id)).status).toBe('completed');
    const view = await e.instance(id);
    expect(runs(view!.history, 'raised')).toBe(1);
    expect(runs(view!.history, 'reviewed')).toBe(0);
    await e.close();
  });

  it('should fire as its activity is entered when its condition already holds', async () => {
    const e = engine({ raise: () => ({}) });
    await e.deploy(watched(true, []));
    const id = await e.start('p', { variables: { x: 7 } });
    expect((await e.settled(id)).status).toBe('completed');
    expect(runs((await e.instance(id))!.history, 'raised')).toBe(1);
    await e.close();
  });

  it('should, not interrupting, fire each time its condition turns true and not while it stays true', async () => {
    let raised = 0;
    const values = [10, 11, 0, 20];
    const handlers = Object.fromEntries(values.map((x, i) => [`s${i}`, () => ({ x })]));
    const e = engine({ ...handlers, raise: () => ({ raised: ++raised }) });
    await e.deploy(
      watched(
        false,
        values.map((_, i) => `s${i}`),
      ),
    );
    const id = await e.start('p', { variables: { x: 0 } });
    const settled = await e.settled(id);
    if (settled.status !== 'waiting') throw new Error('expected the review to wait');
    expect(runs((await e.instance(id))!.history, 'raised')).toBe(2);
    await e.completeUserTask(settled.userTasks[0]!.id);
    expect((await e.settled(id)).status).toBe('completed');
    await e.close();
  });
});

describe('a zeebe:conditionalFilter', () => {
  const filter = (attributes: string) => ext(`<zeebe:conditionalFilter ${attributes} />`);

  async function raisedAfter(attributes: string, steps: Record<string, Record<string, unknown>>) {
    let raised = 0;
    const handlers = Object.fromEntries(Object.entries(steps).map(([id, result]) => [id, () => result]));
    const e = engine({ ...handlers, raise: () => ({ raised: ++raised }) });
    await e.deploy(watched(false, Object.keys(steps), filter(attributes)));
    const id = await e.start('p', { variables: { x: 0 } });
    await e.settled(id);
    await e.close();
    return raised;
  }

  it('should check the condition only after a step that changes a variable it names', async () => {
    // x turns true, but only `go` is watched: the alarm waits for go, then finds x true.
    expect(await raisedAfter('variableNames="go"', { s0: { x: 10 } })).toBe(0);
    expect(await raisedAfter('variableNames="go"', { s0: { x: 10 }, s1: { go: 1 } })).toBe(1);
  });

  it('should check it only on the events it names: an update, not a creation', async () => {
    expect(await raisedAfter('variableNames="x" variableEvents="create"', { s0: { x: 10 } })).toBe(0);
    expect(await raisedAfter('variableNames="x" variableEvents="update"', { s0: { x: 10 } })).toBe(1);
    expect(await raisedAfter('variableNames="go" variableEvents="update"', { s0: { x: 10 }, s1: { go: 1 } })).toBe(0);
  });
});

describe('a conditional event sub-process start', () => {
  const guarded = (interrupting: boolean) =>
    bpmn(`
      <bpmn:startEvent id="start" />
      <bpmn:parallelGateway id="fork" />
      <bpmn:userTask id="review" />
      <bpmn:endEvent id="end" />
      ${job('flag')}
      <bpmn:endEvent id="flagged" />
      ${chain('start', 'fork', 'review', 'end')}
      ${flow('f_fork_flag', 'fork', 'flag')}${chain('flag', 'flagged')}
      <bpmn:subProcess id="guard" triggeredByEvent="true">
        <bpmn:startEvent id="guard-start" isInterrupting="${interrupting}">${when('=cancelled = true')}</bpmn:startEvent>
        <bpmn:endEvent id="guard-end" />
        ${chain('guard-start', 'guard-end')}
      </bpmn:subProcess>`);

  it('should start, interrupting, when a step makes its condition hold', async () => {
    const e = engine({ flag: () => ({ cancelled: true }) });
    await e.deploy(guarded(true));
    const id = await e.start('p', { variables: { cancelled: false } });
    expect((await e.settled(id)).status).toBe('completed');
    const history = (await e.instance(id))!.history;
    expect(runs(history, 'guard-end')).toBe(1);
    expect(runs(history, 'end')).toBe(0);
    await e.close();
  });

  it('should start, not interrupting, beside the work it watches, once', async () => {
    const e = engine({ flag: () => ({ cancelled: true }) });
    await e.deploy(guarded(false));
    const id = await e.start('p', { variables: { cancelled: false } });
    const settled = await e.settled(id);
    if (settled.status !== 'waiting') throw new Error('expected the review to wait');
    expect(runs((await e.instance(id))!.history, 'guard-end')).toBe(1);
    await e.completeUserTask(settled.userTasks[0]!.id);
    expect((await e.settled(id)).status).toBe('completed');
    expect(runs((await e.instance(id))!.history, 'guard-end')).toBe(1);
    await e.close();
  });
});

describe("a process's conditional start event", () => {
  const started = (condition: string, id = 'p') =>
    definitions(
      process(
        `<bpmn:startEvent id="big">${when(condition)}</bpmn:startEvent><bpmn:endEvent id="end" />${chain('big', 'end')}`,
        id,
      ),
      `${id}-defs`,
    );

  it('should start an instance, with the variables, when evaluateConditionals finds its condition true', async () => {
    const e = engine();
    await e.deploy(started('=amount &gt; 100'));
    expect(await e.evaluateConditionals({ variables: { amount: 50 } })).toEqual([]);
    const [start, ...more] = await e.evaluateConditionals({ variables: { amount: 150 } });
    expect(more).toEqual([]);
    expect(start).toMatchObject({ processId: 'p', startEventId: 'big' });
    expect((await e.settled(start!.instanceId)).status).toBe('completed');
    expect((await e.instance(start!.instanceId))?.variables).toEqual({ amount: 150 });
    await e.close();
  });

  it('should evaluate only the process named, in its latest version', async () => {
    const e = engine();
    await e.deploy(started('=true', 'one'));
    await e.deploy(started('=true', 'two'));
    const only = await e.evaluateConditionals({ variables: {}, processId: 'two' });
    expect(only.map((start) => start.processId)).toEqual(['two']);
    await e.close();
  });

  it('should throw, starting nothing, when a condition is neither true nor false', async () => {
    const e = engine();
    await e.deploy(started('=amount'));
    await expect(e.evaluateConditionals({ variables: { amount: 3 } })).rejects.toThrow(/big.*must be boolean/);
    await e.close();
  });
});

describe('conditional events as the compiler reads them', () => {
  const refused = async (xml: string) => {
    const e = engine();
    const error = await e.deploy(xml).catch((caught: unknown) => caught);
    await e.close();
    return error instanceof ModelError ? error.issues.map((issue) => issue.message) : error;
  };

  it('should refuse a condition without "=", showing the FEEL form', async () => {
    expect(await refused(around(conditionalCatch('x', 'amount &gt; 100')))).toEqual([
      expect.stringContaining('condition'),
    ]);
  });

  it('should refuse a zeebe:conditionalFilter with an event that is not create or update', async () => {
    const filtered = `<bpmn:intermediateCatchEvent id="x">${when('=a', ext('<zeebe:conditionalFilter variableEvents="delete" />'))}</bpmn:intermediateCatchEvent>`;
    expect(await refused(around(filtered))).toEqual([
      expect.stringContaining('variableEvents "delete" is not create or update'),
    ]);
  });
});
