/**
 * The lifecycles of the instance's records as XState machines: tracks, scopes and compensation sweeps. A
 * multi-instance group and a call have no machine of their own: each is a track's wait plus a record the
 * track machine already moves (docs/design/composites.md).
 *
 * @module
 */
export { moveBy, type Performers, type Step } from './adapter.js';
export {
  advanceScope,
  initialScopeState,
  type ScopeAction,
  type ScopeEvent,
  type ScopeState,
  scopeMachine,
} from './scope.js';
export {
  advanceSweep,
  initialSweepState,
  type SweepAction,
  type SweepEvent,
  type SweepState,
  sweepMachine,
} from './sweep.js';
export {
  advanceTrack,
  initialTrackState,
  type TrackAction,
  type TrackEvent,
  type TrackState,
  trackMachine,
} from './track.js';
