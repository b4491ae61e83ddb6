import type {
  CallOutboxEntry,
  CallOutcome,
  OutboxEntry,
  TimerRecord,
  TrackRecord,
  Variables,
} from '@thresher/checkpoint';
import type { StepContext } from './context.js';

/**
 * The instance's outbox: what a step sends to other instances (a thrown signal, a timer start's next
 * occurrence, a call's start or cancel, a child's end or throw to its parent). An entry is recorded with the
 * step that made it; the runtime delivers it once the step is durable (the `deliver` effect) and drops it when
 * delivered, so a crash repeats a delivery but never loses one. Receivers take each id once: every id is made
 * here, from what the entry is, so a step run again after a crash makes the same ids.
 */

/** A signal thrown by a track: one id per throw, stable across a re-run of its step. */
export function postSignal(ctx: StepContext, track: TrackRecord, name: string): void {
  const id = `${ctx.id}/${track.scopePath}/${track.nodeId}/${track.attempt}/${track.id}`;
  post(ctx, { id, kind: 'signal', name, variables: {} });
}

/** A timer start event's next occurrence: an instance waiting for it, started from this one. */
export function postNextStart(
  ctx: StepContext,
  startNode: string,
  occurrence: number,
  next: { dueAt: number; cycle: TimerRecord['cycle'] },
): void {
  post(ctx, {
    id: `${ctx.id}/next-start/${occurrence}`,
    kind: 'start',
    startNode,
    dueAt: next.dueAt,
    cycle: next.cycle,
    occurrence,
  });
}

/** A call activity starts its child (whose id is derived from the call, so a re-run finds the same child). */
export function postCall(
  ctx: StepContext,
  call: Omit<Extract<CallOutboxEntry, { kind: 'call' }>, 'id' | 'kind'>,
): void {
  post(ctx, { id: `${call.childId}:start`, kind: 'call', ...call });
}

/** A cancelled call activity cancels its child. */
export function postCancelChild(ctx: StepContext, childId: string): void {
  post(ctx, { id: `${childId}:cancel`, kind: 'cancelChild', childId });
}

/** A called child tells its parent how it ended; `endedEntryId` names the entry. */
export function postEnded(ctx: StepContext, parentId: string, outcome: CallOutcome): void {
  post(ctx, { id: endedEntryId(ctx.id), kind: 'toParent', parentId, outcome });
}

/** A called child passes an error or escalation it did not catch to its parent (one id per throw). */
export function postThrowToParent(
  ctx: StepContext,
  parentId: string,
  kind: 'error' | 'escalation',
  code: string,
  variables: Variables,
  throwId: string,
): void {
  post(ctx, {
    id: `${ctx.id}:${kind}:${throwId}`,
    kind: 'toParent',
    parentId,
    outcome: { status: kind, code, variables: { ...variables } },
  });
}

/** The id of the entry in which the called instance `childId` tells its parent how it ended. */
export function endedEntryId(childId: string): string {
  return `${childId}:ended`;
}

/** An entry was delivered: it leaves the outbox (delivered twice, the second finds nothing to drop). */
export function delivered(ctx: StepContext, entryId: string): void {
  const index = ctx.state.outbox.findIndex((entry) => entry.id === entryId);
  if (index >= 0) ctx.state.outbox.splice(index, 1);
}

function post(ctx: StepContext, entry: OutboxEntry): void {
  ctx.state.outbox.push(entry);
}
