import { UnencodableValueError, type Variables } from '@thresher/checkpoint';
import { describe, expect, it } from 'vitest';
import { EngineErrorCode, NotFoundError } from '../src/common/errors.js';
import type { EngineEvent, Handlers, Job } from '../src/index.js';
import { around, bpmn, chain, ext } from './fixtures/bpmn/xml.js';
import { engineWith } from './fixtures/runtime.js';

/** A service task `x`; `extra` goes inside its extension elements. */
function serviceTask(taskDefinition: string, extra = ''): string {
  return `<bpmn:serviceTask id="x">${ext(`${taskDefinition}${extra}`)}</bpmn:serviceTask>`;
}

function recording(result: (job: Job) => unknown = () => ({})): { jobs: Job[]; handler: Handlers[string] } {
  const jobs: Job[] = [];
  return {
    jobs,
    handler: (job) => {
      jobs.push(job);
      return result(job) as Variables;
    },
  };
}

describe('ServiceTask', () => {
  it('ServiceTask#handler should get every visible variable and its input-mapped locals, an idempotency key and attempt 1', async () => {
    // given a task mapping `double` from the root variable `a`
    const { jobs, handler } = recording();
    const engine = await engineWith(
      around(
        serviceTask(
          '<zeebe:taskDefinition type="calc" />',
          '<zeebe:ioMapping><zeebe:input source="=a * 2" target="double" /></zeebe:ioMapping>',
        ),
      ),
      { calc: handler },
    );

    // when the instance runs
    const id = await engine.start('p', { variables: { a: 2, b: 'x' }, businessKey: 'order-7' });
    await engine.settled(id);

    // then the handler saw the root variables plus the local, and a 64-hex key on its first attempt
    expect(jobs).toHaveLength(1);
    const [job] = jobs;
    expect(job!.variables).toEqual({ a: 2, b: 'x', double: 4 });
    expect(job!.idempotencyKey).toMatch(/^[0-9a-f]{64}$/);
    expect(job!.attempt).toBe(1);
    expect(job!).toMatchObject({ elementId: 'x', taskType: 'calc', instanceId: id, businessKey: 'order-7' });
  });

  it('ServiceTask#output should land the raw result in the root scope when there is no output mapping', async () => {
    // given a handler returning two variables
    const engine = await engineWith(around(serviceTask('<zeebe:taskDefinition type="calc" />')), {
      calc: () => ({ r: 1, s: 'two' }),
    });

    // when the instance runs
    const id = await engine.start('p', { variables: { a: 0 } });
    const settled = await engine.settled(id);

    // then both are root variables, and the input-less locals did not leak
    expect(settled.status).toBe('completed');
    expect((await engine.instance(id))!.variables).toEqual({ a: 0, r: 1, s: 'two' });
  });

  it('ServiceTask#output should land only the mapped targets when the task has output mappings', async () => {
    // given an output mapping from the handler's `r` to `mapped`
    const engine = await engineWith(
      around(
        serviceTask(
          '<zeebe:taskDefinition type="calc" />',
          '<zeebe:ioMapping><zeebe:output source="=r + 1" target="mapped" /></zeebe:ioMapping>',
        ),
      ),
      { calc: () => ({ r: 1 }) },
    );

    // when the instance runs
    const id = await engine.start('p');
    await engine.settled(id);

    // then `mapped` is set and the raw result is not
    const variables = (await engine.instance(id))!.variables;
    expect(variables).toEqual({ mapped: 2 });
    expect(variables).not.toHaveProperty('r');
  });

  it('ServiceTask#taskType should come from zeebe:taskDefinition type, else from the element id', async () => {
    // given one task with a type and one without a task definition
    const calls: string[] = [];
    const engine = await engineWith(
      bpmn(`<bpmn:startEvent id="start" />
        <bpmn:serviceTask id="typed">${ext('<zeebe:taskDefinition type="charge" />')}</bpmn:serviceTask>
        <bpmn:serviceTask id="untyped" />
        <bpmn:endEvent id="end" />
        ${chain('start', 'typed', 'untyped', 'end')}`),
      {
        charge: (job) => void calls.push(`charge:${job.elementId}:${job.taskType}`),
        untyped: (job) => void calls.push(`untyped:${job.elementId}:${job.taskType}`),
      },
    );

    // when the instance runs
    const id = await engine.start('p');

    // then each handler was found by its task type
    expect((await engine.settled(id)).status).toBe('completed');
    expect(calls).toEqual(['charge:typed:charge', 'untyped:untyped:untyped']);
  });
});

