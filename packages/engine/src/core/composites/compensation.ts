import type { LedgerEntry, ScopeRecord, TrackRecord } from '@thresher/checkpoint';
import { InvalidStateError } from '../../common/errors.js';
import {
  advanceSweep,
  initialSweepState,
  moveBy,
  type Performers,
  type SweepAction,
  type SweepEvent,
} from '../../machines/index.js';
import type { StartEventNode } from '../../model/node-types.js';
import { startEventSubProcess } from '../events/event-subprocesses.js';
import { interruptFrom } from '../events/interrupts.js';
import { boundariesOf } from '../events/waits.js';
import { cancel, cancelInside } from '../scoping/cancel.js';
import { terminateScope } from '../scoping/scope-moves.js';
import { nextId, nodeOf, type StepContext } from '../step/context.js';
import { newScope, scopePath } from '../step/records.js';
import { end, move, spawn } from '../step/tracks.js';
import { isBodyTrack } from './loops.js';

/**
 * Compensation (docs/design/compensation.md). Each scope keeps a **ledger** of its completed compensable
 * activities, each with the variables its handler will read; a completed sub-process hands its ledger to its
 * parent as one entry. A compensation throw takes entries out of its scope's ledger into a **sweep** on the
 * thrower track, which runs their handlers one at a time, newest first, each in a scope of its own hosted by
 * the thrower; a transaction's cancel end event sweeps its transaction, then leaves it by its cancel boundary.
 * An entry is always in exactly one of a ledger, a sweep's queue, or a running handler's scope.
 */

/**
 * A compensation throw: the entries of `activity` (or every entry) leave the ledger of the thrower's scope —
 * an event sub-process's parent for a thrower inside one — and the thrower sweeps them. With nothing to
 * compensate it goes on at once. `transaction`: the host track of the transaction a cancel end event ends.
 */
export function throwCompensation(
  ctx: StepContext,
  thrower: TrackRecord,
  activity: string | null,
  transaction: string | null,
): void {
  const scope = ledgerScope(ctx, thrower.scopePath);
  const ledger = scope.ledger ?? [];
  const taken = activity === null ? ledger : ledger.filter((entry) => entry.nodeId === activity);
  const kept = activity === null ? [] : ledger.filter((entry) => entry.nodeId !== activity);
  if (kept.length > 0) scope.ledger = kept;
  else delete scope.ledger;
  const queue = runOrder(taken);
  thrower.sweep = { state: initialSweepState(), queue, running: null, runs: 0, transaction };
  thrower.wait = { kind: 'sweep' };
  move(ctx, thrower, 'WAIT');
  next(ctx, thrower);
}

/** Run the next entry, or finish when none is left. */
function next(ctx: StepContext, thrower: TrackRecord): void {
  moveSweep(ctx, thrower, thrower.sweep!.queue.length > 0 ? 'RUN' : 'DRAIN');
}

/** What a sweep's moves do: `runEntry` starts the next queued handler; `finish` lets the thrower go on. */
const SWEEP_ACTIONS: Performers<SweepAction, StepContext, TrackRecord> = {
  runEntry: (ctx, thrower) => runEntry(ctx, thrower),
  finish: (ctx, thrower) => finishSweep(ctx, thrower),
};

/** Move the thrower's sweep machine by one event and perform what the move says. */
function moveSweep(ctx: StepContext, thrower: TrackRecord, event: SweepEvent): void {
  moveBy(advanceSweep, thrower.sweep!, event, SWEEP_ACTIONS, ctx, thrower);
}

/** Handlers in the order they run: newest completion first, a sub-process without a handler by its entries. */
function runOrder(entries: readonly LedgerEntry[]): LedgerEntry[] {
  const order: LedgerEntry[] = [];
  for (const entry of [...entries].reverse()) {
    if (entry.handler !== null) order.push(entry);
    else order.push(...runOrder(entry.inner ?? []));
  }
  return order;
}

