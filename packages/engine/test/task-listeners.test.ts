import { createMemoryRepository } from '@thresher/checkpoint';
import { VirtualClock } from '@thresher/testing';
import { describe, expect, it } from 'vitest';
import { InvalidArgumentError, InvalidStateError, ModelError } from '../src/common/errors.js';
import { Engine } from '../src/engine.js';
import type { EngineEvent, Handlers, Job } from '../src/index.js';
import { around, bpmn, ext, withRoots } from './fixtures/bpmn/xml.js';
import { logging } from './fixtures/listeners.js';
import { engineWith, settledWaiting } from './fixtures/runtime.js';

/** `zeebe:taskListeners` holding one listener per `[eventType, type, extra attributes?]`. */
function taskListeners(...items: [string, string, string?][]): string {
  const each = items.map(
    ([event, type, extra = '']) => `<zeebe:taskListener eventType="${event}" type="${type}" ${extra} />`,
  );
  return `<zeebe:taskListeners>${each.join('')}</zeebe:taskListeners>`;
}

/** A user task `x` with these extension elements. */
function userTask(extra: string): string {
  return around(`<bpmn:userTask id="x">${ext(`<zeebe:userTask />${extra}`)}</bpmn:userTask>`);
}

/** Resolves once `done` holds, looking again on every turn of the event loop (at most a second). */
async function until(done: () => boolean): Promise<void> {
  for (let turn = 0; turn < 1000 && !done(); turn++) await new Promise((resolve) => setTimeout(resolve, 1));
  expect(done()).toBe(true);
}

async function openTask(engine: Engine, id: string) {
  const settled = await engine.settled(id);
  expect(settled.status).toBe('waiting');
  return settled.status === 'waiting' ? settled.userTasks[0]! : undefined!;
}

