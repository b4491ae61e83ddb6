/**
 * What `settled` reports an instance waits on, on clocks that move by hand: a timer that fell due while no
 * engine ran has fired by the time a recovered instance settles (never listed stale); a retry backoff is a
 * wait on time with its due time, attempt and last error, that advancing the clock ends; a backoff that ran
 * out while no engine ran is dispatched at once; and a task type with no handler is a job-failed incident at
 * once, never a backoff a retry cannot mend. Found in issue 11; each test keeps its root cause.
 */
import { createMemoryRepository, type Repository } from '@thresher/checkpoint';
import { simulateCrash, VirtualClock } from '@thresher/testing';
import { describe, expect, it } from 'vitest';
import { Engine } from '../src/engine.js';
import type { Handlers, Job, SettledState } from '../src/index.js';
import { systemClock } from '../src/runtime/base/clock.js';
import { around, bpmn, chain, ext, timer } from './fixtures/bpmn/xml.js';

/** start → timer `wait` (PT1H) → user task `next` → end. */
const timerThenTask = bpmn(`<bpmn:startEvent id="start" />
  <bpmn:intermediateCatchEvent id="wait">${timer('timeDuration', 'PT1H')}</bpmn:intermediateCatchEvent>
  <bpmn:userTask id="next" />
  <bpmn:endEvent id="end" />
  ${chain('start', 'wait', 'next', 'end')}`);

const HOUR = 3_600_000;

function waiting(state: SettledState): Extract<SettledState, { status: 'waiting' }> {
  if (state.status !== 'waiting') throw new Error(`expected waiting, got ${state.status}`);
  return state;
}

describe('Engine#settled after recover', () => {
  // Root cause: resume() woke the instance at a timer already due through clock.setTimeout(…, 0), so the
  // timer.fired step was not queued yet when settled() looked, and it reported the stale timer.
  it('should report the state after a timer that fell due while no engine ran, never the stale timer', async () => {
    // given an instance parked at a one-hour timer, its engine abandoned (its clock timers die with it)
    const repository: Repository = createMemoryRepository();
    const clock = new VirtualClock();
    const firstView = clock.view();
    const first = new Engine({ repository, clock: firstView });
    await first.deploy(timerThenTask);
    const id = await first.start('p');
    expect(waiting(await first.settled(id)).timers.map((t) => t.elementId)).toEqual(['wait']);
    firstView.dispose();

    // when two hours pass and a new engine recovers the instance
    clock.advance(2 * HOUR);
    const second = new Engine({ repository, clock: clock.view() });
    await second.recover();
    const settled = waiting(await second.settled(id));

    // then the timer has fired and the instance waits at the next user task, with no timer left
    expect(settled.timers).toEqual([]);
    expect(settled.userTasks.map((task) => task.elementId)).toEqual(['next']);
    expect((await second.instance(id))!.history.map((entry) => entry.node)).toEqual(['start', 'wait']);
  });

  it('should complete an instance whose last wait was a timer that fell due while no engine ran', async () => {
    // given start → timer → end, parked at its timer, its engine abandoned
    const repository = createMemoryRepository();
    const clock = new VirtualClock();
    const firstView = clock.view();
    const first = new Engine({ repository, clock: firstView });
    await first.deploy(
      bpmn(`<bpmn:startEvent id="start" />
        <bpmn:intermediateCatchEvent id="wait">${timer('timeDuration', 'PT1H')}</bpmn:intermediateCatchEvent>
        <bpmn:endEvent id="end" />
        ${chain('start', 'wait', 'end')}`),
    );
    const id = await first.start('p');
    await first.settled(id);
    firstView.dispose();

    // when the timer's due time passes and a new engine recovers
    clock.advance(HOUR);
    const second = new Engine({ repository, clock: clock.view() });
    await second.recover();

    // then settled reports it completed
    expect((await second.settled(id)).status).toBe('completed');
  });
});

/** start → service task `x` of type `pay` (three attempts) → end. */
const payTask = around(
  `<bpmn:serviceTask id="x">${ext('<zeebe:taskDefinition type="pay" retries="3" />')}</bpmn:serviceTask>`,
);

