/**
 * Business rule tasks that call a DMN decision (`zeebe:calledDecision`): evaluated inside the step that
 * enters the task, as Zeebe evaluates them, with the engine's own FEEL. The evaluation is recorded with the
 * step (`done.decisions`, written into its log entry), so it is durable with the step that made it: a step re-run after a crash evaluates
 * again, with the same inputs, to the same result. A decision that cannot be found or evaluated is an
 * incident naming it and why; retrying it evaluates again, with the variables as they are then.
 *
 * @module
 */
import type { DecisionRecord, EvaluatedDecisionRecord, TrackRecord } from '@thresher/checkpoint';
import { type DmnDefinitions, type EvaluatedDecision, evaluateDecision } from '@thresher/dmn';
import { type FeelValue, fromFeel } from '@thresher/feel';
import type { BusinessRuleTaskNode } from '../../model/node-types.js';
import type { FoundDecision, StepContext } from '../step/context.js';
import { move } from '../step/tracks.js';
import { evaluateOrIncident, NO_VALUE, raiseIncident, wrongValueIncident } from './incidents.js';

/** The task is entered: find the decision, evaluate it, and leave with its result, or raise an incident. */
export function runDecision(ctx: StepContext, track: TrackRecord, node: BusinessRuleTaskNode): void {
  const decisionId = evaluateOrIncident(ctx, track, node.decisionId, 'enter');
  if (decisionId === NO_VALUE) return;
  if (typeof decisionId !== 'string' || decisionId.trim() === '') {
    wrongValueIncident(
      ctx,
      track,
      'zeebe:calledDecision decisionId',
      node.decisionId,
      decisionId,
      'it must be a decision id',
    );
    return;
  }
  const found = ctx.decisions(decisionId, node.binding, ctx.state.instance.definition.digest);
  if (typeof found === 'string') {
    raiseIncident(ctx, track, 'decision-failed', 'enter', found, null);
    return;
  }
  const variables = { ...ctx.state.visible(track.scopePath), ...track.locals };
  const evaluation = decide(found.definitions, decisionId, variables, () => ctx.now);
  ctx.state.done.decisions.push(decisionRecord(ctx, track, found, evaluation));
  if (evaluation.failure !== undefined) {
    raiseIncident(ctx, track, 'decision-failed', 'enter', evaluation.failure, null);
    return;
  }
  track.result = { [node.resultVariable]: evaluation.result };
  move(ctx, track, 'COMPLETE');
}

/** What one evaluation decided, as an instance records it: plain values, and why it failed if it did. */
export interface DecisionEvaluation {
  /** Each decision evaluated, required ones first, the called one last. */
  evaluated: EvaluatedDecisionRecord[];
  /** The result as a variable holds it; absent when it failed. */
  result?: unknown;
  /** Zeebe's wording: `Expected to evaluate decision 'id', but …`; absent when decided. */
  failure?: string;
}

/**
 * Evaluates a decision (with its requirement graph) on plain variables, as a business rule task does and as
 * `thresher decide` shows it.
 */
export function decide(
  definitions: DmnDefinitions,
  decisionId: string,
  variables: Readonly<Record<string, unknown>>,
  now: () => number,
): DecisionEvaluation {
  const outcome = evaluateDecision(definitions, decisionId, variables, { now });
  const evaluated = outcome.evaluated.map(evaluatedRecord);
  const expected = `Expected to evaluate decision '${decisionId}', but`;
  if (!outcome.ok) return { evaluated, failure: `${expected} ${outcome.failure.message}` };
  try {
    return { evaluated, result: fromFeel(outcome.value) };
  } catch (error) {
    return { evaluated, failure: `${expected} its result cannot be a variable: ${(error as Error).message}` };
  }
}

function decisionRecord(
  ctx: StepContext,
  track: TrackRecord,
  found: FoundDecision,
  evaluation: DecisionEvaluation,
): DecisionRecord {
  const info = found.definitions.decisions.get(found.decisionId);
  return {
    node: track.nodeId,
    track: track.id,
    decisionId: found.decisionId,
    decisionName: info?.name ?? found.decisionId,
    version: found.version,
    ...(found.versionTag === undefined ? {} : { versionTag: found.versionTag }),
    definitionId: found.definitionId,
    digest: found.digest,
    evaluatedAt: ctx.now,
    evaluated: evaluation.evaluated,
    ...(evaluation.failure === undefined ? { result: evaluation.result } : { failure: evaluation.failure }),
  };
}

function evaluatedRecord(evaluated: EvaluatedDecision): EvaluatedDecisionRecord {
  return {
    decisionId: evaluated.decisionId,
    decisionName: evaluated.decisionName,
    decisionType: evaluated.decisionType,
    inputs: evaluated.inputs.map(({ id, name, value }) => ({ id, name, value: storable(value) })),
    matchedRules: evaluated.matchedRules.map(({ ruleId, ruleIndex, outputs }) => ({
      ruleId,
      ruleIndex,
      outputs: outputs.map(({ id, name, value }) => ({ id, name, value: storable(value) })),
    })),
    output: storable(evaluated.output),
  };
}

/**
 * A FEEL value as a variable holds it (as a script task's result: numbers, ISO-8601 text for temporal
 * values, plain objects and arrays). What no variable can hold (a function, a range) is kept as its
 * description, so the record shows it without making the document unwritable.
 */
function storable(value: FeelValue): unknown {
  try {
    return fromFeel(value);
  } catch {
    return `<${value === null ? 'null' : (value as object).constructor.name}>`;
  }
}