describe('creating and assigning listeners', () => {
  it('should run creating listeners before the task is open, then assign the model’s assignee through the assigning listeners', async () => {
    // given a task with an assignee, a creating and an assigning listener
    const { calls, jobs, handlers } = logging(['created', 'assigned']);
    const xml = userTask(
      `<zeebe:assignmentDefinition assignee="ann" /><zeebe:priorityDefinition priority="70" />${taskListeners(['creating', 'created'], ['assigning', 'assigned'])}`,
    );
    const engine = await engineWith(xml, handlers);

    // when an instance reaches it
    const id = await engine.start('p', { variables: { a: 1 } });
    const task = await openTask(engine, id);

    // then the creating listener saw the model's assignee, the assigning one the assignment as a change
    expect(calls).toEqual(['created@x', 'assigned@x']);
    expect(jobs[0]!.listener).toEqual({ eventType: 'creating' });
    expect(jobs[0]!.userTask).toMatchObject({ assignee: 'ann', priority: 70, action: '' });
    expect(jobs[1]!.userTask).toMatchObject({ assignee: 'ann', changedAttributes: ['assignee'] });
    expect(jobs[1]!.headers).toEqual({
      'io.camunda.zeebe:userTaskKey': task.id,
      'io.camunda.zeebe:assignee': 'ann',
      'io.camunda.zeebe:priority': '70',
      'io.camunda.zeebe:changedAttributes': '["assignee"]',
    });
    expect(jobs[1]!.variables).toEqual({ a: 1 });
    expect(task).toMatchObject({ assignee: 'ann', priority: 70, state: 'created' });
  });

  it('should let a creating listener set an assignee the model does not give, and apply its other corrections', async () => {
    // given a creating listener that corrects the assignee and the due date
    const { calls, handlers } = logging(['route', 'assigned'], {
      route: () => ({ corrections: { assignee: 'bob', dueDate: '2027-01-01T09:00:00Z', candidateGroups: ['ops'] } }),
    });
    const engine = await engineWith(
      userTask(taskListeners(['creating', 'route'], ['assigning', 'assigned'])),
      handlers,
    );

    // when an instance reaches the task
    const task = await openTask(engine, await engine.start('p'));

    // then the task is created with the corrections, and assigned to bob through the assigning listener
    expect(calls).toEqual(['route@x', 'assigned@x']);
    expect(task).toMatchObject({ assignee: 'bob', dueDate: '2027-01-01T09:00:00Z', candidateGroups: ['ops'] });
  });

  it('should refuse a creating listener’s correction of an assignee the model gives, with an incident whose retry runs it again', async () => {
    // given a creating listener that corrects the model's assignee on its first call only
    const { calls, handlers } = logging(['route'], {
      route: () => (calls.length === 1 ? { corrections: { assignee: 'bob' } } : {}),
    });
    const engine = await engineWith(
      userTask(`<zeebe:assignmentDefinition assignee="ann" />${taskListeners(['creating', 'route'])}`),
      handlers,
    );

    // when an instance reaches the task
    const id = await engine.start('p');
    const settled = await engine.settled(id);

    // then an incident says why, and the task waits in its creating transition
    expect(settled.status).toBe('waiting');
    if (settled.status !== 'waiting') return;
    expect(settled.incidents[0]!.message).toContain(
      'a creating listener may set an assignee only where the process gives none',
    );
    expect(settled.userTasks[0]!.state).toBe('creating');

    // and its retry runs the listener again, which now allows the creation
    await engine.retryIncident(settled.incidents[0]!.id);
    const task = await openTask(engine, id);
    expect(calls).toEqual(['route@x', 'route@x']);
    expect(task).toMatchObject({ assignee: 'ann', state: 'created' });
  });

  it('should run assigning listeners on assignUserTask, with the action, and deny by restoring the assignee', async () => {
    // given a task whose assigning listener denies anyone but carol
    const { jobs, handlers } = logging(['gate'], {
      gate: (job) => (job.userTask!.assignee === 'carol' ? {} : { denied: true, deniedReason: 'only carol' }),
    });
    const engine = await engineWith(userTask(taskListeners(['assigning', 'gate'])), handlers);
    const events: EngineEvent[] = [];
    engine.on('userTask.denied', (event) => void events.push(event));
    engine.on('userTask.assigned', (event) => void events.push(event));
    const id = await engine.start('p');
    const task = await openTask(engine, id);

    // when dave is assigned, then carol
    await engine.assignUserTask(task.id, 'dave');
    expect(await openTask(engine, id)).toMatchObject({ assignee: null, state: 'created' });
    await engine.assignUserTask(task.id, 'carol');

    // then the first was denied, the second taken; each listener job saw its action and change
    expect(await openTask(engine, id)).toMatchObject({ assignee: 'carol' });
    expect(jobs.map((job) => [job.userTask!.assignee, job.userTask!.action])).toEqual([
      ['dave', 'assign'],
      ['carol', 'assign'],
    ]);
    expect(jobs[0]!.idempotencyKey).not.toBe(jobs[1]!.idempotencyKey);
    expect(events.map((event) => event.type)).toEqual(['userTask.denied', 'userTask.assigned']);
    expect(events[0]).toMatchObject({ event: 'assigning', reason: 'only carol' });
  });

  it('should assign, unassign and claim without listeners, refusing a claim of a task someone else has', async () => {
    // given a task without listeners
    const engine = await engineWith(userTask(''));
    const id = await engine.start('p');
    const task = await openTask(engine, id);

    // when it is assigned, claimed by another and unassigned
    await engine.assignUserTask(task.id, 'erin');
    await expect(engine.assignUserTask(task.id, 'fred', { allowOverride: false })).rejects.toBeInstanceOf(
      InvalidStateError,
    );
    expect(await openTask(engine, id)).toMatchObject({ assignee: 'erin' });
    await engine.assignUserTask(task.id, null);

    // then it is unassigned
    expect(await openTask(engine, id)).toMatchObject({ assignee: null });
  });
});

