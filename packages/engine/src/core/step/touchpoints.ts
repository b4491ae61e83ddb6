import type { TouchpointRecord, TrackRecord } from '@thresher/checkpoint';
import type { LiveTouchpoint, TouchpointState } from '../../common/touchpoint-types.js';
import type { Node } from '../../model/node-types.js';
import { processPlan } from '../../touchpoints/plan.js';
import { announce, type StepContext } from './context.js';
import type { Announcement } from './effects.js';
import { eventId } from './event-ids.js';
import { isBodyScope } from './records.js';

/**
 * The touchpoint tracker: told by the core when an element starts and ends, when its question is asked,
 * paused and answered, and when the instance ends, it keeps each touchpoint's progress in the checkpoint
 * and publishes `touchpoint.updated` right after the event that changed it (engine README § Touchpoints).
 * An instance whose document predates tracking (`touchpoints: null`) is not tracked.
 */

/** Every touchpoint `ahead`, published once after `instance.started`, before the first element runs. */
export function planTouchpoints(ctx: StepContext): void {
  const records = processPlan(ctx.process).list.map(aheadRecord);
  ctx.state.touchpoints = records;
  const touchpoints = records.map((record, index) => live(ctx, index, record));
  announce(ctx, { id: eventId(ctx.id, 'touchpoints.planned'), type: 'touchpoints.planned', touchpoints });
}

/** A touchpoint not asked yet. */
export function aheadRecord(): TouchpointRecord {
  return {
    state: 'ahead',
    attempts: 0,
    pauses: 0,
    revision: 0,
    askedAt: null,
    answeredAt: null,
    responseS: null,
    open: 0,
    pausedAt: null,
    pausedMs: 0,
  };
}

/** What an announced event changes; called right after it is announced. */
export function observeTouchpoints(ctx: StepContext, event: Announcement): void {
  if (event.type === 'touchpoint.updated' || event.type === 'touchpoints.planned') return;
  ctx.lastCause = event;
  // Most processes have no touchpoint: nothing to look up for any event of theirs.
  if (!ctx.state.touchpoints?.length) return;
  // An execution listener's job neither answers its element's question nor is an attempt at it.
  if ('listener' in event && event.listener !== undefined) return;
  switch (event.type) {
    case 'track.entered':
      return entered(ctx, event.elementId, event.trackId);
    case 'userTask.created':
      return ask(ctx, event.elementId, event);
    case 'message.correlated':
    case 'signal.received':
    case 'userTask.completed':
    case 'job.completed':
      return answer(ctx, event.elementId, event);
    case 'job.failed':
      // No retry left: an incident follows, which pauses the question instead.
      if (event.retriesLeft > 0) retried(ctx, event.elementId, event);
      return;
    case 'incident.raised':
      return paused(ctx, event.elementId, event);
    case 'incident.resolved':
      return resumed(ctx, event.elementId, event);
    case 'track.left':
      return left(ctx, event.elementId, event);
    case 'instance.completed':
    case 'instance.terminated':
      return ended(ctx, event);
    default:
      return;
  }
}

/**
 * A track is cancelled at its element: an open question there timed out (its own boundary timer fired),
 * failed (a BPMN error its own boundary caught), or was not reached (anything else interrupted it).
 */
export function touchpointInterrupted(ctx: StepContext, track: TrackRecord): void {
  const index = indexOf(ctx, track.nodeId);
  if (index === undefined) return;
  const record = ctx.state.touchpoints![index]!;
  if (record.state !== 'now') return;
  const cause = ctx.lastCause;
  const guard = cause && 'elementId' in cause ? ctx.process.nodes.get(cause.elementId) : undefined;
  const own = guard?.type === 'boundaryEvent' && guard.attachedTo === track.nodeId;
  if (own && cause?.type === 'timer.fired') return close(ctx, index, 'timed_out', cause);
  if (own && cause?.type === 'error.caught') return close(ctx, index, 'failed', cause);
  close(ctx, index, 'not_reached', null);
}

