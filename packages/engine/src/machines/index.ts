/**
 * The lifecycles of the instance's records as XState machines: tracks and scopes today; the
 * multi-instance group, the call and the compensation sweep join them here as machines of their own.
 *
 * @module
 */
export type { Step } from './adapter.js';
export {
  advanceScope,
  initialScopeState,
  type ScopeAction,
  type ScopeEvent,
  type ScopeState,
  scopeMachine,
} from './scope.js';
export {
  advanceTrack,
  initialTrackState,
  type TrackAction,
  type TrackEvent,
  type TrackState,
  trackMachine,
} from './track.js';
