import type { ScopeRecord, TrackRecord, Variables } from '@thresher/checkpoint';
import { ExpressionError, InvalidArgumentError, InvalidStateError, NotFoundError } from '../../common/errors.js';
import { evaluate } from '../../common/feel.js';
import type { AdHocSpec, SubProcessNode } from '../../model/node-types.js';
import { evaluateOrIncident, NO_VALUE, raiseIncident, wrongValueIncident } from '../jobs/incidents.js';
import { cancelInside } from '../scoping/cancel.js';
import { handOnLedger } from '../scoping/ledgers.js';
import { terminateScope } from '../scoping/scope-moves.js';
import { nodeOf, type StepContext } from '../step/context.js';
import { newScope } from '../step/records.js';
import { move, spawn, standIn } from '../step/tracks.js';

/**
 * Ad-hoc sub-processes (Camunda 8.8), as Zeebe runs them: each activated element runs in an activation of its
 * own — a scope inside the ad-hoc sub-process's, holding what its elements write — started by the
 * `activeElementsCollection` on entry or by `engine.activateAdHocElements` later. As each activation
 * completes, its `outputElement` joins the `outputCollection` and the completion condition is evaluated: met,
 * the sub-process completes (cancelling the activations still running, unless `cancelRemainingInstances` is
 * false: then once they are done); without a condition, it completes when no activation is left. Which
 * activations began, and whether it is done, is on its scope's record: a restore picks up exactly there.
 */

/** An ad-hoc sub-process node. */
export type AdHocNode = SubProcessNode & { adHoc: AdHocSpec };

/**
 * The elements an entering ad-hoc sub-process activates (its `activeElementsCollection`, over `view`: the
 * variables with its input mappings); undefined when that failed or named an element it cannot activate (an
 * incident on the host, whose retry enters it again).
 */
export function elementsToActivate(
  ctx: StepContext,
  host: TrackRecord,
  node: AdHocNode,
  view: Variables,
): string[] | undefined {
  const expression = node.adHoc.activeElements;
  if (!expression) return [];
  const value = evaluateOrIncident(ctx, host, expression, 'enter', view);
  if (value === NO_VALUE) return undefined;
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) {
    const rule = 'it must be a list of element ids (strings)';
    return wrongValueIncident(ctx, host, 'zeebe:adHoc activeElementsCollection', expression, value, rule);
  }
  const unknown = value.filter((id) => !node.adHoc.activatable.includes(id));
  if (unknown.length > 0) {
    raiseIncident(ctx, host, 'expression-failed', 'enter', notActivatable(node, unknown), null);
    return undefined;
  }
  return value;
}

function notActivatable(node: AdHocNode, unknown: readonly string[]): string {
  return `the ad-hoc sub-process "${node.id}" cannot activate ${unknown.map((id) => `"${id}"`).join(', ')}: its elements without incoming flows are ${node.adHoc.activatable.map((id) => `"${id}"`).join(', ')}`;
}

/** The ad-hoc sub-process's scope is open: mark it, give it its output collection, and activate `elements`. */
export function beginAdHoc(ctx: StepContext, scope: ScopeRecord, node: AdHocNode, elements: readonly string[]): void {
  scope.adHoc = { activations: 0 };
  if (node.adHoc.outputCollection) scope.data[node.adHoc.outputCollection] = [];
  for (const elementId of elements) activate(ctx, scope, elementId, {});
}

/** Start one activation of `elementId`: a scope of its own holding `variables`, a track at the element. */
function activate(ctx: StepContext, scope: ScopeRecord, elementId: string, variables: Variables): void {
  const adHoc = scope.adHoc!;
  adHoc.activations += 1;
  const path = `${scope.path}/${elementId}~${adHoc.activations}`;
  ctx.state.scopes.set(path, {
    ...newScope(path, scope.nodeId, scope.path, scope.hostTrack, { ...variables }),
    activation: elementId,
  });
  spawn(ctx, path, elementId, null);
}

/**
 * Activate elements of a running ad-hoc sub-process (its host track `hostId`), each with its variables, as
 * Zeebe's activation API does: refused, changing nothing, when it is not running, is done, or an element is
 * given twice or cannot be activated.
 */