describe('updating listeners', () => {
  it('should run updating listeners on updateUserTask, seeing what changed, and apply their corrections', async () => {
    // given a task with a priority and an updating listener that caps it at 80
    const { jobs, handlers } = logging(['cap'], {
      cap: (job) => (job.userTask!.priority > 80 ? { corrections: { priority: 80 } } : {}),
    });
    const engine = await engineWith(
      userTask(`<zeebe:priorityDefinition priority="40" />${taskListeners(['updating', 'cap'])}`),
      handlers,
    );
    const id = await engine.start('p');
    const task = await openTask(engine, id);

    // when its priority and follow-up date are updated
    await engine.updateUserTask(task.id, { priority: 95, followUpDate: '2027-02-01T08:00:00+01:00' });

    // then the listener saw the update, and its correction holds
    expect(jobs[0]!.userTask).toMatchObject({
      priority: 95,
      action: 'update',
      changedAttributes: ['followUpDate', 'priority'],
    });
    expect(await openTask(engine, id)).toMatchObject({ priority: 80, followUpDate: '2027-02-01T08:00:00+01:00' });
  });

  it('should refuse an update that does not fit its field, naming it, and change nothing', async () => {
    // given an open task
    const engine = await engineWith(userTask(''));
    const id = await engine.start('p');
    const task = await openTask(engine, id);

    // when its priority is set out of range, a date to no date, and the assignee through an update
    await expect(engine.updateUserTask(task.id, { priority: 101 })).rejects.toThrow(
      /priority 101 is not an integer from 0 to 100/,
    );
    await expect(engine.updateUserTask(task.id, { dueDate: 'tomorrow' })).rejects.toBeInstanceOf(InvalidArgumentError);
    await expect(engine.updateUserTask(task.id, { assignee: 'x' } as never)).rejects.toThrow(
      /"assignee" is not a field/,
    );

    // then the task is as it was
    expect(await openTask(engine, id)).toMatchObject({ priority: 50, dueDate: null });
  });
});

describe('completing listeners', () => {
  it('should give completing listeners the completion’s variables, and complete only once every one allowed it', async () => {
    // given two completing listeners, the second denying an unapproved completion
    const { calls, jobs, handlers } = logging(['audit', 'check'], {
      check: (job) => (job.variables.approved ? {} : { denied: true }),
    });
    const engine = await engineWith(
      userTask(taskListeners(['completing', 'audit'], ['completing', 'check'])),
      handlers,
    );
    const id = await engine.start('p', { variables: { approved: 'unset' } });
    const task = await openTask(engine, id);

    // when it is completed without approval, then with it
    await engine.completeUserTask(task.id, { approved: false, note: 'no' });
    expect(await openTask(engine, id)).toMatchObject({
      state: 'created',
      denied: { event: 'completing', reason: null },
    });
    expect((await engine.question(task.id)).task.denied).toEqual({ event: 'completing', reason: null });
    await engine.completeUserTask(task.id, { approved: true });

    // then the denied completion's variables were dropped; the second completed the task
    expect((await engine.settled(id)).status).toBe('completed');
    expect(calls).toEqual(['audit@x', 'check@x', 'audit@x', 'check@x']);
    expect(jobs[1]!.variables).toEqual({ approved: false, note: 'no' });
    expect(jobs[1]!.userTask!.action).toBe('complete');
    expect((await engine.instance(id))!.variables).toEqual({ approved: true });
  });

  it('should refuse another command while a transition’s listeners run', async () => {
    // given a completing listener that is held
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const handlers: Handlers = { hold: async () => void (await held) };
    const engine = await engineWith(userTask(taskListeners(['completing', 'hold'])), handlers);
    const id = await engine.start('p');
    const task = await openTask(engine, id);

    // when it is completed, and completed again while the listener runs
    await engine.completeUserTask(task.id);
    await expect(engine.completeUserTask(task.id)).rejects.toThrow(/it is completing/);
    await expect(engine.assignUserTask(task.id, 'x')).rejects.toBeInstanceOf(InvalidStateError);

    // then the first completion still completes
    release();
    expect((await engine.settled(id)).status).toBe('completed');
  });

  it('should raise an incident for a listener that returns variables, corrects and denies at once, or throws a BPMN error', async () => {
    for (const [result, message] of [
      [{ total: 3 }, 'takes no variables'],
      [{ denied: true, corrections: { priority: 1 } }, 'denied the transition and corrected the task at once'],
      [{ corrections: { color: 'red' } }, '"color" is not a field'],
    ] as const) {
      // given a completing listener returning a result it cannot
      const engine = await engineWith(userTask(taskListeners(['completing', 'bad'])), { bad: () => result });
      const id = await engine.start('p');
      await engine.completeUserTask((await openTask(engine, id)).id);

      // then an incident names the problem and the task waits, completing
      const settled = await engine.settled(id);
      expect(settled.status).toBe('waiting');
      if (settled.status !== 'waiting') return;
      expect(settled.incidents[0]!.message).toContain(message);
      expect(settled.userTasks[0]!.state).toBe('completing');
    }
  });

  it('should retry a failed listener job through its incident without running the listeners before it again', async () => {
    // given a completing listener whose handler fails until the incident is retried
    let fixed = false;
    const { calls, handlers } = logging(['first', 'second'], {
      second: () => {
        if (!fixed) throw new Error('down');
        return {};
      },
    });
    const engine = await engineWith(
      userTask(taskListeners(['completing', 'first'], ['completing', 'second', 'retries="1"'])),
      handlers,
    );
    const id = await engine.start('p');
    await engine.completeUserTask((await openTask(engine, id)).id, { done: true });
    const settled = await settledWaiting(engine, id);

    // when the incident is retried
    fixed = true;
    await engine.retryIncident(settled.incidents[0]!.id);

    // then only the failed listener ran again, and the task completed with the completion's variables
    expect((await engine.settled(id)).status).toBe('completed');
    expect(calls).toEqual(['first@x', 'second@x', 'second@x']);
    expect((await engine.instance(id))!.variables).toEqual({ done: true });
  });

  it('should run the transition again from its first listener when a listener’s type expression failed', async () => {
    // given a second completing listener whose type is a variable the instance lacks
    const { calls, handlers } = logging(['first', 'late'], { first: () => ({ corrections: { priority: 9 } }) });
    const engine = await engineWith(
      userTask(taskListeners(['completing', 'first'], ['completing', '=kind'])),
      handlers,
    );
    const id = await engine.start('p');
    await engine.completeUserTask((await openTask(engine, id)).id, { done: true });
    const settled = await settledWaiting(engine, id);
    expect(settled.incidents[0]!.message).toContain('a job type must be a non-empty string');

    // when the incident is retried
    await engine.retryIncident(settled.incidents[0]!.id);

    // then the first listener ran again, from the task as the completion asked for it, and the incident is back
    const again = await settledWaiting(engine, id);
    expect(calls).toEqual(['first@x', 'first@x']);
    expect(again.incidents).toHaveLength(1);
    expect(again.userTasks[0]).toMatchObject({ state: 'completing', priority: 9 });
  });

  it('should give a completing listener’s type expression the completion’s variables', async () => {
    const { calls, handlers } = logging(['late']);
    const engine = await engineWith(userTask(taskListeners(['completing', '=kind'])), handlers);
    const id = await engine.start('p');
    await engine.completeUserTask((await openTask(engine, id)).id, { kind: 'late' });
    expect((await engine.settled(id)).status).toBe('completed');
    expect(calls).toEqual(['late@x']);
  });
});

