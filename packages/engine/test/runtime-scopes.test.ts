import { describe, expect, it } from 'vitest';
import type { Job } from '../src/index.js';
import { bpmn, chain, ext, flow } from './fixtures/bpmn/xml.js';
import { drained, engineWith, step, steps } from './fixtures/runtime.js';

describe('SubProcess', () => {
  const withSub = (io: string, inner: string, innerFlows: string) =>
    bpmn(`<bpmn:startEvent id="start" />
      <bpmn:subProcess id="sub">
        ${io ? ext(`<zeebe:ioMapping>${io}</zeebe:ioMapping>`) : ''}
        <bpmn:startEvent id="sub-start" />
        ${inner}
        <bpmn:endEvent id="sub-end" />
        ${innerFlows}
      </bpmn:subProcess>
      <bpmn:endEvent id="end" />
      ${chain('start', 'sub', 'end')}`);

  it('SubProcess#input should create a local visible inside and gone from the root after completion', async () => {
    // given an input mapping creating `local`
    const { handlers, jobs } = steps();
    const engine = await engineWith(
      withSub('<zeebe:input source="=n * 10" target="local" />', step('inner'), chain('sub-start', 'inner', 'sub-end')),
      handlers,
    );

    // when the instance runs
    const id = await engine.start('p', { variables: { n: 3 } });

    // then the inner task saw it, and the root never got it
    expect((await engine.settled(id)).status).toBe('completed');
    expect(jobs[0]!.variables).toEqual({ n: 3, local: 30 });
    const view = (await engine.instance(id))!;
    expect(view.variables).not.toHaveProperty('local');
    expect(Object.keys(view.scopes)).toEqual(['/']);
  });

  it('SubProcess#output should set the mapped root variable', async () => {
    // given an output mapping from the local
    const engine = await engineWith(
      withSub(
        '<zeebe:input source="=n" target="local" /><zeebe:output source="=local + 1" target="fromSub" />',
        '<bpmn:manualTask id="inner" />',
        chain('sub-start', 'inner', 'sub-end'),
      ),
    );

    // when the instance runs
    const id = await engine.start('p', { variables: { n: 1 } });

    // then only the mapped target reached the root
    expect((await engine.settled(id)).status).toBe('completed');
    expect((await engine.instance(id))!.variables).toEqual({ n: 1, fromSub: 2 });
  });

  it('should propagate a variable an inner task sets without mapping to the root', async () => {
    // given an inner task producing `innerRan` inside a sub-process with a local
    const { handlers } = steps();
    const engine = await engineWith(
      withSub('<zeebe:input source="=1" target="local" />', step('inner'), chain('sub-start', 'inner', 'sub-end')),
      handlers,
    );

    // when the instance runs
    const id = await engine.start('p');

    // then the variable landed in the root (Zeebe semantics), the local did not
    expect((await engine.settled(id)).status).toBe('completed');
    expect((await engine.instance(id))!.variables).toEqual({ innerRan: true });
  });

  it('should record inner elements in history with the sub-process scope', async () => {
    // given a sub-process with one inner task
    const engine = await engineWith(
      withSub('', '<bpmn:manualTask id="inner" />', chain('sub-start', 'inner', 'sub-end')),
    );

    // when it runs
    const id = await engine.start('p');
    await engine.settled(id);

    // then inner elements are in `/sub`, the others in `/`
    const history = (await engine.instance(id))!.history.map((entry) => `${entry.scope}|${entry.node}`);
    expect(history).toEqual(['/|start', '/sub|sub-start', '/sub|inner', '/sub|sub-end', '/|sub', '/|end']);
  });

  it('should run nested sub-processes, each inner element in its own scope', async () => {
    // given a sub-process inside a sub-process, with a local at each level
    const { handlers, jobs } = steps();
    const engine = await engineWith(
      withSub(
        '<zeebe:input source="=1" target="outerLocal" />',
        `<bpmn:subProcess id="inner">
          ${ext('<zeebe:ioMapping><zeebe:input source="=outerLocal + 1" target="innerLocal" /><zeebe:output source="=innerLocal" target="fromInner" /></zeebe:ioMapping>')}
          <bpmn:startEvent id="inner-start" />${step('deep')}<bpmn:endEvent id="inner-end" />
          ${chain('inner-start', 'deep', 'inner-end')}
        </bpmn:subProcess>`,
        chain('sub-start', 'inner', 'sub-end'),
      ),
      handlers,
    );

    // when it runs
    const id = await engine.start('p');

    // then the deepest task saw both locals and only mapped or propagated variables reached the root
    expect((await engine.settled(id)).status).toBe('completed');
    expect(jobs[0]!.variables).toEqual({ outerLocal: 1, innerLocal: 2 });
    expect((await engine.instance(id))!.variables).toEqual({ deepRan: true, fromInner: 2 });
    const deep = (await engine.instance(id))!.history.find((entry) => entry.node === 'deep');
    expect(deep?.scope).toBe('/sub/inner');
  });

  it('should give concurrent activations of one sub-process their own scopes', async () => {
    // given two tokens entering the same sub-process, each parking on a user task inside
    const engine = await engineWith(
      bpmn(`<bpmn:startEvent id="start" />
        <bpmn:parallelGateway id="fork" /><bpmn:exclusiveGateway id="merge" />
        <bpmn:subProcess id="sub">
          ${ext('<zeebe:ioMapping><zeebe:input source="=0" target="local" /></zeebe:ioMapping>')}
          <bpmn:startEvent id="sub-start" /><bpmn:userTask id="review" /><bpmn:endEvent id="sub-end" />
          ${chain('sub-start', 'review', 'sub-end')}
        </bpmn:subProcess>
        <bpmn:endEvent id="end" />
        ${chain('start', 'fork')}${flow('f1', 'fork', 'merge')}${flow('f2', 'fork', 'merge')}
        ${chain('merge', 'sub', 'end')}`),
    );
    const id = await engine.start('p');

    // when both activations wait
    await engine.settled(id);

    // then each has its own scope, and completing a task in each completes the instance
    expect(Object.keys((await engine.instance(id))!.scopes).sort()).toEqual(['/', '/sub', '/sub#2']);
    const tasks = await engine.userTasks({ instanceId: id });
    expect(tasks).toHaveLength(2);
    for (const task of tasks) await engine.completeUserTask(task.id, { local: task.id });
    expect((await engine.settled(id)).status).toBe('completed');
    const reviews = (await engine.instance(id))!.history.filter((entry) => entry.node === 'review');
    expect(reviews.map((entry) => entry.scope).sort()).toEqual(['/sub', '/sub#2']);
    expect((await engine.instance(id))!.variables).toEqual({});
  });

  it('should run a sub-process entered twice by a loop', async () => {
    // given a loop back into the sub-process while a counter is below 2
    const { handlers, jobs } = steps();
    const engine = await engineWith(
      bpmn(`<bpmn:startEvent id="start" />
        <bpmn:subProcess id="sub">
          <bpmn:startEvent id="sub-start" />${step('inner')}<bpmn:endEvent id="sub-end" />
          ${chain('sub-start', 'inner', 'sub-end')}
        </bpmn:subProcess>
        <bpmn:scriptTask id="count">${ext('<zeebe:script expression="=counter + 1" resultVariable="counter" />')}</bpmn:scriptTask>
        <bpmn:exclusiveGateway id="again" default="done" />
        <bpmn:endEvent id="end" />
        ${chain('start', 'sub', 'count', 'again')}
        ${flow('back', 'again', 'sub', '=counter &lt; 2')}
        ${flow('done', 'again', 'end')}`),
      handlers,
    );

    // when it runs
    const id = await engine.start('p', { variables: { counter: 0 } });

    // then the sub-process ran twice, as two invocations of its inner task
    expect((await engine.settled(id)).status).toBe('completed');
    const view = (await engine.instance(id))!;
    expect(view.variables).toEqual({ counter: 2, innerRan: true });
    expect(jobs).toHaveLength(2);
    expect(jobs[0]!.idempotencyKey).not.toBe(jobs[1]!.idempotencyKey);
    expect(view.history.filter((entry) => entry.node === 'sub')).toHaveLength(2);
    // each pass is its own activation, with its own scope path
    expect(view.history.filter((entry) => entry.node === 'inner').map((entry) => entry.scope)).toEqual([
      '/sub',
      '/sub#2',
    ]);
  });
});

