import type { TimerRecord } from '@thresher/checkpoint';
import { describe, expect, it } from 'vitest';
import { effectsBetween, NOTHING_OWED, type Obligations, obligationsOf } from '../src/core/step/effects.js';
import { scopePath } from '../src/core/step/records.js';
import { InstanceState } from '../src/core/step/state.js';
import { packBody, unpackBody } from '../src/runtime/document/capture.js';
import { bareBody } from './fixtures/bodies.js';

describe('scopePath', () => {
  it.each([
    ['/', 'sub', { pass: 0 }, '/sub'],
    ['/', 'sub', { pass: 1 }, '/sub#2'],
    ['/outer', 'inner', { pass: 0 }, '/outer/inner'],
    ['/outer#3', 'inner', { pass: 2 }, '/outer#3/inner#3'],
    ['/', 'mi', { pass: 0, ordinal: 3 }, '/mi[3]'],
    ['/', 'mi', { pass: 1, ordinal: 3 }, '/mi#2[3]'],
    ['/mi[2]', 'sub', { pass: 0 }, '/mi[2]/sub'],
  ] as const)('should place %s + %s %j at %s', (parent, nodeId, activation, path) => {
    expect(scopePath(parent, nodeId, activation)).toBe(path);
  });

  it('should never give a re-activation and a multi-instance body the same path', () => {
    const paths = new Set<string>();
    for (let pass = 0; pass < 12; pass++) {
      paths.add(scopePath('/', 'x', { pass }));
      for (let ordinal = 1; ordinal < 12; ordinal++) paths.add(scopePath('/', 'x', { pass, ordinal }));
    }
    expect(paths.size).toBe(12 + 12 * 11);
  });
});

const owing = (partial: Partial<Obligations>): Obligations => ({
  jobs: new Map(),
  dueAt: null,
  messageSubscriptions: new Set(),
  outbox: new Set(),
  ended: null,
  yielded: null,
  ...partial,
});

describe('effectsBetween', () => {
  it('should owe a restored state everything it holds, timer first and dispatches after the announcements', () => {
    const restored = owing({
      jobs: new Map([['j1#0', 'j1']]),
      dueAt: 500,
      messageSubscriptions: new Set(['w1']),
      outbox: new Set(['o1']),
    });
    const announce = { type: 'announce', event: { id: 'e', type: 'instance.completed' } } as const;
    expect(effectsBetween(NOTHING_OWED, restored, [announce])).toEqual([
      { type: 'timer.schedule', dueAt: 500 },
      { type: 'message.take', subscriptionIds: ['w1'] },
      announce,
      { type: 'dispatch', jobId: 'j1' },
      { type: 'deliver', entryId: 'o1' },
    ]);
  });

  it('should owe nothing new when a step changed nothing it owes', () => {
    const same = owing({ jobs: new Map([['j1#0', 'j1']]), dueAt: 5, outbox: new Set(['o1']) });
    expect(effectsBetween(same, owing({ ...same }))).toEqual([]);
  });

  it('should dispatch a job again after a failure, and cancel the wake-up once no timer is left', () => {
    const before = owing({ jobs: new Map([['j1#0', 'j1']]), dueAt: 5 });
    const after = owing({ jobs: new Map([['j1#1', 'j1']]) });
    expect(effectsBetween(before, after)).toEqual([{ type: 'timer.cancel' }, { type: 'dispatch', jobId: 'j1' }]);
  });

  it('should owe an instance its end once, first, when it ended with nothing left to deliver', () => {
    const announce = { type: 'announce', event: { id: 'e', type: 'instance.completed' } } as const;
    const ended = owing({ ended: 'completed' });
    expect(effectsBetween(owing({ dueAt: 5 }), ended, [announce])).toEqual([
      { type: 'ended', status: 'completed' },
      { type: 'timer.cancel' },
      announce,
    ]);
    expect(effectsBetween(ended, owing({ ended: 'completed' }))).toEqual([]);
  });

  it('should owe a called child its end only once its last delivery to the parent is made', () => {
    const delivering = owing({ outbox: new Set(['child:ended']) });
    expect(effectsBetween(owing({}), delivering)).toEqual([{ type: 'deliver', entryId: 'child:ended' }]);
    expect(effectsBetween(delivering, owing({ ended: 'terminated' }))).toEqual([
      { type: 'ended', status: 'terminated' },
    ]);
  });
});

describe('effectsBetween a yielded run', () => {
  it('should owe a run that yielded its continuation at every slice, and nothing once it waits', () => {
    expect(effectsBetween(owing({}), owing({ yielded: 1000 }))).toEqual([{ type: 'continue' }]);
    expect(effectsBetween(owing({ yielded: 1000 }), owing({ yielded: 2000 }))).toEqual([{ type: 'continue' }]);
    expect(effectsBetween(owing({ yielded: 2000 }), owing({}))).toEqual([]);
    expect(effectsBetween(NOTHING_OWED, owing({ yielded: 2000 }))).toEqual([{ type: 'continue' }]);
  });
});

describe('obligationsOf', () => {
  it('should say an instance is owed its end only when it ended and its outbox is empty', () => {
    const state = new InstanceState(unpackBody(bareBody()));
    expect(obligationsOf(state).ended).toBeNull();
    state.instance.status = 'completed';
    state.outbox.push({ id: 'x:ended', kind: 'toParent', parentId: 'p', outcome: { status: 'terminated' } });
    expect(obligationsOf(state).ended).toBeNull();
    state.outbox.length = 0;
    expect(obligationsOf(state).ended).toBe('completed');
  });
});

describe('InstanceState', () => {
  it('should read the jobs, incidents, timers and subscriptions it has none of as empty, and see what write() adds', () => {
    const state = new InstanceState(unpackBody(bareBody()));
    expect([state.jobs.size, state.incidents.size, state.timers.size, state.subscriptions.size]).toEqual([0, 0, 0, 0]);
    const timer: TimerRecord = {
      id: 'w1',
      nodeId: 'wait',
      owner: { kind: 'track', trackId: 't1' },
      dueAt: 5,
      cycle: null,
    };
    state.write('timers').set(timer.id, timer);
    expect([...state.timers.values()]).toEqual([timer]);
    expect(state.nextDue()).toBe(5);
    // The others stay empty, and a second state does not see the first one's records.
    expect([state.jobs.size, state.subscriptions.size]).toEqual([0, 0]);
    expect(new InstanceState(unpackBody(bareBody())).timers.size).toBe(0);
    expect(packBody(state).timers).toEqual([timer]);
  });
});
