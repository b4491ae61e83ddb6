import type {
  PackedTrack,
  PackedUserTask,
  ScopeRecord,
  TrackRecord,
  TrackWait,
  UserTaskRecord,
} from '@thresher/checkpoint';
import { InvalidStateError } from '../../common/errors.js';

/**
 * User tasks and the tracks waiting on them in the checkpoint document (schema 8). A user task without
 * candidate lists is written as a tuple (its element is its track's). A track that only waits on its user
 * task inside a body written as its path (`body-scopes.ts`) is written as `<id>@<scope path>`: its element
 * is the body's, its wait the user task naming it. Opening the document builds the records again, in their
 * places, so a capture after a restore writes what the capture before it wrote.
 */

/** A track's state while it waits (`machines/track.ts`). */
const WAITING = 'waiting';

/** The tracks as the document writes them: one waiting on its user task in a body written as its path becomes a string. */
export function packTracks(
  tracks: Iterable<TrackRecord>,
  packedBodies: ReadonlySet<string>,
  scopes: ReadonlyMap<string, ScopeRecord>,
  userTasks: ReadonlyMap<string, UserTaskRecord>,
): (TrackRecord | PackedTrack)[] {
  const packed: (TrackRecord | PackedTrack)[] = [];
  for (const track of tracks) {
    const derived = packedBodies.has(track.scopePath) && waitsOnlyOnItsTask(track, scopes, userTasks);
    packed.push(derived ? `${track.id}@${track.scopePath}` : track);
  }
  return packed;
}

/** The user tasks as the document writes them: one without candidate lists becomes a tuple. */
export function packUserTasks(
  userTasks: Iterable<UserTaskRecord>,
  tracks: ReadonlyMap<string, TrackRecord>,
): (UserTaskRecord | PackedUserTask)[] {
  const packed: (UserTaskRecord | PackedUserTask)[] = [];
  for (const task of userTasks) {
    // Six fields are the record without candidate lists (either would be a seventh).
    const plain = Object.keys(task).length === USER_TASK_FIELDS && tracks.get(task.trackId)?.nodeId === task.nodeId;
    packed.push(plain ? [task.id, task.trackId, task.createdAt, task.name, task.assignee] : task);
  }
  return packed;
}

/** A user task's fields without candidate lists: id, trackId, nodeId, name, assignee, createdAt. */
const USER_TASK_FIELDS = 6;

/**
 * The track and user task records a document's lists stand for, in list order, packed entries built again;
 * `scopes` are the scope records, bodies included (`unpackScopes`).
 */
export function unpackWaits(
  trackEntries: readonly (TrackRecord | PackedTrack)[],
  taskEntries: readonly (UserTaskRecord | PackedUserTask)[],
  scopes: readonly ScopeRecord[],
): { tracks: TrackRecord[]; userTasks: UserTaskRecord[] } {
  const tracks: TrackRecord[] = [];
  let taskOf: Map<string, string> | undefined;
  let scopeAt: Map<string, ScopeRecord> | undefined;
  for (const entry of trackEntries) {
    if (typeof entry !== 'string') {
      tracks.push(entry);
      continue;
    }
    // Only a document with packed tracks needs these lookups.
    taskOf ??= tasksByTrack(taskEntries);
    scopeAt ??= new Map(scopes.map((scope) => [scope.path, scope]));
    const at = entry.indexOf('@');
    const id = entry.slice(0, at);
    const scopePath = entry.slice(at + 1);
    const scope = scopeAt.get(scopePath);
    const taskId = taskOf.get(id);
    if (at < 1 || !scope || taskId === undefined) {
      throw new InvalidStateError(`track "${entry}" names no body with a user task of its own`);
    }
    const wait: TrackWait = { kind: 'userTask', taskId };
    tracks.push({
      id,
      scopePath,
      nodeId: scope.nodeId,
      viaFlow: null,
      state: WAITING,
      attempt: 0,
      wait,
      locals: null,
      result: null,
    });
  }
  const userTasks: UserTaskRecord[] = [];
  let trackAt: Map<string, TrackRecord> | undefined;
  for (const entry of taskEntries) {
    if (!Array.isArray(entry)) {
      userTasks.push(entry as UserTaskRecord);
      continue;
    }
    trackAt ??= new Map(tracks.map((track) => [track.id, track]));
    // Indexed, not destructured: this runs once per open user task on every restore.
    const id = entry[0];
    const trackId = entry[1];
    const track = trackAt.get(trackId);
    if (!track) throw new InvalidStateError(`user task "${id}" names no track "${trackId}"`);
    userTasks.push({ id, trackId, nodeId: track.nodeId, name: entry[3], assignee: entry[4], createdAt: entry[2] });
  }
  return { tracks, userTasks };
}

/** Each track's user task, by the track's id. */
function tasksByTrack(taskEntries: readonly (UserTaskRecord | PackedUserTask)[]): Map<string, string> {
  const taskOf = new Map<string, string>();
  for (const task of taskEntries) {
    if (Array.isArray(task)) taskOf.set(task[1], task[0]);
    else taskOf.set((task as UserTaskRecord).trackId, (task as UserTaskRecord).id);
  }
  return taskOf;
}

/**
 * Whether a track is what its body and its user task derive: at the body's element, entered once, nothing
 * local, no result, waiting on a user task that names it, with no other field set.
 */
function waitsOnlyOnItsTask(
  track: TrackRecord,
  scopes: ReadonlyMap<string, ScopeRecord>,
  userTasks: ReadonlyMap<string, UserTaskRecord>,
): boolean {
  const { wait } = track;
  if (wait?.kind !== 'userTask' || Object.keys(wait).length !== 2) return false;
  if (track.state !== WAITING || track.attempt !== 0 || track.viaFlow !== null) return false;
  if (track.locals !== null || track.result !== null || Object.keys(track).length !== TRACK_FIELDS) return false;
  if (scopes.get(track.scopePath)?.nodeId !== track.nodeId) return false;
  return userTasks.get(wait.taskId)?.trackId === track.id;
}

/** A track's fields without a loop or a sweep: id, scopePath, nodeId, viaFlow, state, attempt, wait, locals, result. */
const TRACK_FIELDS = 9;