describe('TerminateEndEvent', () => {
  it('should terminate the instance at the root, cancelling open tasks and ignoring late job results', async () => {
    // given a fork into an open user task, a slow service task and a user task leading to termination
    let release!: (value: { late: boolean }) => void;
    const slowCalls: Job[] = [];
    const engine = await engineWith(
      bpmn(`<bpmn:startEvent id="start" />
        <bpmn:parallelGateway id="fork" />
        <bpmn:userTask id="review" />
        <bpmn:serviceTask id="slow">${ext('<zeebe:taskDefinition type="slow" />')}</bpmn:serviceTask>
        <bpmn:userTask id="stop" />
        <bpmn:endEvent id="kill"><bpmn:terminateEventDefinition /></bpmn:endEvent>
        <bpmn:endEvent id="end" />
        ${chain('start', 'fork')}
        ${flow('f1', 'fork', 'review')}${flow('f2', 'fork', 'slow')}${flow('f3', 'fork', 'stop')}
        ${flow('e1', 'review', 'end')}${flow('e2', 'slow', 'end')}${flow('e3', 'stop', 'kill')}`),
      {
        slow: (job) => {
          slowCalls.push(job);
          return new Promise((resolve) => {
            release = resolve;
          });
        },
      },
    );
    const id = await engine.start('p');
    const stop = (await engine.userTasks({ instanceId: id, elementId: 'stop' }))[0]!;

    const terminated: string[] = [];
    engine.on('instance.terminated', (event) => terminated.push(event.elementId));

    // when the terminating branch completes while the slow job is in flight
    await engine.completeUserTask(stop.id);
    const settled = await engine.settled(id);

    // then the instance is terminated and the other user task is gone
    expect(settled.status).toBe('terminated');
    expect(terminated).toEqual(['kill']);
    expect(await engine.userTasks({ instanceId: id })).toEqual([]);
    const after = (await engine.instance(id))!;
    expect(after.status).toBe('terminated');

    // when the slow handler's result arrives afterwards
    expect(slowCalls).toHaveLength(1);
    release({ late: true });
    await drained(); // where the result would have been applied

    // then it changes nothing
    expect(await engine.instance(id)).toEqual(after);
    expect(after.variables).not.toHaveProperty('late');
    expect(after.history.map((entry) => entry.node)).not.toContain('slow');
  });

  it('should end only the sub-process when reached inside one, and continue after it', async () => {
    // given a sub-process with a parallel user task and a terminate end
    const { handlers, ran } = steps();
    const engine = await engineWith(
      bpmn(`<bpmn:startEvent id="start" />
        <bpmn:subProcess id="sub">
          <bpmn:startEvent id="sub-start" />
          <bpmn:parallelGateway id="fork" />
          <bpmn:userTask id="review" />
          <bpmn:endEvent id="sub-end" />
          <bpmn:endEvent id="sub-kill"><bpmn:terminateEventDefinition /></bpmn:endEvent>
          ${chain('sub-start', 'fork')}
          ${flow('f1', 'fork', 'review')}${flow('f2', 'fork', 'sub-kill')}${flow('f3', 'review', 'sub-end')}
        </bpmn:subProcess>
        ${step('after')}
        <bpmn:endEvent id="end" />
        ${chain('start', 'sub', 'after', 'end')}`),
      handlers,
    );

    // when it runs
    const id = await engine.start('p');

    // then the sub-process ended early and the process completed after it
    expect((await engine.settled(id)).status).toBe('completed');
    expect(ran('after')).toBe(1);
    expect(await engine.userTasks({ instanceId: id })).toEqual([]);
    const history = (await engine.instance(id))!.history.map((entry) => `${entry.scope}|${entry.node}`);
    expect(history).toContain('/sub|sub-kill');
    expect(history).not.toContain('/sub|review');
    expect(history.slice(-3)).toEqual(['/|sub', '/|after', '/|end']);
  });

  it('should give a re-entered task a new idempotency key when its previous invocation was cancelled', async () => {
    // given a loop over a sub-process whose service task is cancelled by a terminate end on the first pass
    const jobs: Job[] = [];
    const engine = await engineWith(
      bpmn(`<bpmn:startEvent id="start" />
        <bpmn:subProcess id="sub">
          <bpmn:startEvent id="sub-start" /><bpmn:parallelGateway id="fork" />
          <bpmn:serviceTask id="slow">${ext('<zeebe:taskDefinition type="slow" />')}</bpmn:serviceTask>
          <bpmn:userTask id="stop" />
          <bpmn:endEvent id="sub-end" /><bpmn:endEvent id="sub-kill"><bpmn:terminateEventDefinition /></bpmn:endEvent>
          ${chain('sub-start', 'fork')}${flow('f1', 'fork', 'slow')}${flow('f2', 'fork', 'stop')}
          ${flow('f3', 'slow', 'sub-end')}${flow('f4', 'stop', 'sub-kill')}
        </bpmn:subProcess>
        <bpmn:exclusiveGateway id="again" default="out" /><bpmn:endEvent id="end" />
        ${chain('start', 'sub', 'again')}${flow('back', 'again', 'sub', '=loop')}${flow('out', 'again', 'end')}`),
      {
        slow: (job) => {
          jobs.push(job);
          return new Promise(() => {}); // still in flight when the terminate end cancels it
        },
      },
    );
    const id = await engine.start('p', { variables: { loop: true } });

    // when the first pass is terminated and the loop runs the sub-process again
    const [first] = await engine.userTasks({ instanceId: id });
    await engine.completeUserTask(first!.id, { loop: true });
    const [second] = await engine.userTasks({ instanceId: id });
    await engine.completeUserTask(second!.id, { loop: false });
    expect((await engine.settled(id)).status).toBe('completed');

    // then the two dispatches of `slow` were two invocations with two keys
    expect(jobs).toHaveLength(2);
    expect(jobs[1]!.idempotencyKey).not.toBe(jobs[0]!.idempotencyKey);
  });
});
