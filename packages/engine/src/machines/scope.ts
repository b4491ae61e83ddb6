import { type EventFromLogic, type StateValueFrom, setup } from 'xstate';
import { advance, initialState, type Step } from './adapter.js';

/**
 * What the core does when a scope closes: `disarm` drops the waits of its event sub-processes; `resumeHost`
 * lets go of a completed scope (the root completes the instance, a sub-process resumes the track parked on
 * it); `release` removes a terminated scope's record (the root's stays, as the instance's data).
 */
const actions = { disarm: () => {}, resumeHost: () => {}, release: () => {} };
export type ScopeAction = keyof typeof actions;

/**
 * A scope (an activation of a container with its data): open until its tracks drain (and a process's or an
 * event sub-process's end listeners ran) or it is terminated.
 */
export const scopeMachine = setup({
  types: { events: {} as { type: 'COMPLETE' } | { type: 'TERMINATE' } | { type: 'LISTEN' } },
  actions,
}).createMachine({
  id: 'scope',
  initial: 'active',
  states: {
    active: { on: { COMPLETE: 'completed', TERMINATE: 'terminated', LISTEN: 'ending' } },
    // A process or event sub-process whose tracks drained runs its end listeners before it completes; its
    // event sub-processes stop waiting first, as Zeebe unsubscribes before the end listeners run.
    ending: { entry: 'disarm', on: { COMPLETE: 'completed', TERMINATE: 'terminated' } },
    completed: { type: 'final', entry: ['disarm', 'resumeHost'] },
    terminated: { type: 'final', entry: ['disarm', 'release'] },
  },
});

export type ScopeState = StateValueFrom<typeof scopeMachine>;
export type ScopeEvent = EventFromLogic<typeof scopeMachine>['type'];

/** The state a new scope starts in. */
export function initialScopeState(): ScopeState {
  return initialState(scopeMachine);
}

/** Move a scope's stored state by one event; returns its next state and the actions the core performs. */
export function advanceScope(state: string, event: ScopeEvent): Step<ScopeState, ScopeAction> {
  return advance(scopeMachine, state, event);
}
