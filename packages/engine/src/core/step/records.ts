import {
  emptyCheckpointBody,
  type IncidentRecord,
  type InstanceRecord,
  type JobRecord,
  type ScopeRecord,
  type TrackRecord,
  type Variables,
} from '@thresher/checkpoint';
import { initialScopeState, initialTrackState } from '../../machines/index.js';
import type { InstanceRecords } from './state.js';

/**
 * The one place the core's records and scope paths are made, so a record's shape and a path's notation
 * are decided once.
 *
 * Scope paths: `/` is the process; an activation of a container is `<parent>/<element>`, its second and
 * later activations in the same parent `<element>#2`, `#3`, … (a loop or a re-entry is a new scope, so
 * step identities inside never repeat a pass's). A multi-instance body adds its ordinal in brackets,
 * `<element>[3]` (after the pass: `<element>#2[3]`): BPMN ids are NCNames, which hold neither `#`, `[`
 * nor `/`, so no element id, pass or ordinal can be read as another.
 */

/** The body of a new instance: its record and an open root scope. */
export function newInstanceBody(instance: InstanceRecord): InstanceRecords {
  // An empty body holds its root scope whole, and no track or user task.
  return emptyCheckpointBody(instance, initialScopeState()) as InstanceRecords;
}

/** Which activation of a container a scope is: its pass in the parent (0 first), and an MI body's ordinal. */
export interface Activation {
  pass: number;
  /** The 1-based ordinal of a multi-instance body. */
  ordinal?: number;
}

/** The path of an activation of `nodeId` inside the scope at `parentPath`. */
export function scopePath(parentPath: string, nodeId: string, activation: Activation): string {
  const base = `${parentPath === '/' ? '' : parentPath}/${nodeId}`;
  const pass = activation.pass === 0 ? '' : `#${activation.pass + 1}`;
  const ordinal = activation.ordinal === undefined ? '' : `[${activation.ordinal}]`;
  return `${base}${pass}${ordinal}`;
}

/** A multi-instance body's ordinal at the end of its path. */
export const ORDINAL = /\[(\d+)\]$/;

/** Whether `scope` is a body of a looping activity (hosted on its element, with an ordinal). */
export function isBodyScope(scope: ScopeRecord | undefined): scope is ScopeRecord & { hostTrack: string } {
  return scope !== undefined && scope.hostTrack !== null && ORDINAL.test(scope.path);
}

/** A new open scope of `nodeId` at `path`, with its data. */
export function newScope(
  path: string,
  nodeId: string,
  parentPath: string,
  hostTrack: string | null,
  data: Variables,
): ScopeRecord {
  return { path, nodeId, hostTrack, parentPath, state: initialScopeState(), data, visits: {} };
}

/** A new track, not yet placed at its element (see `tracks.ts#place`). */
export function newTrack(id: string, scopePath: string): TrackRecord {
  return {
    id,
    scopePath,
    nodeId: '',
    viaFlow: null,
    state: initialTrackState(),
    attempt: 0,
    wait: null,
    locals: null,
    result: null,
  };
}

/** A job for the invocation of `track` at its element. */
export function newJob(
  id: string,
  track: TrackRecord,
  taskType: string,
  identity: string,
  inputDigest: string,
  retries: number,
): JobRecord {
  return {
    id,
    trackId: track.id,
    nodeId: track.nodeId,
    taskType,
    identity,
    inputDigest,
    failures: 0,
    retriesLeft: retries,
    notBefore: null,
    lastError: null,
  };
}

export function newIncident(
  id: string,
  track: TrackRecord,
  kind: IncidentRecord['kind'],
  resume: IncidentRecord['resume'],
  message: string,
  jobId: string | null,
  raisedAt: number,
): IncidentRecord {
  return { id, trackId: track.id, nodeId: track.nodeId, jobId, kind, resume, message, raisedAt };
}