/** A `pay` handler failing its first `failures` attempts ("gateway down #n"), then paying. */
function flaky(failures: number): { attempts: number[]; handlers: Handlers } {
  const attempts: number[] = [];
  return {
    attempts,
    handlers: {
      pay: (job: Job) => {
        attempts.push(job.attempt);
        if (job.attempt <= failures) throw new Error(`gateway down #${job.attempt}`);
        return { paid: true };
      },
    },
  };
}

describe('Engine#settled during a retry backoff', () => {
  // Root cause: a pending backoff counted as work under way, so settled() waited for a clock that only
  // moves when the caller moves it, and Node exited with the promise unsettled (code 13).
  it('should report a backoff as a wait on time that a virtual clock moved by hand can be advanced to', async () => {
    // given a handler that fails twice then succeeds, on a virtual clock, with the default backoff (1 s, 2 s)
    const clock = new VirtualClock();
    const { attempts, handlers } = flaky(2);
    const engine = new Engine({ repository: createMemoryRepository(), handlers, clock: clock.view() });
    await engine.deploy(payTask);
    const startedAt = clock.now();
    const id = await engine.start('p');

    // when it is settled after the first failure
    const first = waiting(await engine.settled(id));

    // then one retry is listed: the second attempt, due after the first backoff, with the failure's message
    expect(first.retries).toEqual([
      {
        elementId: 'x',
        jobId: expect.any(String),
        taskType: 'pay',
        attempt: 2,
        dueAt: startedAt + 1000,
        error: 'gateway down #1',
      },
    ]);
    expect(first.timers).toEqual([]);

    // when the clock is advanced to each listed due time and the instance settled again
    clock.advanceTo(first.retries[0]!.dueAt);
    const second = waiting(await engine.settled(id));
    expect(second.retries.map(({ attempt, dueAt, error }) => ({ attempt, dueAt, error }))).toEqual([
      { attempt: 3, dueAt: startedAt + 1000 + 2000, error: 'gateway down #2' },
    ]);
    clock.advanceTo(second.retries[0]!.dueAt);

    // then the third attempt runs and the instance completes
    expect((await engine.settled(id)).status).toBe('completed');
    expect(attempts).toEqual([1, 2, 3]);
    await engine.close();
  });

  it('should wait the retries out with { retries: "wait" } on a clock that moves by itself', async () => {
    // given a handler that fails twice then succeeds, on the system clock with a 1 ms backoff
    const { attempts, handlers } = flaky(2);
    const engine = new Engine({ repository: createMemoryRepository(), handlers, clock: systemClock, backoff: () => 1 });
    await engine.deploy(payTask);
    const id = await engine.start('p');

    // when settled waits the retries out
    const settled = await engine.settled(id, { retries: 'wait' });

    // then it resolves only once the third attempt completed the instance
    expect(settled.status).toBe('completed');
    expect(attempts).toEqual([1, 2, 3]);
  });

  it('should dispatch at once, and never list, a backoff that ran out while no engine ran', async () => {
    // given an instance waiting out its first backoff, its engine abandoned
    const repository = createMemoryRepository();
    const clock = new VirtualClock();
    const firstView = clock.view();
    const first = new Engine({ repository, handlers: flaky(1).handlers, clock: firstView });
    await first.deploy(payTask);
    const id = await first.start('p');
    const parked = waiting(await first.settled(id));
    expect(parked.retries).toHaveLength(1);
    firstView.dispose();
    simulateCrash(first);

    // when its due time passes and a new engine recovers it
    clock.advanceTo(parked.retries[0]!.dueAt + 1);
    const { attempts, handlers } = flaky(1);
    const second = new Engine({ repository, handlers, clock: clock.view() });
    await second.recover();

    // then the second attempt runs without the clock moving, and the instance completes
    expect((await second.settled(id)).status).toBe('completed');
    expect(attempts).toEqual([2]);
  });
});

