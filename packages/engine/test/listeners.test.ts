import { createMemoryRepository } from '@thresher/checkpoint';
import { VirtualClock } from '@thresher/testing';
import { describe, expect, it } from 'vitest';
import { BpmnError } from '../src/common/errors.js';
import { Engine } from '../src/engine.js';
import type { EngineEvent } from '../src/index.js';
import { around, bpmn, chain, escalation, ext, flow, message, withRoots } from './fixtures/bpmn/xml.js';
import { listeners, logging } from './fixtures/listeners.js';
import { engineWith } from './fixtures/runtime.js';

/** A service task `x` of type `work` with extra extension content. */
function task(extra: string, id = 'x'): string {
  return `<bpmn:serviceTask id="${id}">${ext(`<zeebe:taskDefinition type="work" />${extra}`)}</bpmn:serviceTask>`;
}

/** A hand-released promise. */
function gate<T = void>(): { promise: Promise<T>; open: (value: T) => void } {
  let open!: (value: T) => void;
  const promise = new Promise<T>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

describe('start listeners', () => {
  it('ServiceTask#listeners should run start listeners in order before the task’s own job, each seeing the last’s variables as locals', async () => {
    // given a task with two start listeners and an input mapping
    const { calls, jobs, handlers } = logging(['first', 'second', 'work'], {
      first: () => ({ fromFirst: 1 }),
      second: (job) => ({ fromSecond: (job.variables.fromFirst as number) + 1 }),
    });
    const engine = await engineWith(
      around(
        task(
          `<zeebe:ioMapping><zeebe:input source="=a" target="mapped" /></zeebe:ioMapping>${listeners(['start', 'first'], ['start', 'second'])}`,
        ),
      ),
      handlers,
    );

    // when an instance runs
    const id = await engine.start('p', { variables: { a: 7 } });
    expect((await engine.settled(id)).status).toBe('completed');

    // then the listeners ran first, in order, reading the input mapping; the task saw their variables
    expect(calls).toEqual(['first@x', 'second@x', 'work@x']);
    expect(jobs[0]!.variables).toEqual({ a: 7, mapped: 7 });
    expect(jobs[2]!.variables).toEqual({ a: 7, mapped: 7, fromFirst: 1, fromSecond: 2 });
    // and the listeners' variables were locals of the element: they did not reach the process
    expect((await engine.instance(id))!.variables).toEqual({ a: 7 });
  });

  it('Job#listener should name the event on a listener’s job only, with an idempotency key of its own', async () => {
    // given a task with a start and an end listener of the same type
    const { jobs, handlers } = logging(['audit', 'work']);
    const engine = await engineWith(around(task(listeners(['start', 'audit'], ['end', 'audit']))), handlers);

    // when an instance runs
    const id = await engine.start('p');
    expect((await engine.settled(id)).status).toBe('completed');

    // then each listener's job says which event it runs at, the task's own says nothing, and no two share a key
    expect(jobs.map((job) => [job.taskType, job.elementId, job.listener])).toEqual([
      ['audit', 'x', { eventType: 'start' }],
      ['work', 'x', undefined],
      ['audit', 'x', { eventType: 'end' }],
    ]);
    expect(jobs[1]).not.toHaveProperty('listener');
    expect(new Set(jobs.map((job) => job.idempotencyKey)).size).toBe(3);
  });

  it('should evaluate the task’s job type after its start listeners, so a listener can set it', async () => {
    // given a task whose type is `=kind`, which only a start listener sets
    const { calls, handlers } = logging(['prepare', 'fast'], { prepare: () => ({ kind: 'fast' }) });
    const xml = around(
      `<bpmn:serviceTask id="x">${ext(`<zeebe:taskDefinition type="=kind" />${listeners(['start', 'prepare'])}`)}</bpmn:serviceTask>`,
    );
    const engine = await engineWith(xml, handlers);

    // when an instance runs
    const id = await engine.start('p');

    // then the job was of the type the listener chose
    expect((await engine.settled(id)).status).toBe('completed');
    expect(calls).toEqual(['prepare@x', 'fast@x']);
  });

  it('ExclusiveGateway#listeners should let a start listener set what the gateway’s conditions read', async () => {
    const { handlers } = logging(['decide'], { decide: () => ({ route: 'b' }) });
    const engine = await engineWith(
      bpmn(`<bpmn:startEvent id="s" /><bpmn:exclusiveGateway id="g">${ext(listeners(['start', 'decide']))}</bpmn:exclusiveGateway>
        <bpmn:endEvent id="a" /><bpmn:endEvent id="b" />
        ${chain('s', 'g')}${flow('fa', 'g', 'a', '=route = "a"')}${flow('fb', 'g', 'b', '=route = "b"')}`),
      handlers,
    );
    const id = await engine.start('p');
    expect((await engine.settled(id)).status).toBe('completed');
    expect((await engine.instance(id))!.history.map((entry) => entry.node)).toEqual(['s', 'g', 'b']);
  });

  it('ParallelGateway#listeners should run a joining gateway’s start listeners once, when the join fires', async () => {
    const { calls, handlers } = logging(['joined']);
    const engine = await engineWith(
      bpmn(`<bpmn:startEvent id="s" /><bpmn:parallelGateway id="fork" /><bpmn:task id="l" /><bpmn:task id="r" />
        <bpmn:parallelGateway id="join">${ext(listeners(['start', 'joined']))}</bpmn:parallelGateway><bpmn:endEvent id="e" />
        ${chain('s', 'fork')}${flow('f1', 'fork', 'l')}${flow('f2', 'fork', 'r')}${flow('f3', 'l', 'join')}${flow('f4', 'r', 'join')}${chain('join', 'e')}`),
      handlers,
    );
    const id = await engine.start('p');
    expect((await engine.settled(id)).status).toBe('completed');
    expect(calls).toEqual(['joined@join']);
    expect((await engine.instance(id))!.history.filter((entry) => entry.node === 'join')).toHaveLength(1);
  });

  it('UserTask#listeners should open the user task after its start listeners, and leave it after its end listeners', async () => {
    // given a user task assigned to whoever a start listener names
    const { calls, handlers } = logging(['assign', 'close'], { assign: () => ({ who: 'ann' }) });
    const xml = around(
      `<bpmn:userTask id="x">${ext(`<zeebe:assignmentDefinition assignee="=who" />${listeners(['start', 'assign'], ['end', 'close'])}`)}</bpmn:userTask>`,
    );
    const engine = await engineWith(xml, handlers);

    // when an instance runs to the task
    const id = await engine.start('p');
    const waiting = await engine.settled(id);

    // then the task is open, assigned as the listener said, and the end listener has not run
    expect(waiting.status === 'waiting' && waiting.userTasks.map((t) => t.assignee)).toEqual(['ann']);
    expect(calls).toEqual(['assign@x']);

    // when it is completed
    await engine.completeUserTask(waiting.status === 'waiting' ? waiting.userTasks[0]!.id : '', { ok: true });

    // then the end listener ran before the instance went on
    expect((await engine.settled(id)).status).toBe('completed');
    expect(calls).toEqual(['assign@x', 'close@x']);
  });

  it('should tell listener jobs apart in job events, and leave a user task’s touchpoint open until the task is done', async () => {
    // given a user task (a touchpoint) with a start listener
    const events: EngineEvent[] = [];
    const { handlers } = logging(['prepare']);
    const engine = await engineWith(
      around(`<bpmn:userTask id="x">${ext(listeners(['start', 'prepare']))}</bpmn:userTask>`),
      handlers,
    );
    engine.on('*', (event) => events.push(event));

    // when an instance runs to the task
    const id = await engine.start('p');
    await engine.settled(id);

    // then the listener's job events name it, and the task's question is asked, not answered by the listener
    const jobEvents = events.filter((event) => event.type.startsWith('job.'));
    expect(jobEvents.map((event) => [event.type, 'listener' in event ? event.listener : undefined])).toEqual([
      ['job.dispatched', 'start'],
      ['job.completed', 'start'],
    ]);
    expect((await engine.instance(id))!.touchpoints).toMatchObject([
      { elementId: 'x', state: 'now', attempts: 1, answeredAt: null },
    ]);
  });

  it('EventBasedGateway#listeners should keep the winning event’s payload while the winner’s start listener runs', async () => {
    // given an event-based gateway (with a start listener) before a message catch (with one) and a timer catch
    const { calls, jobs, handlers } = logging(['armed', 'seen']);
    const engine = await engineWith(
      withRoots(
        message('m', 'paid', '=orderId'),
        `<bpmn:startEvent id="s" /><bpmn:eventBasedGateway id="g">${ext(listeners(['start', 'armed']))}</bpmn:eventBasedGateway>
        <bpmn:intermediateCatchEvent id="x">${ext(listeners(['start', 'seen']))}<bpmn:messageEventDefinition messageRef="m" /></bpmn:intermediateCatchEvent>
        <bpmn:intermediateCatchEvent id="t"><bpmn:timerEventDefinition><bpmn:timeDuration>PT1H</bpmn:timeDuration></bpmn:timerEventDefinition></bpmn:intermediateCatchEvent>
        <bpmn:endEvent id="e" /><bpmn:endEvent id="e2" />${chain('s', 'g', 'x', 'e')}${flow('ft', 'g', 't')}${chain('t', 'e2')}`,
      ),
      handlers,
    );
    const id = await engine.start('p', { variables: { orderId: 'O-1' } });
    await engine.settled(id);

    // when the message arrives
    await engine.correlateMessage('paid', { correlationKey: 'O-1', variables: { amount: 5 } });

    // then the winner's start listener ran before it completed with the message's variables
    expect((await engine.settled(id)).status).toBe('completed');
    expect(calls).toEqual(['armed@g', 'seen@x']);
    expect(jobs[1]!.variables).not.toHaveProperty('amount');
    expect((await engine.instance(id))!.variables).toEqual({ orderId: 'O-1', amount: 5 });
  });

  it('IntermediateCatchEvent#listeners should arm the timer after its start listeners, from what they set', async () => {
    // given a timer catch event whose duration a start listener gives
    const clock = new VirtualClock();
    const { calls, handlers } = logging(['plan', 'done'], { plan: () => ({ wait: 'PT2H' }) });
    const engine = new Engine({ repository: createMemoryRepository(), handlers, clock: clock.view() });
    await engine.deploy(
      around(
        `<bpmn:intermediateCatchEvent id="x">${ext(listeners(['start', 'plan'], ['end', 'done']))}<bpmn:timerEventDefinition><bpmn:timeDuration>=wait</bpmn:timeDuration></bpmn:timerEventDefinition></bpmn:intermediateCatchEvent>`,
      ),
    );

    // when an instance runs to the event
    const id = await engine.start('p');
    const waiting = await engine.settled(id);

    // then the timer is due in two hours; when they pass, the end listener runs and the instance completes
    expect(waiting.status === 'waiting' && waiting.timers.map((t) => t.dueAt - clock.now())).toEqual([2 * 3_600_000]);
    clock.advance(2 * 3_600_000);
    expect((await engine.settled(id)).status).toBe('completed');
    expect(calls).toEqual(['plan@x', 'done@x']);
  });
});

describe('end listeners', () => {
  it('ServiceTask#listeners should run end listeners after the output mappings, seeing what the task produced, their variables in the flow scope', async () => {
    // given a task mapping its result out, with two end listeners
    const { calls, jobs, handlers } = logging(['work', 'check', 'close'], {
      work: () => ({ raw: 2 }),
      check: (job) => ({ checked: (job.variables.out as number) * 10 }),
      close: (job) => ({ closed: job.variables.checked }),
    });
    const engine = await engineWith(
      around(
        task(
          `<zeebe:ioMapping><zeebe:output source="=raw + 1" target="out" /></zeebe:ioMapping>${listeners(['end', 'check'], ['end', 'close'])}`,
        ),
      ),
      handlers,
    );

    // when an instance runs
    const id = await engine.start('p');
    expect((await engine.settled(id)).status).toBe('completed');

    // then the end listeners ran in order after the task, reading its result and its mapped output
    expect(calls).toEqual(['work@x', 'check@x', 'close@x']);
    expect(jobs[1]!.variables).toMatchObject({ raw: 2, out: 3 });
    // and their variables are the flow scope's (here the process's), beside the mapped output
    expect((await engine.instance(id))!.variables).toEqual({ out: 3, checked: 30, closed: 30 });
  });

  it('EndEvent#listeners should run a none end event’s end listeners before the instance completes', async () => {
    const { calls, handlers } = logging(['bye']);
    const engine = await engineWith(
      bpmn(
        `<bpmn:startEvent id="s" /><bpmn:endEvent id="e">${ext(listeners(['start', 'bye'], ['end', 'bye']))}</bpmn:endEvent>${chain('s', 'e')}`,
      ),
      handlers,
    );
    const id = await engine.start('p');
    expect((await engine.settled(id)).status).toBe('completed');
    expect(calls).toEqual(['bye@e', 'bye@e']);
    expect((await engine.instance(id))!.history.map((entry) => entry.node)).toEqual(['s', 'e']);
  });

  it('EndEvent#listeners should run a terminate end event’s end listeners before it terminates its scope', async () => {
    // given a sub-process where a terminate end event (with an end listener) races a user task
    const { calls, handlers } = logging(['last']);
    const engine = await engineWith(
      around(`<bpmn:subProcess id="x"><bpmn:startEvent id="in" /><bpmn:parallelGateway id="fork" /><bpmn:userTask id="wait" />
        <bpmn:endEvent id="kill">${ext(listeners(['end', 'last']))}<bpmn:terminateEventDefinition /></bpmn:endEvent><bpmn:endEvent id="out" />
        ${chain('in', 'fork')}${flow('f1', 'fork', 'wait')}${flow('f2', 'fork', 'kill')}${chain('wait', 'out')}</bpmn:subProcess>`),
      handlers,
    );

    // when it runs
    const id = await engine.start('p');

    // then the listener ran, then the sub-process was terminated inside, and the process went on
    expect((await engine.settled(id)).status).toBe('completed');
    expect(calls).toEqual(['last@kill']);
    expect(await engine.userTasks({ instanceId: id })).toEqual([]);
  });

  it('EndEvent#listeners should skip an escalation end event’s end listeners when an interrupting catcher takes it', async () => {
    const { calls, handlers } = logging(['never', 'caught']);
    const engine = await engineWith(
      withRoots(
        escalation('esc', 'UP'),
        `<bpmn:startEvent id="s" />
        <bpmn:subProcess id="sub"><bpmn:startEvent id="in" /><bpmn:endEvent id="up">${ext(listeners(['end', 'never']))}<bpmn:escalationEventDefinition escalationRef="esc" /></bpmn:endEvent>${chain('in', 'up')}</bpmn:subProcess>
        <bpmn:boundaryEvent id="b" attachedToRef="sub">${ext(listeners(['end', 'caught']))}<bpmn:escalationEventDefinition escalationRef="esc" /></bpmn:boundaryEvent>
        <bpmn:endEvent id="e" /><bpmn:endEvent id="e2" />${chain('s', 'sub', 'e')}${chain('b', 'e2')}`,
      ),
      handlers,
    );
    const id = await engine.start('p');
    expect((await engine.settled(id)).status).toBe('completed');
    expect(calls).toEqual(['caught@b']);
  });
});

describe('listener failures', () => {
  it('should retry a failing listener with its own retries, raise an incident when they run out, and go on from it after retryIncident', async () => {
    // given a task whose second start listener fails three times with two retries, then succeeds
    const events: EngineEvent[] = [];
    const { calls, handlers } = logging(['first', 'flaky', 'work'], {
      flaky: (job) => {
        if (job.attempt <= 3) throw new Error(`down ${job.attempt}`);
        return { up: true };
      },
    });
    const engine = await engineWith(
      around(task(listeners(['start', 'first'], ['start', 'flaky', 'retries="2"']))),
      handlers,
    );
    engine.on('*', (event) => events.push(event));

    // when an instance runs
    const id = await engine.start('p');
    const stuck = await engine.settled(id);

    // then the listener's two attempts failed, its incident names it, and the task's job never ran
    expect(stuck.status === 'waiting' && stuck.incidents.map((i) => [i.nodeId, i.kind, i.message])).toEqual([
      ['x', 'job-failed', 'handler failed: down 2'],
    ]);
    expect(calls).toEqual(['first@x', 'flaky@x', 'flaky@x']);
    expect(events.filter((e) => e.type === 'job.failed').map((e) => e.type === 'job.failed' && e.elementId)).toEqual([
      'x',
      'x',
    ]);

    // when the incident is retried: one more failure (fresh retries), then success
    await engine.retryIncident(stuck.status === 'waiting' ? stuck.incidents[0]!.id : '');

    // then the first listener did not run again, and the task went on
    expect((await engine.settled(id)).status).toBe('completed');
    expect(calls).toEqual(['first@x', 'flaky@x', 'flaky@x', 'flaky@x', 'flaky@x', 'work@x']);
  });

  it('should raise an incident naming a listener whose job throws a BPMN error, which Zeebe refuses too', async () => {
    let thrown = 0;
    const engine = await engineWith(around(task(listeners(['end', 'strict']))), {
      work: () => ({}),
      strict: () => {
        thrown += 1;
        if (thrown === 1) throw new BpmnError('NOPE', 'not allowed');
        return {};
      },
    });
    const id = await engine.start('p');
    const stuck = await engine.settled(id);
    expect(stuck.status === 'waiting' && stuck.incidents.map((i) => i.message)).toEqual([
      expect.stringMatching(
        /^the end listener "strict" threw the BPMN error NOPE \(not allowed\), which a listener cannot throw, as in Zeebe/,
      ),
    ]);
    await engine.retryIncident(stuck.status === 'waiting' ? stuck.incidents[0]!.id : '');
    expect((await engine.settled(id)).status).toBe('completed');
  });

  it('should raise an incident on a listener type that evaluates to no type, and run only that listener again once retried', async () => {
    // given a second start listener whose type is known only from 01:00 on
    const clock = new VirtualClock(Date.parse('2026-01-01T00:00:00Z'));
    const { calls, handlers } = logging(['first', 'later', 'work']);
    const type = '=if now() &gt;= date and time(&quot;2026-01-01T01:00:00Z&quot;) then &quot;later&quot; else null';
    const engine = await engineWith(around(task(listeners(['start', 'first'], ['start', type]))), handlers, clock);

    // when an instance runs before then
    const id = await engine.start('p');
    const stuck = await engine.settled(id);

    // then the second listener's type is an incident on the task
    expect(stuck.status === 'waiting' && stuck.incidents.map((i) => [i.kind, i.message])).toEqual([
      [
        'expression-failed',
        expect.stringMatching(
          /^zeebe:executionListener type "=if now\(\).*" evaluated to null: a job type must be a non-empty string/,
        ),
      ],
    ]);

    // when it is retried after 01:00
    clock.advance(3_600_000);
    await engine.retryIncident(stuck.status === 'waiting' ? stuck.incidents[0]!.id : '');

    // then that listener ran, and the one before it did not run again
    expect((await engine.settled(id)).status).toBe('completed');
    expect(calls).toEqual(['first@x', 'later@x', 'work@x']);
  });
});

describe('interrupting and cancelling skip listeners', () => {
  const hour = 3_600_000;

  /** A sub-process with a one-hour interrupting timer, holding a task `x` whose `hold` listener never answers by itself. */
  async function heldInSubProcess(event: 'start' | 'end') {
    const clock = new VirtualClock();
    const held = gate<Record<string, unknown>>();
    const dispatched = gate();
    const { calls, handlers } = logging(['work', 'hold', 'rest', 'late']);
    handlers.hold = (job) => {
      calls.push(`hold@${job.elementId}`);
      dispatched.open();
      return held.promise;
    };
    const engine = await engineWith(
      bpmn(`<bpmn:startEvent id="s" />
        <bpmn:subProcess id="sub">${ext(listeners(['end', 'late']))}<bpmn:startEvent id="in" />${task(listeners([event, 'hold'], [event, 'rest'], ['end', 'late']))}<bpmn:endEvent id="out" />${chain('in', 'x', 'out')}</bpmn:subProcess>
        <bpmn:boundaryEvent id="timeout" attachedToRef="sub"><bpmn:timerEventDefinition><bpmn:timeDuration>PT1H</bpmn:timeDuration></bpmn:timerEventDefinition></bpmn:boundaryEvent>
        <bpmn:endEvent id="e" /><bpmn:endEvent id="timedOut" />${chain('s', 'sub', 'e')}${chain('timeout', 'timedOut')}`),
      handlers,
      clock,
    );
    const id = await engine.start('p');
    await dispatched.promise;
    return { engine, id, clock, calls, held };
  }

  it.each([['start'], ['end']] as const)(
    'should skip the rest of an element’s %s listeners, and its sub-process’s end listeners, when a boundary timer interrupts the sub-process',
    async (event) => {
      // given a task inside a timed sub-process, its first listener in flight
      const { engine, id, clock, calls, held } = await heldInSubProcess(event);

      // when the hour passes, and the held listener answers late
      clock.advance(hour);
      held.open({ late: true });

      // then the sub-process was interrupted: no other listener ran, the late answer changed nothing
      expect((await engine.settled(id)).status).toBe('completed');
      expect(calls).toEqual(event === 'start' ? ['hold@x'] : ['work@x', 'hold@x']);
      const after = (await engine.instance(id))!;
      expect(after.history.map((entry) => entry.node)).toEqual(['s', 'in', 'timeout', 'timedOut']);
      expect(after.variables).toEqual({});
    },
  );

  it('should run no further listener once the instance is cancelled while one is in flight', async () => {
    const { engine, id, calls, held } = await heldInSubProcess('start');
    await engine.cancel(id);
    held.open({});
    expect((await engine.settled(id)).status).toBe('terminated');
    expect(calls).toEqual(['hold@x']);
  });
});
