/**
 * One evaluation in progress: the options, the FEEL call state for functions, the decisions evaluated so
 * far (each once), and the compiled form every boxed expression takes.
 *
 * @module
 */
import { randomUUID } from 'node:crypto';
import type { CallState, FeelValue } from '@thresher/feel';

/** What an evaluation reads from outside, passed on to FEEL. */
export interface EvaluateOptions {
  /** The clock for `now()` and `today()`, as epoch milliseconds. */
  now?: () => number;
  /** The zone of `now()` and `today()`. */
  zone?: string;
}

/** One decision evaluated: its inputs and the rules that matched (decision tables), and its result. */
export interface EvaluatedDecision {
  decisionId: string;
  decisionName: string;
  decisionType: string;
  inputs: { id: string; name: string; value: FeelValue }[];
  matchedRules: { ruleId: string; ruleIndex: number; outputs: { id: string; name: string; value: FeelValue }[] }[];
  output: FeelValue;
}

/** Names in scope while an expression is evaluated: FEEL values by name. */
export type Env = Record<string, FeelValue>;

export class Run {
  readonly evaluated: EvaluatedDecision[] = [];
  /** Results of the decisions evaluated, by `namespace#id`. */
  readonly results = new Map<string, FeelValue>();
  readonly state: CallState;

  constructor(
    readonly options: EvaluateOptions,
    readonly variables: Readonly<Record<string, unknown>>,
  ) {
    this.state = {
      warnings: [],
      now: options.now ?? Date.now,
      zone: options.zone ?? null,
      unsafeRandom: Math.random,
      unsafeUuid: randomUUID,
    };
  }
}

/** A compiled boxed expression. Throws `DmnEvaluationError` when it cannot be evaluated. */
export type Evaluator = (env: Env, run: Run) => FeelValue;
