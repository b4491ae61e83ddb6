import type { LoopRecord, ScopeRecord, TrackRecord, Variables } from '@thresher/checkpoint';
import type { Node } from '../../model/node-types.js';
import type { LoopSpec, MultiInstance, StandardLoop } from '../../model/types.js';
import { evaluateOrIncident, NO_VALUE, wrongValueIncident } from '../jobs/incidents.js';
import { cancelInside } from '../scoping/cancel.js';
import { handOnLedger } from '../scoping/ledgers.js';
import { nodeOf, type StepContext } from '../step/context.js';
import { isBodyScope, newScope, ORDINAL, scopePath } from '../step/records.js';

export { isBodyScope };

import { terminateScope } from '../scoping/scope-moves.js';
import { move, spawn } from '../step/tracks.js';

/**
 * Looping activities — multi-instance and standard loops (docs/design/composites.md): the host track
 * entering the activity runs no work itself; it keeps the loop's position on its record (`loop`) and opens
 * each body as a scope holding the body's `loopCounter` (and a multi-instance body's `inputElement`), where an
 * inner track runs the activity. Everything that can fail per body is evaluated by the inner track as it
 * leaves (an output element, a completion or loop condition), so an incident there resumes that body only.
 */

/** Whether a track at `node` is a body's inner track (it runs the activity) rather than its host. */
export function isBodyTrack(ctx: StepContext, track: TrackRecord, node: Node): boolean {
  const scope = ctx.state.scopes.get(track.scopePath);
  return isBodyScope(scope) && scope.nodeId === node.id;
}

/** The host enters: size a multi-instance, or test a loop that tests before; then open the first bodies. */
export function enterLoop(ctx: StepContext, host: TrackRecord, node: Node, spec: LoopSpec): void {
  if (spec.kind === 'standardLoop') {
    host.loop = { n: null, items: null, element: null, next: 0, completed: 0, outputs: {}, conditionMet: false };
    if (spec.testBefore) {
      const holds = loopHolds(ctx, host, spec, { ...ctx.state.visible(host.scopePath), ...host.locals }, 'enter');
      if (holds === undefined) return;
      if (!holds || spec.loopMaximum === 0) return finishAt(ctx, host, spec, 'COMPLETE');
    }
    host.wait = { kind: 'loop' };
    move(ctx, host, 'WAIT');
    return openBody(ctx, host, node, 0);
  }
  const sized = size(ctx, host, spec);
  if (!sized) return;
  const { n, items } = sized;
  const element = spec.inputElement ?? null;
  host.loop = { n, items, element, next: 0, completed: 0, outputs: {}, conditionMet: false };
  const output = outputVariable(spec);
  if (output !== undefined) host.loop.output = output;
  if (n === 0) return finishAt(ctx, host, spec, 'COMPLETE');
  host.wait = { kind: 'loop' };
  move(ctx, host, 'WAIT');
  const first = spec.sequential ? 1 : n;
  for (let ordinal = 0; ordinal < first; ordinal++) openBody(ctx, host, node, ordinal);
}

/** A multi-instance's bodies, counted once on entry (Zeebe evaluates the collection once). */
function size(ctx: StepContext, host: TrackRecord, spec: MultiInstance): { n: number; items: unknown[] | null } | null {
  if (spec.inputCollection) {
    const value = evaluateOrIncident(ctx, host, spec.inputCollection, 'enter');
    if (value === NO_VALUE) return null;
    if (Array.isArray(value)) return { n: value.length, items: value };
    wrongValueIncident(ctx, host, 'inputCollection', spec.inputCollection, value, 'it must be a list');
    return null;
  }
  const value = spec.cardinality ? evaluateOrIncident(ctx, host, spec.cardinality, 'enter') : 0;
  if (value === NO_VALUE) return null;
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return { n: value, items: null };
  // Only an evaluated cardinality can be wrong: none is 0 bodies.
  wrongValueIncident(ctx, host, 'loopCardinality', spec.cardinality!, value, 'it must be a non-negative integer');
  return null;
}

function openBody(ctx: StepContext, host: TrackRecord, node: Node, ordinal: number): void {
  const position = host.loop!;
  const path = scopePath(host.scopePath, node.id, { pass: host.attempt, ordinal });
  ctx.state.scopes.set(path, newScope(path, node.id, host.scopePath, host.id, initialBodyData(position, ordinal)));
  position.next = ordinal + 1;
  spawn(ctx, path, node.id, null);
}

/**
 * An inner track leaves its body: a multi-instance collects its output element at its ordinal and checks
 * its completion condition with the counters; a standard loop checks whether another pass is due. False
 * when an incident was raised on the inner track.
 */
