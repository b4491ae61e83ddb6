import { describe, expect, it } from 'vitest';
import { IllegalTransitionError } from '../src/common/errors.js';
import {
  advanceScope,
  advanceSweep,
  advanceTrack,
  initialScopeState,
  initialSweepState,
  initialTrackState,
  moveBy,
} from '../src/machines/index.js';

describe('track machine', () => {
  it('should start entering an element', () => {
    expect(initialTrackState()).toBe('entering');
  });

  it.each([
    ['entering', 'WAIT', 'waiting'],
    ['entering', 'COMPLETE', 'leaving'],
    ['entering', 'END', 'done'],
    ['waiting', 'RESUME', 'leaving'],
    ['leaving', 'MOVE', 'entering'],
    ['leaving', 'END', 'done'],
    ['waiting', 'FAIL', 'incident'],
    ['incident', 'RETRY_WAIT', 'waiting'],
    ['incident', 'RETRY_ENTER', 'entering'],
    ['incident', 'RETRY_LEAVE', 'leaving'],
    ['waiting', 'CANCEL', 'cancelled'],
    ['entering', 'LISTEN', 'listening'],
    ['leaving', 'LISTEN', 'listening'],
    ['listening', 'STARTED', 'entering'],
    ['listening', 'ENDED', 'leaving'],
    ['listening', 'FAIL', 'incident'],
    ['listening', 'CANCEL', 'cancelled'],
    ['incident', 'RETRY_LISTEN', 'listening'],
    ['waiting', 'JOINED', 'entering'],
  ] as const)('should go from %s on %s to %s', (from, event, to) => {
    expect(advanceTrack(from, event).state).toBe(to);
  });

  it.each([
    ['waiting', 'MOVE'],
    ['entering', 'RESUME'],
    ['done', 'MOVE'],
    ['cancelled', 'RESUME'],
    ['incident', 'COMPLETE'],
    ['listening', 'RESUME'],
    ['listening', 'MOVE'],
    ['waiting', 'STARTED'],
  ] as const)('should throw when a %s track is asked to %s', (from, event) => {
    expect(() => advanceTrack(from, event)).toThrow(IllegalTransitionError);
  });

  it.each([
    ['entering', 'COMPLETE', ['schedule']],
    ['leaving', 'MOVE', ['schedule']],
    ['waiting', 'RESUME', ['schedule']],
    ['incident', 'RETRY_ENTER', ['schedule']],
    ['incident', 'RETRY_LEAVE', ['schedule']],
    ['entering', 'WAIT', []],
    ['incident', 'RETRY_WAIT', []],
    ['waiting', 'FAIL', []],
    ['leaving', 'END', ['retire']],
    ['waiting', 'CANCEL', ['retire']],
    ['entering', 'LISTEN', []],
    ['listening', 'STARTED', ['schedule']],
    ['listening', 'ENDED', ['schedule']],
    ['waiting', 'JOINED', ['schedule']],
    ['incident', 'RETRY_LISTEN', []],
  ] as const)('should return the actions of a move from %s on %s: %j', (from, event, actions) => {
    expect(advanceTrack(from, event).actions).toEqual(actions);
  });
});

describe('scope machine', () => {
  it('should complete or terminate an active scope, and nothing else', () => {
    expect(initialScopeState()).toBe('active');
    expect(advanceScope('active', 'COMPLETE').state).toBe('completed');
    expect(advanceScope('active', 'TERMINATE').state).toBe('terminated');
    expect(() => advanceScope('completed', 'TERMINATE')).toThrow(IllegalTransitionError);
  });

  it('should disarm a closing scope before it resumes its host or is released', () => {
    expect(advanceScope('active', 'COMPLETE').actions).toEqual(['disarm', 'resumeHost']);
    expect(advanceScope('active', 'TERMINATE').actions).toEqual(['disarm', 'release']);
  });

  it('should hold a scope ending while its end listeners run, disarmed, until it completes or is terminated', () => {
    expect(advanceScope('active', 'LISTEN')).toEqual({ state: 'ending', actions: ['disarm'] });
    expect(advanceScope('ending', 'COMPLETE').actions).toEqual(['disarm', 'resumeHost']);
    expect(advanceScope('ending', 'TERMINATE').state).toBe('terminated');
    expect(() => advanceScope('ending', 'LISTEN')).toThrow(IllegalTransitionError);
  });
});

describe('sweep machine', () => {
  it('should run queued entries one at a time, then finish when the queue drains', () => {
    expect(initialSweepState()).toBe('queued');
    expect(advanceSweep('queued', 'RUN')).toEqual({ state: 'running', actions: ['runEntry'] });
    expect(advanceSweep('running', 'HANDLER_DONE')).toEqual({ state: 'queued', actions: [] });
    expect(advanceSweep('queued', 'DRAIN')).toEqual({ state: 'done', actions: ['finish'] });
  });

  it('should never run a second entry while one runs, nor move once done or cancelled', () => {
    expect(() => advanceSweep('running', 'RUN')).toThrow(IllegalTransitionError);
    expect(() => advanceSweep('running', 'DRAIN')).toThrow(IllegalTransitionError);
    expect(advanceSweep('running', 'CANCEL')).toEqual({ state: 'cancelled', actions: [] });
    expect(() => advanceSweep('done', 'CANCEL')).toThrow(IllegalTransitionError);
    expect(() => advanceSweep('cancelled', 'RUN')).toThrow(IllegalTransitionError);
  });
});

describe('moveBy', () => {
  const performers = {
    disarm: (log: string[], path: string) => void log.push(`disarm ${path}`),
    resumeHost: (log: string[], path: string) => void log.push(`resume ${path}`),
    release: (log: string[], path: string) => void log.push(`release ${path}`),
  };

  it('should store the next state on the record and perform its actions in the machine order', () => {
    const scope = { state: 'active' };
    const log: string[] = [];
    moveBy(advanceScope, scope, 'COMPLETE', performers, log, '/sub');
    expect(scope.state).toBe('completed');
    expect(log).toEqual(['disarm /sub', 'resume /sub']);
  });

  it('should leave the record as it was and perform nothing on an illegal move', () => {
    const scope = { state: 'terminated' };
    const log: string[] = [];
    expect(() => moveBy(advanceScope, scope, 'COMPLETE', performers, log, '/sub')).toThrow(IllegalTransitionError);
    expect(scope.state).toBe('terminated');
    expect(log).toEqual([]);
  });
});