/** start → service task `x` of type `charge-payment` (three attempts) → end. */
const chargeTask = around(
  `<bpmn:serviceTask id="x">${ext('<zeebe:taskDefinition type="charge-payment" retries="3" />')}</bpmn:serviceTask>`,
);

const NO_CHARGE_HANDLER =
  'no handler for task type "charge-payment"; handlers are registered for: ship-order, notify ' +
  '(register one with engine.handle("charge-payment", …) or new Engine({ handlers }))';

/** Handlers for every type but `charge-payment`. */
const otherHandlers = (): Handlers => ({ 'ship-order': () => ({}), notify: () => ({}) });

describe('A task type with no handler', () => {
  // Root cause: callHandler reported a missing handler as a failure a retry may mend, so it was retried
  // with backoff (seconds of it) before the incident, though no retry can register a handler.
  it('should raise a job-failed incident at once, with no retry and no backoff', async () => {
    // given no handler for charge-payment, on a virtual clock (a backoff would be listed, not waited out)
    const engine = new Engine({
      repository: createMemoryRepository(),
      handlers: otherHandlers(),
      clock: new VirtualClock().view(),
    });
    await engine.deploy(chargeTask);
    const events: string[] = [];
    engine.on('*', (event) => {
      if (event.type.startsWith('job.') || event.type === 'incident.raised') events.push(event.type);
    });

    // when the instance reaches the task
    const id = await engine.start('p');
    const settled = waiting(await engine.settled(id));

    // then it was dispatched once and stopped by an incident naming the type and the registered handlers
    expect(events).toEqual(['job.dispatched', 'job.failed', 'incident.raised']);
    expect(settled.retries).toEqual([]);
    expect(settled.incidents).toHaveLength(1);
    expect(settled.incidents[0]).toMatchObject({ kind: 'job-failed', nodeId: 'x', message: NO_CHARGE_HANDLER });
  });

  it('should say that no handlers are registered when there are none', async () => {
    const engine = new Engine({ repository: createMemoryRepository(), clock: new VirtualClock().view() });
    await engine.deploy(chargeTask);

    const id = await engine.start('p');

    expect(waiting(await engine.settled(id)).incidents[0]!.message).toBe(
      'no handler for task type "charge-payment"; no handlers are registered ' +
        '(register one with engine.handle("charge-payment", …) or new Engine({ handlers }))',
    );
  });

  it('should run a handler registered afterwards once the incident is retried', async () => {
    // given an instance stopped by the missing handler
    const engine = new Engine({
      repository: createMemoryRepository(),
      handlers: otherHandlers(),
      clock: new VirtualClock().view(),
    });
    await engine.deploy(chargeTask);
    const id = await engine.start('p');
    const [incident] = waiting(await engine.settled(id)).incidents;

    // when a handler is registered and the incident retried
    const attempts: number[] = [];
    engine.handle('charge-payment', (job) => {
      attempts.push(job.attempt);
      return { charged: true };
    });
    await engine.retryIncident(incident!.id);

    // then the new handler ran and the instance completed
    expect((await engine.settled(id)).status).toBe('completed');
    expect(attempts).toEqual([2]);
    expect((await engine.instance(id))!.variables).toEqual({ charged: true });
  });

  it('should raise the incident at once for a restored job whose new engine lacks the handler', async () => {
    // given a charge-payment job in flight when its engine was abandoned
    const repository = createMemoryRepository();
    const clock = new VirtualClock();
    const firstView = clock.view();
    const first = new Engine({
      repository,
      handlers: { 'charge-payment': () => new Promise<never>(() => {}) },
      clock: firstView,
    });
    await first.deploy(chargeTask);
    const id = await first.start('p');
    firstView.dispose();
    simulateCrash(first);

    // when an engine without that handler recovers it
    const second = new Engine({ repository, handlers: otherHandlers(), clock: clock.view() });
    await second.recover();
    const settled = waiting(await second.settled(id));

    // then the incident is raised at once, naming the type and the handlers there are
    expect(settled.retries).toEqual([]);
    expect(settled.incidents.map((incident) => incident.message)).toEqual([NO_CHARGE_HANDLER]);
  });
});