/** A thrower in an event sub-process compensates the scope the event sub-process belongs to. */
function ledgerScope(ctx: StepContext, path: string): ScopeRecord {
  const scope = ctx.state.scope(path);
  if (scope.hostTrack !== null || scope.parentPath === null) return scope;
  return ctx.state.scope(scope.parentPath);
}

/** Whether `scope` runs a compensation handler for a sweep (its host is the thrower). */
export function isSweepScope(ctx: StepContext, scope: ScopeRecord | undefined): boolean {
  return ctx.state.isSweepScope(scope);
}

/** The handler of the next entry runs in a scope of its own holding its entry's data. */
function runEntry(ctx: StepContext, thrower: TrackRecord): void {
  const sweep = thrower.sweep!;
  const { inner, ...entry } = sweep.queue.shift()!;
  // An entry lives in one place: a compensation event sub-process's inner entries move to its scope's ledger.
  sweep.running = entry;
  sweep.runs += 1;
  const handler = entry.handler!;
  // A pass from the document's counter: no two handler runs of any sweep share a path.
  const pass = Number(nextId(ctx, 'c').slice(1));
  const path = scopePath(thrower.scopePath, handler, { pass });
  const scope = newScope(path, handler, thrower.scopePath, thrower.id, { ...entry.data });
  ctx.state.scopes.set(path, scope);
  const node = nodeOf(ctx, handler);
  if (node.type !== 'subProcess' || !node.triggeredByEvent) return void spawn(ctx, path, handler, null);
  // A compensation event sub-process: it runs with the sub-process's own ledger, which its throws compensate.
  if (inner) scope.ledger = inner;
  startEventSubProcess(ctx, path, nodeOf(ctx, node.startNodes[0]!) as StartEventNode, {});
}

/** A handler's scope drained: its entry is compensated; the next one runs. */
export function handlerCompleted(ctx: StepContext, scope: ScopeRecord & { hostTrack: string }): void {
  ctx.state.scopes.delete(scope.path);
  const thrower = ctx.state.track(scope.hostTrack);
  thrower.sweep!.running = null;
  moveSweep(ctx, thrower, 'HANDLER_DONE');
  next(ctx, thrower);
}

function finishSweep(ctx: StepContext, thrower: TrackRecord): void {
  const { transaction } = thrower.sweep!;
  delete thrower.sweep;
  thrower.wait = null;
  if (transaction !== null) return finishTransaction(ctx, thrower, transaction);
  move(ctx, thrower, 'RESUME');
}

/**
 * A cancel end event: every other track of its transaction is cancelled, then the transaction's completed
 * activities are compensated; the transaction then leaves by its cancel boundary.
 */
export function enterCancelEnd(ctx: StepContext, track: TrackRecord): void {
  const scope = ctx.state.scope(track.scopePath);
  if (scope.hostTrack === null)
    throw new InvalidStateError(`cancel end event "${track.nodeId}" is not in a transaction`);
  for (const inner of [...ctx.state.scopes.values()]) {
    if (inner.parentPath !== scope.path) continue;
    cancelInside(ctx, inner.path);
    terminateScope(ctx, inner);
  }
  for (const other of ctx.state.liveTracks(scope.path)) if (other.id !== track.id) cancel(ctx, other);
  throwCompensation(ctx, track, null, scope.hostTrack);
}

/** The cancel end event ends, and the transaction is interrupted by its cancel boundary. */
function finishTransaction(ctx: StepContext, thrower: TrackRecord, hostId: string): void {
  end(ctx, thrower);
  let host = ctx.state.track(hostId);
  // A multi-instance transaction: the boundary is its host's.
  if (isBodyTrack(ctx, host, nodeOf(ctx, host.nodeId)))
    host = ctx.state.track(ctx.state.scope(host.scopePath).hostTrack!);
  const boundary = boundariesOf(ctx, host.nodeId).find((candidate) => candidate.event.kind === 'cancel');
  if (!boundary) throw new InvalidStateError(`transaction "${host.nodeId}" has no cancel boundary event`);
  interruptFrom(ctx, host, boundary, {});
}
