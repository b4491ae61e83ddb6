import { describe, expect, it } from 'vitest';
import type { Engine } from '../src/engine.js';
import { bpmn, chain, flow } from './fixtures/bpmn/xml.js';
import { engineWith, step, steps } from './fixtures/runtime.js';

async function completed(engine: Engine, id: string): Promise<string[]> {
  return (await engine.instance(id))!.history.map((entry) => entry.node);
}

describe('ExclusiveGateway', () => {
  const choice = (defaultFlow = '') =>
    bpmn(`<bpmn:startEvent id="start" />
      <bpmn:exclusiveGateway id="gw"${defaultFlow ? ` default="${defaultFlow}"` : ''} />
      ${step('a')}${step('b')}${step('c')}
      <bpmn:endEvent id="end" />
      ${chain('start', 'gw')}
      ${flow('fa', 'gw', 'a', '=x &gt; 1')}
      ${flow('fb', 'gw', 'b', '=x &gt; 0')}
      ${defaultFlow ? flow(defaultFlow, 'gw', 'c') : ''}
      ${flow('fa-end', 'a', 'end')}${flow('fb-end', 'b', 'end')}${defaultFlow ? flow('fc-end', 'c', 'end') : ''}`);

  it('ExclusiveGateway#condition should take the first true condition in document order', async () => {
    // given two conditions that both hold
    const { handlers, ran } = steps();
    const engine = await engineWith(choice('fc'), handlers);

    // when the instance runs
    const id = await engine.start('p', { variables: { x: 5 } });

    // then only the first was taken
    expect((await engine.settled(id)).status).toBe('completed');
    expect([ran('a'), ran('b'), ran('c')]).toEqual([1, 0, 0]);
  });

  it('ExclusiveGateway#default should be taken when no condition holds', async () => {
    // given conditions that do not hold
    const { handlers, ran } = steps();
    const engine = await engineWith(choice('fc'), handlers);

    // when the instance runs
    const id = await engine.start('p', { variables: { x: 0 } });

    // then the default was taken
    expect((await engine.settled(id)).status).toBe('completed');
    expect([ran('a'), ran('b'), ran('c')]).toEqual([0, 0, 1]);
  });

  it('should raise a no-flow-taken incident naming the gateway when nothing holds and there is no default', async () => {
    // given no default flow
    const { handlers, jobs } = steps();
    const engine = await engineWith(choice(), handlers);

    // when no condition holds
    const id = await engine.start('p', { variables: { x: -1 } });
    const settled = await engine.settled(id);

    // then the instance waits on an incident at the gateway
    if (settled.status !== 'waiting') throw new Error(`expected waiting, got ${settled.status}`);
    expect(settled.incidents).toHaveLength(1);
    expect(settled.incidents[0]).toMatchObject({ kind: 'no-flow-taken', nodeId: 'gw' });
    expect(settled.incidents[0]!.message).toContain('"gw"');
    expect((await engine.instance(id))!.status).toBe('running');
    expect(jobs).toEqual([]);
  });

  it('ExclusiveGateway#condition should raise an expression-failed incident when a condition fails at run time', async () => {
    // given a condition whose assertion fails (a failure in feel-scala, not a suppressed one)
    const engine = await engineWith(
      bpmn(`<bpmn:startEvent id="start" /><bpmn:exclusiveGateway id="gw" /><bpmn:endEvent id="end" />
        ${chain('start', 'gw')}${flow('broken', 'gw', 'end', '=assert(x, x != null)')}`),
    );

    // when the instance reaches the gateway
    const id = await engine.start('p');
    const settled = await engine.settled(id);

    // then it waits on an incident at the gateway naming the flow
    if (settled.status !== 'waiting') throw new Error(`expected waiting, got ${settled.status}`);
    expect(settled.incidents).toHaveLength(1);
    expect(settled.incidents[0]).toMatchObject({ kind: 'expression-failed', nodeId: 'gw', resume: 'leave' });
    expect(settled.incidents[0]!.message).toContain('"broken"');
  });

  it('should pass every arriving token through when it merges', async () => {
    // given a parallel fork whose branches merge at an exclusive gateway
    const { handlers, jobs, ran } = steps();
    const engine = await engineWith(
      bpmn(`<bpmn:startEvent id="start" />
        <bpmn:parallelGateway id="fork" />
        <bpmn:manualTask id="left" /><bpmn:manualTask id="right" />
        <bpmn:exclusiveGateway id="merge" />
        ${step('down')}
        <bpmn:endEvent id="end" />
        ${chain('start', 'fork')}
        ${flow('f1', 'fork', 'left')}${flow('f2', 'fork', 'right')}
        ${flow('f3', 'left', 'merge')}${flow('f4', 'right', 'merge')}
        ${chain('merge', 'down', 'end')}`),
      handlers,
    );

    // when both tokens arrive
    const id = await engine.start('p');

    // then the task after the merge ran once per token
    expect((await engine.settled(id)).status).toBe('completed');
    expect(ran('down')).toBe(2);
    expect((await completed(engine, id)).filter((node) => node === 'end')).toHaveLength(2);
    expect(jobs).toHaveLength(2);
  });

  it('should give each token passing a merge its own idempotency key', async () => {
    // given a parallel fork merging at an exclusive gateway before a service task
    const { handlers, jobs } = steps();
    const engine = await engineWith(
      bpmn(`<bpmn:startEvent id="start" />
        <bpmn:parallelGateway id="fork" />
        <bpmn:exclusiveGateway id="merge" />
        ${step('down')}
        <bpmn:endEvent id="end" />
        ${chain('start', 'fork')}
        ${flow('f1', 'fork', 'merge')}${flow('f2', 'fork', 'merge')}
        ${chain('merge', 'down', 'end')}`),
      handlers,
    );

    // when both tokens run the task
    const id = await engine.start('p');
    await engine.settled(id);

    // then they are two invocations, with two keys
    expect(jobs).toHaveLength(2);
    expect(jobs[0]!.idempotencyKey).not.toBe(jobs[1]!.idempotencyKey);
  });
});