describe('ServiceTask failures', () => {
  it('should retry a failing handler under the same idempotency key and complete when it succeeds', async () => {
    // given a handler that fails twice, with 3 attempts allowed
    const { jobs, handler } = recording((job) => {
      if (job.attempt < 3) throw new Error(`flaky ${job.attempt}`);
      return { ok: true };
    });
    const engine = await engineWith(around(serviceTask('<zeebe:taskDefinition type="flaky" retries="3" />')), {
      flaky: handler,
    });

    // when the instance runs
    const id = await engine.start('p');
    const settled = await engine.settled(id);

    // then three attempts ran under one key and the instance completed
    expect(settled.status).toBe('completed');
    expect(jobs.map((job) => job.attempt)).toEqual([1, 2, 3]);
    expect(new Set(jobs.map((job) => job.idempotencyKey)).size).toBe(1);
    expect((await engine.instance(id))!.variables).toEqual({ ok: true });
  });

  it('should raise a job-failed incident when retries run out, and run the handler again on retryIncident', async () => {
    // given a handler that fails until it is fixed, with 2 attempts allowed
    let fixed = false;
    const { jobs, handler } = recording(() => {
      if (!fixed) throw new Error('payment gateway down');
      return { paid: true };
    });
    const engine = await engineWith(around(serviceTask('<zeebe:taskDefinition type="pay" retries="2" />')), {
      pay: handler,
    });
    const failed: EngineEvent[] = [];
    engine.on('job.failed', (event) => failed.push(event));

    // when it runs out of retries
    const id = await engine.start('p');
    const waiting = await engine.settled(id);

    // then the instance waits on one job-failed incident naming the error
    expect(waiting.status).toBe('waiting');
    if (waiting.status !== 'waiting') return;
    expect(jobs).toHaveLength(2);
    expect(failed).toHaveLength(2);
    expect(waiting.incidents).toHaveLength(1);
    const [incident] = waiting.incidents;
    expect(incident!.kind).toBe('job-failed');
    expect(incident!.message).toContain('payment gateway down');
    expect(incident!.id.startsWith(`${id}/`)).toBe(true);
    expect((await engine.instance(id))!.status).toBe('running');

    // when the outside world is fixed and the incident retried
    fixed = true;
    await engine.retryIncident(incident!.id);

    // then the handler ran once more and the instance completed
    expect((await engine.settled(id)).status).toBe('completed');
    expect(jobs).toHaveLength(3);
    expect((await engine.instance(id))!.variables).toEqual({ paid: true });
  });

  it('should keep counting attempts across retryIncident', async () => {
    // given a job that failed its only two attempts
    let fixed = false;
    const { jobs, handler } = recording(() => {
      if (!fixed) throw new Error('down');
      return {};
    });
    const engine = await engineWith(around(serviceTask('<zeebe:taskDefinition type="pay" retries="2" />')), {
      pay: handler,
    });
    const id = await engine.start('p');
    const waiting = await engine.settled(id);
    if (waiting.status !== 'waiting') throw new Error('expected an incident');

    // when the incident is retried
    fixed = true;
    await engine.retryIncident(waiting.incidents[0]!.id);
    await engine.settled(id);

    // then the retried job is the third attempt of the same invocation
    expect(jobs.map((job) => job.attempt)).toEqual([1, 2, 3]);
    expect(new Set(jobs.map((job) => job.idempotencyKey)).size).toBe(1);
  });

  it('should raise an incident naming the task type when no handler is registered for it', async () => {
    // given no handler for `ship`
    const engine = await engineWith(around(serviceTask('<zeebe:taskDefinition type="ship" retries="1" />')));

    // when the instance runs
    const id = await engine.start('p');
    const settled = await engine.settled(id);

    // then one job-failed incident names the missing type
    if (settled.status !== 'waiting') throw new Error(`expected waiting, got ${settled.status}`);
    expect(settled.incidents).toHaveLength(1);
    expect(settled.incidents[0]!.kind).toBe('job-failed');
    expect(settled.incidents[0]!.message).toContain('"ship"');
  });

  it.each([
    ['a number', 42],
    ['an array', [{ a: 1 }]],
    ['a string', 'done'],
  ])('should fail the job when the handler returns %s, telling it to return an object', async (_, value) => {
    // given a handler returning something other than an object of variables
    const engine = await engineWith(around(serviceTask('<zeebe:taskDefinition type="odd" retries="1" />')), {
      odd: () => value as unknown as Variables,
    });

    // when the instance runs
    const id = await engine.start('p');
    const settled = await engine.settled(id);

    // then the incident says what to return
    if (settled.status !== 'waiting') throw new Error(`expected waiting, got ${settled.status}`);
    expect(settled.incidents[0]!.message).toContain('return an object of variables');
  });

  it('should fail the job, naming the path, when the handler returns a function-valued variable', async () => {
    // given a handler whose result cannot be stored
    const engine = await engineWith(around(serviceTask('<zeebe:taskDefinition type="bad" retries="1" />')), {
      bad: () => ({ nested: { callback: () => 1 } }),
    });

    // when the instance runs
    const id = await engine.start('p');
    const settled = await engine.settled(id);

    // then the failure names where the function sits, and nothing of the result was stored
    if (settled.status !== 'waiting') throw new Error(`expected waiting, got ${settled.status}`);
    expect(settled.incidents[0]!.message).toContain('nested.callback');
    expect((await engine.instance(id))!.variables).toEqual({});
  });
});

