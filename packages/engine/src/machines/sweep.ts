import { type EventFromLogic, type StateValueFrom, setup } from 'xstate';
import { advance, initialState, type Step } from './adapter.js';

/**
 * What the core does as a compensation sweep moves: `runEntry` starts the handler of the next queued entry;
 * `finish` lets the thrower go on (or finishes the transaction it cancels).
 */
const actions = { runEntry: () => {}, finish: () => {} };
export type SweepAction = keyof typeof actions;

/**
 * A compensation sweep (docs/design/compensation.md): queued entries run one at a time — `RUN` the next,
 * `HANDLER_DONE` when its handler's scope drains — until `DRAIN` finds the queue empty; `CANCEL` stops it.
 */
export const sweepMachine = setup({
  types: { events: {} as { type: 'RUN' } | { type: 'HANDLER_DONE' } | { type: 'DRAIN' } | { type: 'CANCEL' } },
  actions,
}).createMachine({
  id: 'sweep',
  initial: 'queued',
  states: {
    queued: { on: { RUN: 'running', DRAIN: 'done', CANCEL: 'cancelled' } },
    running: { entry: 'runEntry', on: { HANDLER_DONE: 'queued', CANCEL: 'cancelled' } },
    done: { type: 'final', entry: 'finish' },
    cancelled: { type: 'final' },
  },
});

export type SweepState = StateValueFrom<typeof sweepMachine>;
export type SweepEvent = EventFromLogic<typeof sweepMachine>['type'];

/** The state a new sweep starts in. */
export function initialSweepState(): SweepState {
  return initialState(sweepMachine);
}

/** Move a sweep's stored state by one event; returns its next state and the actions the core performs. */
export function advanceSweep(state: string, event: SweepEvent): Step<SweepState, SweepAction> {
  return advance(sweepMachine, state, event);
}
