/**
 * The FEEL of a decision's texts: each parsed once at deploy (a syntax error is an issue naming the element, not
 * a throw), and a parsed expression evaluated with the element named in its failure. What the boxed expressions'
 * compiler (`compile.ts`) and the decision tables' (`table.ts`) both stand on.
 *
 * @module
 */
import {
  evaluate,
  type FeelExpression,
  FeelSyntaxError,
  type FeelUnaryTests,
  type FeelValue,
  type KnownNames,
  parseExpression,
  parseUnaryTests,
} from '@thresher/feel';
import { DmnEvaluationError, type DmnIssue } from './errors.js';
import type { Place } from './model.js';
import type { Env, Run } from './run.js';
import type { TypeResolver } from './types.js';

/** Parses a definitions' FEEL texts with the names it knows, keeping what does not parse as issues. */
export class FeelTexts {
  readonly issues: DmnIssue[] = [];
  readonly warnings: DmnIssue[] = [];

  constructor(
    readonly names: KnownNames,
    readonly types: TypeResolver,
  ) {}

  /** A FEEL expression, parsed; null (and an issue naming `at`) when it does not parse. */
  expression(source: string, at: Place): FeelExpression | null {
    try {
      return parseExpression(source, { names: this.names });
    } catch (error) {
      if (!(error instanceof FeelSyntaxError)) throw error;
      this.issues.push({ elementId: at.id, elementType: at.type, message: error.message, line: at.line });
      return null;
    }
  }

  /** FEEL unary tests, parsed; null (and an issue) when they do not parse. */
  unaryTests(source: string, at: Place): FeelUnaryTests | null {
    try {
      return parseUnaryTests(source, { names: this.names });
    } catch (error) {
      if (!(error instanceof FeelSyntaxError)) throw error;
      this.issues.push({ elementId: at.id, elementType: at.type, message: error.message, line: at.line });
      return null;
    }
  }
}

/** Evaluates a parsed FEEL expression; a failure names the element. */
export function evaluateFeel(parsed: FeelExpression, env: Env, run: Run, at: string): FeelValue {
  const result = evaluate(parsed, env, run.options);
  if (!result.ok) throw new DmnEvaluationError(`${result.failure.message} (in ${at})`);
  return result.value;
}