describe('ScriptTask', () => {
  it('ScriptTask#resultVariable should be set to the value of the expression', async () => {
    // given a script adding two variables
    const engine = await engineWith(
      around(
        `<bpmn:scriptTask id="x">${ext('<zeebe:script expression="=a + b" resultVariable="sum" />')}</bpmn:scriptTask>`,
      ),
    );

    // when the instance runs
    const id = await engine.start('p', { variables: { a: 2, b: 3 } });

    // then `sum` holds the result
    expect((await engine.settled(id)).status).toBe('completed');
    expect((await engine.instance(id))!.variables).toEqual({ a: 2, b: 3, sum: 5 });
  });

  it('ScriptTask#expression should raise an expression-failed incident when it fails at run time', async () => {
    // given a script whose assertion fails (a failure in feel-scala, not a suppressed one)
    const engine = await engineWith(
      around(
        `<bpmn:scriptTask id="x">${ext('<zeebe:script expression="=assert(x, x != null)" resultVariable="r" />')}</bpmn:scriptTask>`,
      ),
    );

    // when the instance runs
    const id = await engine.start('p');
    const settled = await engine.settled(id);

    // then it waits on the incident, still running
    if (settled.status !== 'waiting') throw new Error(`expected waiting, got ${settled.status}`);
    expect(settled.incidents).toHaveLength(1);
    expect(settled.incidents[0]).toMatchObject({ kind: 'expression-failed', nodeId: 'x' });
    expect((await engine.instance(id))!.status).toBe('running');
  });
});