/**
 * An element chose some of its outgoing flows: what only the others lead to is `skipped` at once (an
 * answered one stays answered, an open one stays open). After an event-based gateway, the catch events that
 * lost were asked: they time out when a timer won, else are skipped.
 */
export function touchpointsDecided(ctx: StepContext, node: Node, taken: readonly { id: string | null }[]): void {
  const records = ctx.state.touchpoints;
  if (!records || node.outgoing.length <= 1) return;
  const plan = processPlan(ctx.process);
  const takenIds = new Set(taken.map((flow) => flow.id));
  const kept = new Set<number>();
  for (const id of takenIds) if (id !== null) for (const index of plan.reachableFrom(id)) kept.add(index);
  const timerWon =
    node.type === 'eventBasedGateway' &&
    taken.some((flow) => {
      const target = flow.id === null ? undefined : ctx.process.nodes.get(ctx.process.flows.get(flow.id)!.target);
      return target?.type === 'intermediateCatchEvent' && target.event.kind === 'timer';
    });
  for (const flowId of node.outgoing) {
    if (takenIds.has(flowId)) continue;
    for (const index of plan.reachableFrom(flowId)) {
      if (kept.has(index)) continue;
      const record = records[index]!;
      if (record.state === 'now' && node.type === 'eventBasedGateway') {
        close(ctx, index, timerWon ? 'timed_out' : 'skipped', null);
      } else if (record.state !== 'now' && record.state !== 'cleared' && record.state !== 'skipped') {
        update(ctx, index, { state: 'skipped' }, null);
      }
    }
  }
}

// ── the rules ─────────────────────────────────────────────────────────────────────────────────────────

function entered(ctx: StepContext, elementId: string, trackId: string): void {
  const node = ctx.process.nodes.get(elementId);
  // A looping element asks in each of its bodies, not as the host that opens them.
  const track = ctx.state.tracks.get(trackId);
  const scope = ctx.state.scopes.get(track?.scopePath ?? '');
  if (node?.loop && !(isBodyScope(scope) && scope.nodeId === node.id)) return;
  // A catch event an event-based gateway chose was asked when the gateway was entered.
  const via = track?.viaFlow ? ctx.process.flows.get(track.viaFlow) : undefined;
  if (via && ctx.process.nodes.get(via.source)?.type === 'eventBasedGateway') return;
  if (node?.type === 'eventBasedGateway') {
    // Its catch events wait from now on: each inbound one is asked.
    for (const flowId of node.outgoing) {
      const target = ctx.process.flows.get(flowId)!.target;
      const index = indexOf(ctx, target);
      if (index !== undefined && plan(ctx).list[index]!.direction === 'inbound') ask(ctx, target, ctx.lastCause!);
    }
    return;
  }
  // A user task is asked when its task is created; everything else as it starts to run.
  if (node?.type !== 'userTask') ask(ctx, elementId, ctx.lastCause!);
}

function ask(ctx: StepContext, elementId: string, cause: Announcement): void {
  const index = indexOf(ctx, elementId);
  if (index === undefined) return;
  const record = ctx.state.touchpoints![index]!;
  update(
    ctx,
    index,
    {
      state: 'now',
      attempts: record.attempts + 1,
      pauses: 0,
      askedAt: ctx.now,
      answeredAt: null,
      responseS: null,
      open: record.open + 1,
      pausedAt: null,
      pausedMs: 0,
    },
    cause,
  );
}

function answer(ctx: StepContext, elementId: string, cause: Announcement): void {
  const index = indexOf(ctx, elementId);
  if (index === undefined) return;
  const record = ctx.state.touchpoints![index]!;
  // An event sub-process's start waits unasked while its scope is open: its answer is its ask too.
  if (record.state !== 'now') ask(ctx, elementId, cause);
  const asked = ctx.state.touchpoints![index]!;
  const waitedMs = ctx.now - (asked.askedAt ?? ctx.now) - asked.pausedMs;
  update(ctx, index, { answeredAt: ctx.now, responseS: Math.max(0, waitedMs) / 1000 }, cause);
}