/** A handler held until released, recording each call. */
function held(): { handlers: Handlers; jobs: Job[]; release: () => void } {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  const jobs: Job[] = [];
  const handlers: Handlers = {
    cleanup: async (job) => {
      jobs.push(job);
      await gate;
    },
  };
  return { handlers, jobs, release: () => open() };
}

describe('canceling listeners', () => {
  const timerBoundary = (attachedTo: string) =>
    `<bpmn:boundaryEvent id="late" attachedToRef="${attachedTo}"><bpmn:timerEventDefinition><bpmn:timeDuration>PT1H</bpmn:timeDuration></bpmn:timerEventDefinition></bpmn:boundaryEvent>
     <bpmn:serviceTask id="escalate">${ext('<zeebe:taskDefinition type="escalate" />')}</bpmn:serviceTask>
     <bpmn:endEvent id="escalated" />
     <bpmn:sequenceFlow id="b1" sourceRef="late" targetRef="escalate" /><bpmn:sequenceFlow id="b2" sourceRef="escalate" targetRef="escalated" />`;

  it('should hold an interrupting boundary event until the task’s canceling listeners ran, as Zeebe terminates the task first', async () => {
    // given a user task with a canceling listener, interrupted by a boundary timer
    const clock = new VirtualClock();
    const { handlers, jobs, release } = held();
    const calls: string[] = [];
    handlers.escalate = () => void calls.push('escalate');
    const engine = await engineWith(
      bpmn(`<bpmn:startEvent id="start" />
        <bpmn:userTask id="x">${ext(`<zeebe:assignmentDefinition assignee="ann" />${taskListeners(['canceling', 'cleanup'])}`)}</bpmn:userTask>
        <bpmn:endEvent id="end" />
        <bpmn:sequenceFlow id="f1" sourceRef="start" targetRef="x" /><bpmn:sequenceFlow id="f2" sourceRef="x" targetRef="end" />
        ${timerBoundary('x')}`),
      handlers,
      clock,
    );
    const events: string[] = [];
    engine.on('userTask.canceled', (event) => void events.push(event.type));
    const id = await engine.start('p', { variables: { a: 1 } });
    await engine.settled(id);

    // when the timer fires
    clock.advance(3_600_000);
    await until(() => jobs.length === 1);

    // then the listener runs on the task as it was, the task is canceling, and the boundary's path waits
    expect(jobs[0]!.listener).toEqual({ eventType: 'canceling' });
    expect(jobs[0]!.userTask).toMatchObject({ assignee: 'ann' });
    expect(jobs[0]!.variables).toEqual({ a: 1 });
    const during = await engine.instance(id);
    expect(during!.userTasks[0]).toMatchObject({ state: 'canceling' });
    await expect(engine.completeUserTask(during!.userTasks[0]!.id)).rejects.toThrow(/it is canceling/);
    expect(calls).toEqual([]);

    // and once it ran, the task is gone and the boundary's path runs
    release();
    expect((await engine.settled(id)).status).toBe('completed');
    expect(calls).toEqual(['escalate']);
    expect(events).toEqual(['userTask.canceled']);
    expect((await engine.instance(id))!.history.map((entry) => entry.node)).toEqual([
      'start',
      'late',
      'escalate',
      'escalated',
    ]);
  });

  it('should keep an interrupted sub-process’s scope until its task’s canceling listeners ran, then go on', async () => {
    const clock = new VirtualClock();
    const { handlers, jobs, release } = held();
    handlers.escalate = () => ({ escalated: true });
    const engine = new Engine({ repository: createMemoryRepository(), handlers, clock: clock.view() });
    await engine.deploy(
      bpmn(`<bpmn:startEvent id="start" />
        <bpmn:subProcess id="sub">${ext('<zeebe:ioMapping><zeebe:input source="=7" target="local" /></zeebe:ioMapping>')}
          <bpmn:startEvent id="s1" /><bpmn:userTask id="x">${ext(taskListeners(['canceling', 'cleanup']))}</bpmn:userTask><bpmn:endEvent id="e1" />
          <bpmn:sequenceFlow id="s2" sourceRef="s1" targetRef="x" /><bpmn:sequenceFlow id="s3" sourceRef="x" targetRef="e1" />
        </bpmn:subProcess>
        <bpmn:endEvent id="end" />
        <bpmn:sequenceFlow id="f1" sourceRef="start" targetRef="sub" /><bpmn:sequenceFlow id="f2" sourceRef="sub" targetRef="end" />
        ${timerBoundary('sub')}`),
    );
    const id = await engine.start('p');
    await engine.settled(id);
    clock.advance(3_600_000);
    await until(() => jobs.length === 1);
    expect(jobs[0]!.variables).toEqual({ local: 7 });
    expect(Object.keys((await engine.instance(id))!.scopes)).toHaveLength(2);
    release();
    expect((await engine.settled(id)).status).toBe('completed');
    expect((await engine.instance(id))!.variables).toEqual({ escalated: true });
  });

  it('should end a cancelled instance only once the canceling listeners ran', async () => {
    const { handlers, jobs, release } = held();
    const engine = await engineWith(userTask(taskListeners(['canceling', 'cleanup'])), handlers);
    const id = await engine.start('p');
    await engine.settled(id);
    await engine.cancel(id);
    await until(() => jobs.length === 1);
    expect((await engine.instance(id))!.status).toBe('running');
    release();
    expect((await engine.settled(id)).status).toBe('terminated');
  });

  it('should start an interrupting event sub-process, and end at a terminate end event, only once the listeners ran', async () => {
    for (const trigger of ['message', 'terminate'] as const) {
      const { handlers, jobs, release } = held();
      handlers.go = () => ({});
      const esp = `<bpmn:subProcess id="esp" triggeredByEvent="true"><bpmn:startEvent id="es"><bpmn:messageEventDefinition messageRef="m" /></bpmn:startEvent><bpmn:endEvent id="ee" /><bpmn:sequenceFlow id="e1" sourceRef="es" targetRef="ee" /></bpmn:subProcess>`;
      const branch =
        trigger === 'terminate'
          ? `<bpmn:serviceTask id="go">${ext('<zeebe:taskDefinition type="go" />')}</bpmn:serviceTask><bpmn:endEvent id="kill"><bpmn:terminateEventDefinition /></bpmn:endEvent>
             <bpmn:sequenceFlow id="k1" sourceRef="fork" targetRef="go" /><bpmn:sequenceFlow id="k2" sourceRef="go" targetRef="kill" />`
          : '';
      const xml = withRoots(
        '<bpmn:message id="m" name="stop"><bpmn:extensionElements><zeebe:subscription correlationKey="=&quot;k&quot;" /></bpmn:extensionElements></bpmn:message>',
        `<bpmn:startEvent id="start" /><bpmn:parallelGateway id="fork" />
         <bpmn:userTask id="x">${ext(taskListeners(['canceling', 'cleanup']))}</bpmn:userTask><bpmn:endEvent id="end" />
         <bpmn:sequenceFlow id="f0" sourceRef="start" targetRef="fork" /><bpmn:sequenceFlow id="f1" sourceRef="fork" targetRef="x" /><bpmn:sequenceFlow id="f2" sourceRef="x" targetRef="end" />
         ${branch}${esp}`,
      );
      const engine = await engineWith(xml, handlers);
      const id = await engine.start('p');
      if (trigger === 'message') {
        await engine.settled(id);
        await engine.correlateMessage('stop', { correlationKey: 'k' });
      }
      await until(() => jobs.length === 1);
      const during = await engine.instance(id);
      expect(during!.status).toBe('running');
      expect(during!.history.map((entry) => entry.node)).not.toContain('ee');
      release();
      const settled = await engine.settled(id);
      expect(settled.status).toBe(trigger === 'terminate' ? 'terminated' : 'completed');
      if (trigger === 'message')
        expect((await engine.instance(id))!.history.map((entry) => entry.node)).toContain('ee');
    }
  });

  it('should complete a multi-instance whose condition fired, and an ad-hoc sub-process, only once the cancelled tasks’ listeners ran', async () => {
    const bodies = `<bpmn:multiInstanceLoopCharacteristics>${ext('<zeebe:loopCharacteristics inputCollection="=[1, 2]" />')}<bpmn:completionCondition xsi:type="bpmn:tFormalExpression">=numberOfCompletedInstances &gt;= 1</bpmn:completionCondition></bpmn:multiInstanceLoopCharacteristics>`;
    const multi = `<bpmn:userTask id="x">${ext(taskListeners(['canceling', 'cleanup']))}${bodies}</bpmn:userTask>`;
    const adHoc = `<bpmn:adHocSubProcess id="x">${ext('<zeebe:adHoc activeElementsCollection="=[&quot;u&quot;, &quot;v&quot;]" />')}<bpmn:userTask id="u" /><bpmn:userTask id="v">${ext(taskListeners(['canceling', 'cleanup']))}</bpmn:userTask><bpmn:completionCondition xsi:type="bpmn:tFormalExpression">=true</bpmn:completionCondition></bpmn:adHocSubProcess>`;
    for (const element of [multi, adHoc]) {
      const { handlers, jobs, release } = held();
      handlers.after = () => ({ after: true });
      const engine = await engineWith(
        bpmn(`<bpmn:startEvent id="start" />${element}<bpmn:serviceTask id="next">${ext('<zeebe:taskDefinition type="after" />')}</bpmn:serviceTask><bpmn:endEvent id="end" />
          <bpmn:sequenceFlow id="f1" sourceRef="start" targetRef="x" /><bpmn:sequenceFlow id="f2" sourceRef="x" targetRef="next" /><bpmn:sequenceFlow id="f3" sourceRef="next" targetRef="end" />`),
        handlers,
      );
      const id = await engine.start('p');
      const first = (await engine.instance(id))!.userTasks[0]!;
      await engine.completeUserTask(first.id);
      await until(() => jobs.length === 1);
      expect((await engine.instance(id))!.variables).toEqual({});
      release();
      expect((await engine.settled(id)).status).toBe('completed');
      expect((await engine.instance(id))!.variables).toMatchObject({ after: true });
    }
  });

  it('should raise an incident for a canceling listener that denies, and retry a failed one without losing the termination', async () => {
    const clock = new VirtualClock();
    let attempt = 0;
    const handlers: Handlers = {
      cleanup: () => {
        attempt += 1;
        if (attempt === 1) return { denied: true };
        if (attempt === 2) throw new Error('down');
        return {};
      },
      escalate: () => ({}),
    };
    const engine = await engineWith(
      bpmn(`<bpmn:startEvent id="start" />
        <bpmn:userTask id="x">${ext(taskListeners(['canceling', 'cleanup', 'retries="1"']))}</bpmn:userTask>
        <bpmn:endEvent id="end" />
        <bpmn:sequenceFlow id="f1" sourceRef="start" targetRef="x" /><bpmn:sequenceFlow id="f2" sourceRef="x" targetRef="end" />
        ${timerBoundary('x')}`),
      handlers,
      clock,
    );
    const id = await engine.start('p');
    await engine.settled(id);
    clock.advance(3_600_000);
    const first = await settledWaiting(engine, id);
    expect(first.incidents[0]!.message).toContain("a canceling listener cannot deny the task's cancellation");
    await engine.retryIncident(first.incidents[0]!.id);
    const second = await settledWaiting(engine, id);
    expect(second.incidents[0]!.message).toContain('down');
    await engine.retryIncident(second.incidents[0]!.id);
    expect((await engine.settled(id)).status).toBe('completed');
    expect(attempt).toBe(3);
  });
});

