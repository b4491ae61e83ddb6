import type { TrackRecord } from '@thresher/checkpoint';
import { advanceTrack, moveBy, type Performers, type TrackAction, type TrackEvent } from '../../machines/index.js';
import { announce, nextId, type StepContext } from './context.js';
import { elementInstanceId, eventId, trackEventId } from './event-ids.js';
import { newTrack } from './records.js';

/** A new track at `nodeId` in the scope at `path`, arriving by `viaFlow`; it moves in this step. */
export function spawn(ctx: StepContext, path: string, nodeId: string, viaFlow: string | null): TrackRecord {
  const track = newTrack(nextId(ctx, 't'), path);
  place(ctx, track, nodeId, viaFlow);
  ctx.state.tracks.set(track.id, track);
  ctx.agenda.push(track.id);
  return track;
}

/**
 * A track standing for something that has no track of its own (a scope running its listeners, an interrupter
 * held, an ad-hoc activation's failed output), at `nodeId` in the scope at `path`: never placed — no visit, no
 * history — and not on the agenda.
 */
export function standIn(ctx: StepContext, path: string, nodeId: string): TrackRecord {
  const track = newTrack(nextId(ctx, 't'), path);
  track.nodeId = nodeId;
  ctx.state.tracks.set(track.id, track);
  return track;
}

/**
 * Put a track at an element, counting the visit: its `attempt` is how many times the scope entered it before.
 * The flow it came by is one the step took (the log's `flows`).
 */
export function place(ctx: StepContext, track: TrackRecord, nodeId: string, viaFlow: string | null): void {
  track.nodeId = nodeId;
  track.viaFlow = viaFlow;
  if (viaFlow !== null) ctx.state.done.flows.push({ flow: viaFlow, scope: track.scopePath });
  const { visits } = ctx.state.scope(track.scopePath);
  track.attempt = visits[nodeId] ?? 0;
  visits[nodeId] = track.attempt + 1;
  if (isLoopWarning(visits[nodeId], ctx.loopWarning)) {
    const turns = visits[nodeId];
    announce(ctx, {
      id: eventId(ctx.id, 'element.looping', track.scopePath, nodeId, turns),
      type: 'element.looping',
      elementId: nodeId,
      scope: track.scopePath,
      turns,
      threshold: ctx.loopWarning,
    });
  }
}

/**
 * Whether the `turns`-th entry of an element warns of a loop: the first past the threshold, then each time the
 * count doubles (a loop polling every minute for a year warns ten times, not half a million).
 */
export function isLoopWarning(turns: number, threshold: number): boolean {
  if (turns <= threshold) return false;
  const past = (turns - 1) / threshold;
  return Number.isInteger(past) && (past & (past - 1)) === 0;
}

/** What a track's moves do: `schedule` it on the step's agenda, `retire` it when the step settles. */
const TRACK_ACTIONS: Performers<TrackAction, StepContext, TrackRecord> = {
  schedule: (ctx, track) => void ctx.agenda.push(track.id),
  retire: (ctx, track) => void ctx.retired.push(track.id),
};

/** Move a track's machine by one event and perform the actions the move returns. */
export function move(ctx: StepContext, track: TrackRecord, event: TrackEvent): void {
  moveBy(advanceTrack, track, event, TRACK_ACTIONS, ctx, track);
}

/** The track completed its element: it goes into the history (the step's log entry). */
export function record(ctx: StepContext, track: TrackRecord): void {
  ctx.state.done.completed.push({ node: track.nodeId, scope: track.scopePath, track: track.id });
  announce(ctx, {
    id: trackEventId(ctx.id, track, 'left'),
    type: 'track.left',
    trackId: track.id,
    elementId: track.nodeId,
    elementInstanceId: elementInstanceId(track),
  });
}

/** The track ends at its element (an end event, or an element with no way on). */
export function end(ctx: StepContext, track: TrackRecord): void {
  record(ctx, track);
  move(ctx, track, 'END');
}