export function collectBody(ctx: StepContext, inner: TrackRecord, spec: LoopSpec, mapped: Variables | null): boolean {
  const scope = ctx.state.scope(inner.scopePath) as ScopeRecord & { hostTrack: string };
  const host = ctx.state.track(scope.hostTrack);
  const position = host.loop!;
  // As Zeebe reads it in the inner instance's scope: what it produced, then its output mappings over that.
  const view = { ...ctx.state.visible(inner.scopePath), ...inner.locals, ...inner.result, ...mapped };
  if (spec.kind === 'standardLoop') {
    const holds = loopHolds(ctx, inner, spec, view, 'leave');
    if (holds === undefined) return false;
    position.conditionMet = !holds;
    return true;
  }
  if (spec.outputElement) {
    const value = evaluateOrIncident(ctx, inner, spec.outputElement, 'leave', view);
    if (value === NO_VALUE) return false;
    position.outputs[ORDINAL.exec(scope.path)![1]!] = value;
  }
  if (spec.completionCondition && !position.conditionMet) {
    const open = openBodies(ctx, host).length;
    const counters = {
      numberOfInstances: position.n,
      // The completing body no longer counts as active, as in Zeebe.
      numberOfActiveInstances: open - 1,
      numberOfCompletedInstances: position.completed + 1,
      // Derived, never stored: the bodies opened that neither completed nor are still open.
      numberOfTerminatedInstances: position.next - position.completed - open,
    };
    const fired = evaluateOrIncident(ctx, inner, spec.completionCondition, 'leave', { ...view, ...counters });
    if (fired === NO_VALUE) return false;
    position.conditionMet = fired === true;
  }
  return true;
}

/** A standard loop's condition over `view`: true for another pass; undefined when an incident was raised. */
function loopHolds(
  ctx: StepContext,
  track: TrackRecord,
  spec: StandardLoop,
  view: Variables,
  resume: 'enter' | 'leave',
): boolean | undefined {
  if (!spec.loopCondition) return true;
  const value = evaluateOrIncident(ctx, track, spec.loopCondition, resume, view);
  return value === NO_VALUE ? undefined : value === true;
}

/**
 * A body drained: count it; then the next body opens (sequential multi-instance, or a loop whose condition
 * holds under its maximum), or — every body done, or the condition fired (the other bodies are cancelled) —
 * the host completes, a multi-instance with its output collection.
 */
export function bodyCompleted(ctx: StepContext, scope: ScopeRecord & { hostTrack: string }, node: Node): void {
  handOnLedger(ctx, scope);
  ctx.state.scopes.delete(scope.path);
  const host = ctx.state.track(scope.hostTrack);
  const spec = node.loop!;
  const position = host.loop!;
  position.completed += 1;
  if (position.conditionMet) {
    for (const open of openBodies(ctx, host)) {
      cancelInside(ctx, open.path);
      terminateScope(ctx, open);
    }
  } else if (moreBodies(spec, position.next, position.n)) {
    return openBody(ctx, host, node, position.next);
  }
  if (openBodies(ctx, host).length > 0) return;
  finishAt(ctx, host, spec, 'RESUME');
}

function moreBodies(spec: LoopSpec, next: number, n: number | null): boolean {
  if (spec.kind === 'standardLoop') return spec.loopMaximum === null || next < spec.loopMaximum;
  return spec.sequential && next < (n ?? 0);
}

/** The host is done: a multi-instance's result is its output collection in input order, a body that gave nothing null. */
function finishAt(ctx: StepContext, host: TrackRecord, spec: LoopSpec, event: 'COMPLETE' | 'RESUME'): void {
  const position = host.loop!;
  host.wait = null;
  host.result =
    spec.kind === 'multiInstance' && spec.outputCollection
      ? {
          [spec.outputCollection]: Array.from(
            { length: position.n ?? 0 },
            (_, i) => position.outputs[String(i)] ?? null,
          ),
        }
      : null;
  move(ctx, host, event);
}

/**
 * A cancelled body's scope, kept while a user task in it ran its canceling listeners, is gone: a host whose
 * condition fired completes once no body is left, as it would have when the condition fired.
 */
export function bodiesTerminated(ctx: StepContext, hostId: string): void {
  const host = ctx.state.tracks.get(hostId);
  if (host?.wait?.kind !== 'loop' || !host.loop?.conditionMet || openBodies(ctx, host).length > 0) return;
  finishAt(ctx, host, nodeOf(ctx, host.nodeId).loop!, 'RESUME');
}

/** The bodies a host has open. */
function openBodies(ctx: StepContext, host: TrackRecord): ScopeRecord[] {
  return [...ctx.state.scopes.values()].filter((scope) => scope.hostTrack === host.id && isBodyScope(scope));
}

/**
 * What a body's scope holds when it opens: its `loopCounter` (1-based, as Zeebe), with one its item, and with
 * one the output element's variable as `null` (schema 9), so what the body produces lands in the body.
 */
export function initialBodyData(position: LoopRecord, ordinal: number): Variables {
  const data: Variables = { loopCounter: ordinal + 1 };
  if (position.element) data[position.element] = position.items?.[ordinal] ?? null;
  if (position.output !== undefined) data[position.output] = null;
  return data;
}

/** A FEEL name, or a path of names (`result`, `result.total`), as an output element written as a reference. */
const REFERENCE = /^([A-Za-z_][A-Za-z0-9_]*)(?:\.[A-Za-z_][A-Za-z0-9_]*)*$/;

/**
 * The variable a multi-instance's output element reads, when it is a plain reference (`=result`,
 * `=result.total`) other than the item or `loopCounter`: Zeebe makes it a local of every body (null at first),
 * so each body's output stays its own instead of reaching a scope the next body reads.
 */
function outputVariable(spec: MultiInstance): string | undefined {
  const name = spec.outputElement ? REFERENCE.exec(spec.outputElement.source.trim())?.[1] : undefined;
  return name === undefined || name === spec.inputElement || name === 'loopCounter' ? undefined : name;
}
