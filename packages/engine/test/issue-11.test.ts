/**
 * Defects of the runtime found in issue 11: what `settled` reports after a recovery and while a job backs
 * off, on clocks that move by hand.
 */
import { createMemoryRepository, type Repository } from '@thresher/checkpoint';
import { describe, expect, it } from 'vitest';
import type { SettledState } from '../src/api-types.js';
import { Engine } from '../src/engine.js';
import { VirtualClock } from '../src/testing/virtual-clock.js';
import { bpmn, chain, timer } from './fixtures/bpmn/xml.js';

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