describe('ParallelGateway', () => {
  it('should run every branch and continue once after the join waited for all three', async () => {
    // given a three-way fork and join
    const { handlers, ran } = steps();
    const engine = await engineWith(
      bpmn(`<bpmn:startEvent id="start" />
        <bpmn:parallelGateway id="fork" />
        ${step('a')}${step('b')}${step('c')}
        <bpmn:parallelGateway id="join" />
        ${step('after')}
        <bpmn:endEvent id="end" />
        ${chain('start', 'fork')}
        ${flow('f1', 'fork', 'a')}${flow('f2', 'fork', 'b')}${flow('f3', 'fork', 'c')}
        ${flow('j1', 'a', 'join')}${flow('j2', 'b', 'join')}${flow('j3', 'c', 'join')}
        ${chain('join', 'after', 'end')}`),
      handlers,
    );

    // when it runs
    const id = await engine.start('p');

    // then each branch ran, and the task after the join once
    expect((await engine.settled(id)).status).toBe('completed');
    expect([ran('a'), ran('b'), ran('c'), ran('after')]).toEqual([1, 1, 1, 1]);
    expect((await completed(engine, id)).filter((node) => node === 'end')).toHaveLength(1);
    expect((await engine.instance(id))!.variables).toEqual({ aRan: true, bRan: true, cRan: true, afterRan: true });
  });

  it('should hold the join while one branch waits on a user task', async () => {
    // given a fork with a user task on one branch
    const { handlers, ran } = steps();
    const engine = await engineWith(
      bpmn(`<bpmn:startEvent id="start" />
        <bpmn:parallelGateway id="fork" />
        ${step('a')}<bpmn:userTask id="review" />
        <bpmn:parallelGateway id="join" />
        ${step('after')}
        <bpmn:endEvent id="end" />
        ${chain('start', 'fork')}
        ${flow('f1', 'fork', 'a')}${flow('f2', 'fork', 'review')}
        ${flow('j1', 'a', 'join')}${flow('j2', 'review', 'join')}
        ${chain('join', 'after', 'end')}`),
      handlers,
    );
    const id = await engine.start('p');

    // when the service branch is done and the user task is open
    const waiting = await engine.settled(id);

    // then nothing ran after the join
    expect(waiting.status).toBe('waiting');
    expect([ran('a'), ran('after')]).toEqual([1, 0]);

    // when the user task completes, then the join fires once
    const [task] = await engine.userTasks({ instanceId: id });
    await engine.completeUserTask(task!.id);
    expect((await engine.settled(id)).status).toBe('completed');
    expect(ran('after')).toBe(1);
  });
});