describe('the model', () => {
  it('should refuse an unknown event and a listener without a type', async () => {
    const engine = new Engine({ repository: createMemoryRepository() });
    for (const [listener, message] of [
      [['closing', 'x'], 'has eventType="closing"'],
      [['completing', ''], 'has no type'],
    ] as const) {
      await expect(engine.deploy(userTask(taskListeners(listener as [string, string])))).rejects.toThrow(message);
    }
    await expect(
      engine.deploy(
        around(
          `<bpmn:serviceTask id="x">${ext(`<zeebe:taskDefinition type="t" />${taskListeners(['completing', 'x'])}`)}</bpmn:serviceTask>`,
        ),
      ),
    ).rejects.toBeInstanceOf(ModelError);
  });

  it('should read Zeebe’s names before 8.8 as the new ones, with a warning', async () => {
    const { calls, handlers } = logging(['done']);
    const engine = await engineWith(userTask(taskListeners(['complete', 'done'])), handlers);
    const deployed = await engine.deploy(userTask(taskListeners(['complete', 'done'])));
    expect(deployed.warnings.map((warning) => warning.message).join()).toContain('read as "completing"');
    const id = await engine.start('p');
    await engine.completeUserTask((await openTask(engine, id)).id);
    expect((await engine.settled(id)).status).toBe('completed');
    expect(calls).toEqual(['done@x']);
  });

  it('should refuse a static priority out of range and a due date that is no date-time', async () => {
    const engine = new Engine({ repository: createMemoryRepository() });
    await expect(engine.deploy(userTask('<zeebe:priorityDefinition priority="101" />'))).rejects.toThrow(
      /not an integer from 0 to 100/,
    );
    await expect(engine.deploy(userTask('<zeebe:taskSchedule dueDate="soon" />'))).rejects.toThrow(
      /not an ISO 8601 date-time/,
    );
  });

  it('should evaluate schedule and priority expressions when the task is created, as an incident when they do not fit', async () => {
    const engine = await engineWith(
      userTask('<zeebe:taskSchedule dueDate="=due" /><zeebe:priorityDefinition priority="=level" />'),
    );
    const good = await engine.start('p', { variables: { due: '2027-03-01T10:00:00Z', level: 5 } });
    expect(await openTask(engine, good)).toMatchObject({ dueDate: '2027-03-01T10:00:00Z', priority: 5 });
    const bad = await engine.start('p', { variables: { due: null, level: 500 } });
    const settled = await settledWaiting(engine, bad);
    expect(settled.incidents[0]!.message).toContain('it must be an integer from 0 to 100');
  });
});
