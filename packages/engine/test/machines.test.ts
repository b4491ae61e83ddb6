import { describe, expect, it } from 'vitest';
import { IllegalTransitionError } from '../src/errors.js';
import { advanceScope, advanceTrack, initialState, scopeMachine, trackMachine } from '../src/machines.js';

describe('track machine', () => {
  it('should start entering an element', () => {
    expect(initialState(trackMachine)).toBe('entering');
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
  ] as const)('should go from %s on %s to %s', (from, event, to) => {
    expect(advanceTrack(from, event)).toBe(to);
  });

  it.each([
    ['waiting', 'MOVE'],
    ['entering', 'RESUME'],
    ['done', 'MOVE'],
    ['cancelled', 'RESUME'],
    ['incident', 'COMPLETE'],
  ] as const)('should throw when a %s track is asked to %s', (from, event) => {
    expect(() => advanceTrack(from, event)).toThrow(IllegalTransitionError);
  });
});

describe('scope machine', () => {
  it('should complete or terminate an active scope, and nothing else', () => {
    expect(initialState(scopeMachine)).toBe('active');
    expect(advanceScope('active', 'COMPLETE')).toBe('completed');
    expect(advanceScope('active', 'TERMINATE')).toBe('terminated');
    expect(() => advanceScope('completed', 'TERMINATE')).toThrow(IllegalTransitionError);
  });
});