describe('InclusiveGateway', () => {
  const inclusive = (reviewBranch = false, defaultFlow = true) =>
    bpmn(`<bpmn:startEvent id="start" />
      <bpmn:inclusiveGateway id="split"${defaultFlow ? ' default="gd"' : ''} />
      ${step('a')}${reviewBranch ? '<bpmn:userTask id="b" />' : step('b')}${step('c')}${defaultFlow ? step('d') : ''}
      <bpmn:inclusiveGateway id="merge" />
      ${step('after')}
      <bpmn:endEvent id="end" />
      ${chain('start', 'split')}
      ${flow('ga', 'split', 'a', '=wantA')}
      ${flow('gb', 'split', 'b', '=wantB')}
      ${flow('gc', 'split', 'c', '=wantC')}
      ${defaultFlow ? flow('gd', 'split', 'd') : ''}
      ${flow('ma', 'a', 'merge')}${flow('mb', 'b', 'merge')}${flow('mc', 'c', 'merge')}
      ${defaultFlow ? flow('md', 'd', 'merge') : ''}
      ${chain('merge', 'after', 'end')}`);

  it('InclusiveGateway#condition should take every true condition and join exactly those once', async () => {
    // given two of three conditions hold
    const { handlers, ran } = steps();
    const engine = await engineWith(inclusive(), handlers);

    // when the instance runs
    const id = await engine.start('p', { variables: { wantA: true, wantB: false, wantC: true } });

    // then both taken branches ran, the default did not, and the join fired once
    expect((await engine.settled(id)).status).toBe('completed');
    expect([ran('a'), ran('b'), ran('c'), ran('d'), ran('after')]).toEqual([1, 0, 1, 0, 1]);
    expect((await completed(engine, id)).filter((node) => node === 'merge')).toHaveLength(1);
  });

  it('InclusiveGateway#default should be the only flow taken when no condition holds', async () => {
    // given no condition holds
    const { handlers, ran } = steps();
    const engine = await engineWith(inclusive(), handlers);

    // when the instance runs
    const id = await engine.start('p', { variables: { wantA: false, wantB: false, wantC: false } });

    // then only the default ran
    expect((await engine.settled(id)).status).toBe('completed');
    expect([ran('a'), ran('b'), ran('c'), ran('d'), ran('after')]).toEqual([0, 0, 0, 1, 1]);
  });

  it('should let the join wait for a token that can still arrive', async () => {
    // given one taken branch parked on a user task and another one done
    const { handlers, ran } = steps();
    const engine = await engineWith(inclusive(true), handlers);
    const id = await engine.start('p', { variables: { wantA: true, wantB: true, wantC: false } });

    // when the instance waits
    const waiting = await engine.settled(id);

    // then the task after the join has not run
    expect(waiting.status).toBe('waiting');
    expect([ran('a'), ran('after')]).toEqual([1, 0]);

    // when the user task completes, then the join fires once
    const [task] = await engine.userTasks({ instanceId: id });
    await engine.completeUserTask(task!.id, { reviewed: true });
    expect((await engine.settled(id)).status).toBe('completed');
    expect(ran('after')).toBe(1);
    expect((await completed(engine, id)).filter((node) => node === 'merge')).toHaveLength(1);
  });

  it('should raise a no-flow-taken incident when no condition holds and there is no default', async () => {
    // given no default flow
    const { handlers, jobs } = steps();
    const engine = await engineWith(inclusive(false, false), handlers);

    // when no condition holds
    const id = await engine.start('p', { variables: { wantA: false } });
    const settled = await engine.settled(id);

    // then the split waits on an incident
    if (settled.status !== 'waiting') throw new Error(`expected waiting, got ${settled.status}`);
    expect(settled.incidents).toHaveLength(1);
    expect(settled.incidents[0]).toMatchObject({ kind: 'no-flow-taken', nodeId: 'split' });
    expect(jobs).toEqual([]);
  });
});
