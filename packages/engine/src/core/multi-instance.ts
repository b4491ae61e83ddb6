import type { ScopeRecord, TrackRecord, Variables } from '@thresher/checkpoint';
import type { MultiInstance, Node } from '../model/types.js';
import { cancelInside } from './cancel.js';
import type { StepContext } from './context.js';
import { evaluateOrIncident, NO_VALUE, raiseIncident } from './incidents.js';
import { newScope, scopePath } from './records.js';
import { moveScope } from './scope-moves.js';
import { move, spawn } from './tracks.js';

/**
 * Multi-instance activities (docs/design/composites.md): the host track entering the activity runs no
 * work itself; it freezes the number of bodies, keeps its position on its record (`multiInstance`) and
 * opens each body as a scope holding the body's `inputElement` and `loopCounter`, where an inner track runs
 * the activity. Everything that can fail is evaluated by the inner track as it leaves (its output element,
 * the completion condition), so an incident there resumes exactly that body.
 */

const ORDINAL = /\[(\d+)\]$/;

/** The multi-instance spec of an element, if it has one. */
export function multiInstanceOf(node: Node): MultiInstance | undefined {
  return node.loop?.kind === 'multiInstance' ? node.loop : undefined;
}

/** Whether `scope` is a body of a multi-instance activity (hosted on its element, with an ordinal). */
export function isBodyScope(scope: ScopeRecord | undefined): scope is ScopeRecord & { hostTrack: string } {
  return scope !== undefined && scope.hostTrack !== null && ORDINAL.test(scope.path);
}

/** Whether a track at `node` is a body's inner track (it runs the activity) rather than its host. */
export function isBodyTrack(ctx: StepContext, track: TrackRecord, node: Node): boolean {
  const scope = ctx.state.scopes.get(track.scopePath);
  return isBodyScope(scope) && scope.nodeId === node.id;
}

/** The host enters: evaluate the collection or cardinality once, then open the first body (or all of them). */
export function enterMultiInstance(ctx: StepContext, host: TrackRecord, node: Node, spec: MultiInstance): void {
  let items: unknown[] | null = null;
  let n: number;
  if (spec.inputCollection) {
    const value = evaluateOrIncident(ctx, host, spec.inputCollection, 'enter');
    if (value === NO_VALUE) return;
    if (!Array.isArray(value)) {
      const message = `inputCollection "=${spec.inputCollection.source}" evaluated to ${JSON.stringify(value)}, not a list`;
      return raiseIncident(ctx, host, 'expression-failed', 'enter', message, null);
    }
    items = value;
    n = value.length;
  } else {
    const value = spec.cardinality ? evaluateOrIncident(ctx, host, spec.cardinality, 'enter') : 0;
    if (value === NO_VALUE) return;
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
      const message = `loopCardinality "${spec.cardinality?.source}" evaluated to ${JSON.stringify(value)}, not a non-negative integer`;
      return raiseIncident(ctx, host, 'expression-failed', 'enter', message, null);
    }
    n = value;
  }
  host.multiInstance = { n, items, next: 0, completed: 0, outputs: {}, conditionMet: false };
  if (n === 0) {
    finish(host, spec);
    return move(ctx, host, 'COMPLETE');
  }
  host.wait = { kind: 'multiInstance' };
  move(ctx, host, 'WAIT');
  const first = spec.sequential ? 1 : n;
  for (let ordinal = 0; ordinal < first; ordinal++) openBody(ctx, host, node, spec, ordinal);
}

function openBody(ctx: StepContext, host: TrackRecord, node: Node, spec: MultiInstance, ordinal: number): void {
  const position = host.multiInstance!;
  const data: Variables = { loopCounter: ordinal + 1 };
  if (spec.inputElement) data[spec.inputElement] = position.items?.[ordinal] ?? null;
  const path = scopePath(host.scopePath, node.id, { pass: host.attempt, ordinal });
  ctx.state.scopes.set(path, newScope(path, node.id, host.scopePath, host.id, data));
  position.next = ordinal + 1;
  spawn(ctx, path, node.id, null);
}

/**
 * An inner track leaves its body: its output element goes into the host's outputs at its ordinal, and the
 * completion condition is checked with the counters. False when an incident was raised on the inner track.
 */
export function collectBody(ctx: StepContext, inner: TrackRecord, spec: MultiInstance): boolean {
  const scope = ctx.state.scope(inner.scopePath) as ScopeRecord & { hostTrack: string };
  const host = ctx.state.track(scope.hostTrack);
  const position = host.multiInstance!;
  const ordinal = Number(ORDINAL.exec(scope.path)![1]);
  const view = { ...ctx.state.visible(inner.scopePath), ...inner.locals, ...inner.result };
  if (spec.outputElement) {
    const value = evaluateOrIncident(ctx, inner, spec.outputElement, 'leave', view);
    if (value === NO_VALUE) return false;
    position.outputs[String(ordinal)] = value;
  }
  if (spec.completionCondition && !position.conditionMet) {
    const counters = {
      numberOfInstances: position.n,
      // The completing body no longer counts as active, as in Zeebe.
      numberOfActiveInstances: openBodies(ctx, host).length - 1,
      numberOfCompletedInstances: position.completed + 1,
    };
    const fired = evaluateOrIncident(ctx, inner, spec.completionCondition, 'leave', { ...view, ...counters });
    if (fired === NO_VALUE) return false;
    position.conditionMet = fired === true;
  }
  return true;
}

/**
 * A body drained: count it; then the next sequential body opens, or — every body done, or the condition
 * fired (the other bodies are cancelled) — the host completes with the output collection.
 */
export function bodyCompleted(ctx: StepContext, scope: ScopeRecord & { hostTrack: string }, node: Node): void {
  ctx.state.scopes.delete(scope.path);
  const host = ctx.state.track(scope.hostTrack);
  const spec = multiInstanceOf(node)!;
  const position = host.multiInstance!;
  position.completed += 1;
  if (position.conditionMet) {
    for (const open of openBodies(ctx, host)) {
      cancelInside(ctx, open.path);
      moveScope(ctx, open, 'TERMINATE');
    }
  } else if (spec.sequential && position.next < position.n) {
    return openBody(ctx, host, node, spec, position.next);
  }
  if (openBodies(ctx, host).length > 0) return;
  finish(host, spec);
  move(ctx, host, 'RESUME');
}

/** The host's result: the output collection in input order, a body that gave nothing as null. */
function finish(host: TrackRecord, spec: MultiInstance): void {
  const position = host.multiInstance!;
  host.wait = null;
  host.result = spec.outputCollection
    ? { [spec.outputCollection]: Array.from({ length: position.n }, (_, i) => position.outputs[String(i)] ?? null) }
    : null;
}

/** The bodies a host has open. */
function openBodies(ctx: StepContext, host: TrackRecord): ScopeRecord[] {
  return [...ctx.state.scopes.values()].filter((scope) => scope.hostTrack === host.id && isBodyScope(scope));
}