/** A job failed with retries left: this attempt failed; the retry is a new one. */
function retried(ctx: StepContext, elementId: string, cause: Announcement): void {
  const index = indexOf(ctx, elementId);
  if (index === undefined || ctx.state.touchpoints![index]!.state !== 'now') return;
  close(ctx, index, 'failed', cause);
  ask(ctx, elementId, cause);
}

function paused(ctx: StepContext, elementId: string, cause: Announcement): void {
  const index = indexOf(ctx, elementId);
  const record = index === undefined ? undefined : ctx.state.touchpoints![index]!;
  if (index === undefined || record?.state !== 'now' || record.pausedAt !== null) return;
  update(ctx, index, { pausedAt: ctx.now }, cause);
}

/** The incident was resolved: the same question goes on, one pause more, the paused time not counted. */
function resumed(ctx: StepContext, elementId: string, cause: Announcement): void {
  const index = indexOf(ctx, elementId);
  const record = index === undefined ? undefined : ctx.state.touchpoints![index]!;
  if (index === undefined || !record || record.pausedAt === null) return;
  update(
    ctx,
    index,
    { pauses: record.pauses + 1, pausedMs: record.pausedMs + (ctx.now - record.pausedAt), pausedAt: null },
    cause,
  );
}

/** The element completed: its question is cleared (a pass-through one is answered as it leaves). */
function left(ctx: StepContext, elementId: string, cause: Announcement): void {
  const index = indexOf(ctx, elementId);
  if (index === undefined) return;
  const record = ctx.state.touchpoints![index]!;
  if (record.state !== 'now') return;
  if (record.answeredAt === null) answer(ctx, elementId, cause);
  close(ctx, index, 'cleared', cause);
}

/** The instance ended: whatever is still ahead or open was not reached. */
function ended(ctx: StepContext, cause: Announcement): void {
  const records = ctx.state.touchpoints!;
  for (let index = 0; index < records.length; index++) {
    const state = records[index]!.state;
    if (state === 'ahead' || state === 'now') update(ctx, index, { state: 'not_reached', open: 0 }, cause);
  }
}

/** One open question ends; the touchpoint takes `state` once none of its parallel questions is open. */
function close(ctx: StepContext, index: number, state: TouchpointState, cause: Announcement | null): void {
  const record = ctx.state.touchpoints![index]!;
  const open = Math.max(0, record.open - 1);
  update(ctx, index, open > 0 ? { open } : { open, state, pausedAt: null }, cause);
}

function update(ctx: StepContext, index: number, change: Partial<TouchpointRecord>, cause: Announcement | null): void {
  const record = ctx.state.touchpoints![index]!;
  Object.assign(record, change);
  record.revision += 1;
  announce(ctx, {
    id: eventId(ctx.id, 'touchpoint.updated', index, record.revision),
    type: 'touchpoint.updated',
    index,
    revision: record.revision,
    cause: cause?.type ?? null,
    causeId: cause?.id ?? null,
    causeSequence: null,
    touchpoint: live(ctx, index, record),
  });
}

function plan(ctx: StepContext) {
  return processPlan(ctx.process);
}

function indexOf(ctx: StepContext, elementId: string): number | undefined {
  return ctx.state.touchpoints ? plan(ctx).byElement.get(elementId) : undefined;
}

/** The published view: the static entry with the record's state, without the tracker's bookkeeping. */
export function live(
  ctx: { process: StepContext['process'] },
  index: number,
  record: TouchpointRecord,
): LiveTouchpoint {
  const { open: _open, pausedAt: _pausedAt, pausedMs: _pausedMs, ...progress } = record;
  return { ...processPlan(ctx.process).list[index]!, ...progress };
}
