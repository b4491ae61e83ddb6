import { type AnyStateMachine, setup, transition } from 'xstate';
import { IllegalTransitionError } from './errors.js';

/**
 * The lifecycles of tracks and scopes as XState v5 machines. The instance loop holds each record's state
 * as plain data and advances it here with XState's pure `transition`; no live actor exists. Every XState
 * call in the engine goes through this module, so the version and the call path are pinned in one place.
 */

/** A track (token): arrives at an element, maybe waits, leaves along flows, and ends. */
export const trackMachine = setup({
  types: {
    events: {} as
      | { type: 'WAIT' }
      | { type: 'RESUME' }
      | { type: 'COMPLETE' }
      | { type: 'MOVE' }
      | { type: 'END' }
      | { type: 'FAIL' }
      | { type: 'RETRY_ENTER' }
      | { type: 'RETRY_WAIT' }
      | { type: 'RETRY_LEAVE' }
      | { type: 'CANCEL' },
  },
}).createMachine({
  id: 'track',
  initial: 'entering',
  states: {
    entering: { on: { WAIT: 'waiting', COMPLETE: 'leaving', END: 'done', FAIL: 'incident', CANCEL: 'cancelled' } },
    waiting: { on: { RESUME: 'leaving', END: 'done', FAIL: 'incident', CANCEL: 'cancelled' } },
    leaving: { on: { MOVE: 'entering', END: 'done', FAIL: 'incident', CANCEL: 'cancelled' } },
    incident: {
      on: {
        RETRY_ENTER: 'entering',
        RETRY_WAIT: 'waiting',
        RETRY_LEAVE: 'leaving',
        FAIL: 'incident',
        CANCEL: 'cancelled',
      },
    },
    done: { type: 'final' },
    cancelled: { type: 'final' },
  },
});

/** A scope (an activation of a container with its data): open until its tracks drain or it is terminated. */
export const scopeMachine = setup({
  types: { events: {} as { type: 'COMPLETE' } | { type: 'TERMINATE' } },
}).createMachine({
  id: 'scope',
  initial: 'active',
  states: {
    active: { on: { COMPLETE: 'completed', TERMINATE: 'terminated' } },
    completed: { type: 'final' },
    terminated: { type: 'final' },
  },
});

export type TrackState = 'entering' | 'waiting' | 'leaving' | 'incident' | 'done' | 'cancelled';
export type TrackEvent = Parameters<typeof trackMachine.transition>[1]['type'];
export type ScopeState = 'active' | 'completed' | 'terminated';
export type ScopeEvent = Parameters<typeof scopeMachine.transition>[1]['type'];

const initialCache = new Map<AnyStateMachine, string>();

/** The initial state value of a machine. */
export function initialState(machine: AnyStateMachine): string {
  let value = initialCache.get(machine);
  if (value === undefined) {
    value = String(machine.resolveState({ value: machine.config.initial as string, context: {} }).value);
    initialCache.set(machine, value);
  }
  return value;
}

/**
 * Advance a stored state value by one event with XState's pure transition. Throws
 * `IllegalTransitionError` when the lifecycle does not allow the event from that state.
 */
function advance(machine: AnyStateMachine, state: string, type: string): string {
  // The machines have no context, guards or actions: (state, event) decides the next state, so each pair
  // is asked of XState once and remembered (its pure transition builds a throwaway actor per call).
  const key = `${machine.id}|${state}|${type}`;
  let next = transitions.get(key);
  if (next === undefined) {
    const snapshot = machine.resolveState({ value: state, context: {} });
    next =
      machine.getTransitionData(snapshot, { type }).length === 0
        ? null
        : String(transition(machine, snapshot, { type })[0].value);
    transitions.set(key, next);
  }
  if (next === null) throw new IllegalTransitionError(machine.id, state, type);
  return next;
}

const transitions = new Map<string, string | null>();

export function advanceTrack(state: string, event: TrackEvent): TrackState {
  return advance(trackMachine, state, event) as TrackState;
}

export function advanceScope(state: string, event: ScopeEvent): ScopeState {
  return advance(scopeMachine, state, event) as ScopeState;
}
