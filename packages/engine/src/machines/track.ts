import { type EventFromLogic, type StateValueFrom, setup } from 'xstate';
import { advance, initialState, type Step } from './adapter.js';

/**
 * What the core does when a track moves: `schedule` puts it on the step's agenda (it has an element to
 * enter or leave); `retire` marks it for removal when the step ends (it is done or cancelled).
 */
const actions = { schedule: () => {}, retire: () => {} };
export type TrackAction = keyof typeof actions;

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
      | { type: 'RETRY_LISTEN' }
      | { type: 'LISTEN' }
      | { type: 'STARTED' }
      | { type: 'ENDED' }
      | { type: 'JOINED' }
      | { type: 'HOLD' }
      | { type: 'RELEASE' }
      | { type: 'TERMINATE' }
      | { type: 'RETRY_TERMINATE' }
      | { type: 'CANCEL' },
  },
  actions,
}).createMachine({
  id: 'track',
  initial: 'entering',
  states: {
    entering: {
      entry: 'schedule',
      on: {
        WAIT: 'waiting',
        COMPLETE: 'leaving',
        END: 'done',
        FAIL: 'incident',
        CANCEL: 'cancelled',
        LISTEN: 'listening',
        HOLD: 'waiting',
      },
    },
    // A join that fired goes back to entering when its gateway has start listeners: they run once, on the survivor.
    // A held interrupter waits too (`held`), and enters its element once released.
    waiting: {
      on: {
        RESUME: 'leaving',
        END: 'done',
        FAIL: 'incident',
        CANCEL: 'cancelled',
        JOINED: 'entering',
        RELEASE: 'entering',
        TERMINATE: 'terminating',
      },
    },
    leaving: {
      entry: 'schedule',
      // A move re-enters `entering` through its entry: the track is scheduled at its next element.
      on: {
        MOVE: 'entering',
        END: 'done',
        FAIL: 'incident',
        CANCEL: 'cancelled',
        LISTEN: 'listening',
        HOLD: 'waiting',
      },
    },
    // Waiting on an execution listener's job: a start listener's completion takes the track back to entering
    // its element, an end listener's to leaving it (`listening` on the record says which, and how far).
    listening: { on: { STARTED: 'entering', ENDED: 'leaving', FAIL: 'incident', CANCEL: 'cancelled' } },
    // A user task being terminated while its canceling listeners run; cancelled once they ran.
    terminating: { on: { FAIL: 'incident', CANCEL: 'cancelled' } },
    incident: {
      on: {
        RETRY_TERMINATE: 'terminating',
        TERMINATE: 'terminating',
        RETRY_ENTER: 'entering',
        RETRY_WAIT: 'waiting',
        RETRY_LEAVE: 'leaving',
        RETRY_LISTEN: 'listening',
        FAIL: 'incident',
        CANCEL: 'cancelled',
      },
    },
    done: { type: 'final', entry: 'retire' },
    cancelled: { type: 'final', entry: 'retire' },
  },
});

export type TrackState = StateValueFrom<typeof trackMachine>;
export type TrackEvent = EventFromLogic<typeof trackMachine>['type'];

/** The state a new track starts in. */
export function initialTrackState(): TrackState {
  return initialState(trackMachine);
}

/** Move a track's stored state by one event; returns its next state and the actions the core performs. */
export function advanceTrack(state: string, event: TrackEvent): Step<TrackState, TrackAction> {
  return advance(trackMachine, state, event);
}