describe('UserTask', () => {
  const review = around('<bpmn:userTask id="x" name="Review order" />');

  it('should list an open user task with its name, element id and visible variables', async () => {
    // given an instance parked at a user task
    const engine = await engineWith(review);
    const id = await engine.start('p', { variables: { orderId: 'A-1' } });
    await engine.settled(id);

    // when its tasks are listed
    const tasks = await engine.userTasks({ instanceId: id });

    // then the task is there
    expect(tasks).toHaveLength(1);
    expect(tasks[0]).toMatchObject({
      id: expect.stringMatching(new RegExp(`^${id}/`)),
      instanceId: id,
      elementId: 'x',
      name: 'Review order',
      variables: { orderId: 'A-1' },
    });
  });

  it('should merge the completion variables and continue', async () => {
    // given an instance parked at a user task
    const engine = await engineWith(review);
    const id = await engine.start('p', { variables: { orderId: 'A-1' } });
    const [task] = await engine.userTasks({ instanceId: id });

    // when it is completed with variables
    await engine.completeUserTask(task!.id, { approved: true });

    // then they are root variables and the instance completed
    expect((await engine.settled(id)).status).toBe('completed');
    expect((await engine.instance(id))!.variables).toEqual({ orderId: 'A-1', approved: true });
    expect(await engine.userTasks({ instanceId: id })).toEqual([]);
  });

  it('should refuse to complete an unknown task with NotFoundError and change nothing', async () => {
    // given an instance parked at a user task
    const engine = await engineWith(review);
    const id = await engine.start('p');
    await engine.settled(id);
    const before = await engine.instance(id);

    // when an unknown task of it, or a malformed id, is completed
    const unknown = engine.completeUserTask(`${id}/u999`, { approved: true });
    const malformed = engine.completeUserTask('no-such-task', {});

    // then both are refused and the instance is as it was
    await expect(unknown).rejects.toBeInstanceOf(NotFoundError);
    await expect(unknown).rejects.toMatchObject({ code: EngineErrorCode.NotFound });
    await expect(malformed).rejects.toBeInstanceOf(NotFoundError);
    expect(await engine.instance(id)).toEqual(before);
    expect(await engine.userTasks({ instanceId: id })).toHaveLength(1);
  });

  it('should refuse completion variables that cannot be stored and keep the task open', async () => {
    // given an instance parked at a user task
    const engine = await engineWith(review);
    const id = await engine.start('p');
    const [task] = await engine.userTasks({ instanceId: id });

    // when it is completed with a function-valued variable
    const completion = engine.completeUserTask(task!.id, { callback: () => 1 });

    // then it is refused and the task is still open
    await expect(completion).rejects.toBeInstanceOf(UnencodableValueError);
    expect((await engine.userTasks({ instanceId: id })).map((open) => open.id)).toEqual([task!.id]);
  });

  it('should refuse to complete the same task twice', async () => {
    // given a completed user task
    const engine = await engineWith(
      bpmn(`<bpmn:startEvent id="start" /><bpmn:userTask id="x" /><bpmn:userTask id="y" /><bpmn:endEvent id="end" />
        ${chain('start', 'x', 'y', 'end')}`),
    );
    const id = await engine.start('p');
    const [task] = await engine.userTasks({ instanceId: id });
    await engine.completeUserTask(task!.id, { first: true });

    // when it is completed again
    const again = engine.completeUserTask(task!.id, { first: false });

    // then it is not found, and the first completion stands
    await expect(again).rejects.toBeInstanceOf(NotFoundError);
    expect((await engine.instance(id))!.variables).toEqual({ first: true });
    expect((await engine.userTasks({ instanceId: id })).map((t) => t.elementId)).toEqual(['y']);
  });
});

describe('ManualTask and Task', () => {
  it.each(['manualTask', 'task'])('%s should pass straight through', async (type) => {
    // given a process around a %s
    const engine = await engineWith(around(`<bpmn:${type} id="x" />`));

    // when it runs
    const id = await engine.start('p');

    // then it completed through the element
    expect((await engine.settled(id)).status).toBe('completed');
    expect((await engine.instance(id))!.history.map((entry) => entry.node)).toEqual(['start', 'x', 'end']);
  });

  it('should end implicitly at a task with no outgoing flow', async () => {
    // given a process whose last element is a task without an end event
    const engine = await engineWith(
      bpmn(`<bpmn:startEvent id="start" /><bpmn:manualTask id="x" />${chain('start', 'x')}`),
    );

    // when it runs
    const id = await engine.start('p');

    // then it completed at the task
    expect((await engine.settled(id)).status).toBe('completed');
    expect((await engine.instance(id))!.history.map((entry) => entry.node)).toEqual(['start', 'x']);
  });
});

describe('ServiceTask#retries', () => {
  it('should raise an incident naming the retries when a static value is no count, as Zeebe does at job creation', async () => {
    const engine = await engineWith(
      around(`<bpmn:serviceTask id="x">${ext('<zeebe:taskDefinition type="t" retries="two" />')}</bpmn:serviceTask>`),
    );
    const id = await engine.start('p');
    const settled = await engine.settled(id);
    if (settled.status !== 'waiting') throw new Error(`expected waiting, got ${settled.status}`);
    expect(settled.incidents).toEqual([
      expect.objectContaining({
        nodeId: 'x',
        kind: 'expression-failed',
        message: expect.stringMatching(/zeebe:taskDefinition retries .*"two".*non-negative integer/),
      }),
    ]);
  });
});

describe('EndEvent#outputs', () => {
  it('should apply a none end event output mappings, as Zeebe does', async () => {
    const engine = await engineWith(
      bpmn(
        `<bpmn:startEvent id="start" /><bpmn:endEvent id="end">${ext('<zeebe:ioMapping><zeebe:output source="=&quot;done&quot;" target="outcome" /></zeebe:ioMapping>')}</bpmn:endEvent>${chain('start', 'end')}`,
      ),
    );
    const id = await engine.start('p');
    expect((await engine.settled(id)).status).toBe('completed');
    const instance = (await engine.instance(id))!;
    expect(instance.variables).toEqual({ outcome: 'done' });
    expect(instance.history.map((entry) => entry.node)).toEqual(['start', 'end']);
  });
});