export function activateElements(
  ctx: StepContext,
  hostId: string,
  elements: readonly { elementId: string; variables: Variables }[],
): void {
  const host = ctx.state.tracks.get(hostId);
  const scope = host?.wait?.kind === 'scope' ? ctx.state.scopes.get(host.wait.path) : undefined;
  if (!host || !scope?.adHoc) throw new NotFoundError('adHocSubProcess', `${ctx.id}/${hostId}`);
  const node = nodeOf(ctx, host.nodeId) as AdHocNode;
  if (scope.adHoc.done) {
    throw new InvalidStateError(
      `ad-hoc sub-process "${ctx.id}/${hostId}" (${node.id}) is completing: its completion condition was met`,
    );
  }
  const ids = elements.map((element) => element.elementId);
  const twice = ids.filter((id, index) => ids.indexOf(id) !== index);
  if (twice.length > 0) {
    throw new InvalidArgumentError(
      `cannot activate ${twice.map((id) => `"${id}"`).join(', ')} twice at once in ad-hoc sub-process "${node.id}"`,
    );
  }
  const unknown = ids.filter((id) => !node.adHoc.activatable.includes(id));
  if (unknown.length > 0) throw new InvalidArgumentError(notActivatable(node, unknown));
  for (const { elementId, variables } of elements) activate(ctx, scope, elementId, variables);
}

/**
 * An activation's tracks all ended: its output joins the collection, and the completion condition decides
 * whether the ad-hoc sub-process completes. An output element or condition that fails raises an incident on a
 * track standing for the activation (its retry ends that track, and the activation is looked at again).
 */
export function activationCompleted(ctx: StepContext, scope: ScopeRecord): void {
  const parent = ctx.state.scope(scope.parentPath!);
  const node = nodeOf(ctx, parent.nodeId) as AdHocNode;
  const { outputCollection, outputElement, completionCondition, cancelRemaining } = node.adHoc;
  const view = ctx.state.visible(scope.path);
  let output: unknown;
  let met = false;
  try {
    if (outputElement) output = evaluate(outputElement, view, ctx.now);
    if (completionCondition) {
      const value = evaluate(completionCondition, view, ctx.now);
      if (typeof value !== 'boolean') {
        throw new ExpressionError(
          node.id,
          completionCondition.source,
          `the completion condition must be true or false, not ${JSON.stringify(value) ?? String(value)}`,
        );
      }
      met = value;
    }
  } catch (error) {
    if (!(error instanceof ExpressionError)) throw error;
    return standInIncident(ctx, scope, error.message);
  }
  handOnLedger(ctx, scope);
  ctx.state.scopes.delete(scope.path);
  if (outputCollection && outputElement) {
    const list = parent.data[outputCollection];
    parent.data[outputCollection] = [...(Array.isArray(list) ? list : []), output ?? null];
  }
  const adHoc = parent.adHoc!;
  if (met && cancelRemaining) {
    for (const other of [...ctx.state.scopes.values()]) {
      if (other.parentPath !== parent.path || other.activation === undefined) continue;
      cancelInside(ctx, other.path);
      terminateScope(ctx, other);
    }
  }
  const running = [...ctx.state.scopes.values()].some(
    (other) => other.parentPath === parent.path && other.activation !== undefined,
  );
  if (met || (!completionCondition && !running)) adHoc.done = true;
}

/** A track at the ad-hoc sub-process, inside the activation, waiting on an incident: it keeps the activation open. */
function standInIncident(ctx: StepContext, scope: ScopeRecord, message: string): void {
  const track = standIn(ctx, scope.path, scope.nodeId);
  track.state = 'leaving';
  raiseIncident(ctx, track, 'expression-failed', 'leave', message, null);
}

/** Whether `track` stands for an activation whose output or condition failed (it is at the ad-hoc itself). */
export function isActivationStandIn(ctx: StepContext, track: TrackRecord): boolean {
  return (
    ctx.state.scopes.get(track.scopePath)?.activation !== undefined &&
    track.nodeId === ctx.state.scope(track.scopePath).nodeId
  );
}

/** The stand-in's incident was retried: it ends, and the activation is looked at again as it drains. */
export function leaveStandIn(ctx: StepContext, track: TrackRecord): void {
  move(ctx, track, 'END');
}
