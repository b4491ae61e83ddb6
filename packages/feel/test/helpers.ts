/**
 * Table-driven FEEL tests: one line per case, each a named test.
 */
import { expect, test } from 'vitest';
import {
  type EvaluateOptions,
  evaluate,
  evaluateUnaryTests,
  type FeelResult,
  type FeelWarningType,
  fromFeel,
  parseExpression,
  parseUnaryTests,
} from '../src/index.js';

/** A fixed clock: 2024-01-15T10:30:00Z. */
export const NOW = Date.UTC(2024, 0, 15, 10, 30);

/** Evaluates with the fixed clock and deterministic random sources. */
export function feel(
  source: string,
  variables: Record<string, unknown> = {},
  options: EvaluateOptions = {},
): FeelResult {
  return evaluate(parseExpression(source), variables, {
    now: () => NOW,
    unsafeRandom: () => 0.25,
    unsafeUuid: () => '00000000-0000-7000-8000-000000000000',
    ...options,
  });
}

/** The result as plain data (what a variable would hold); throws on a failure. */
export function plain(result: FeelResult): unknown {
  if (!result.ok) throw new Error(`expected a value, got the failure: ${result.failure.message}`);
  return fromFeel(result.value);
}

/** `source` (with `variables`) evaluates to `expected` (as plain data). */
export function is(source: string, expected: unknown, variables?: Record<string, unknown>): void {
  test(`${source} is ${show(expected)}${variables ? ` with ${show(variables)}` : ''}`, () => {
    expect(plain(feel(source, variables))).toEqual(expected);
  });
}

/** `source` evaluates to null, with a warning of `type` (a suppressed failure). */
export function isNullWarned(source: string, type: FeelWarningType, variables?: Record<string, unknown>): void {
  test(`${source} is null with a ${type} warning`, () => {
    const result = feel(source, variables);
    expect(result.ok && result.value).toBe(null);
    expect(result.ok && result.warnings.map((w) => w.type)).toContain(type);
  });
}

/** `source` fails (feel-scala's failure: an incident in Zeebe), the reason matching `reason`. */
export function fails(source: string, reason: RegExp, variables?: Record<string, unknown>): void {
  test(`${source} fails: ${reason.source}`, () => {
    const result = feel(source, variables);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.failure.message).toMatch(reason);
  });
}

/** Unary tests `source` against `input` give `expected`. */
export function unary(
  source: string,
  input: unknown,
  expected: boolean | null,
  variables: Record<string, unknown> = {},
): void {
  test(`${show(input)} against unary tests ${source} is ${expected}`, () => {
    const result = evaluateUnaryTests(parseUnaryTests(source), input, variables, { now: () => NOW });
    expect(plain(result)).toBe(expected);
  });
}

function show(value: unknown): string {
  return JSON.stringify(value, (_, v) => (typeof v === 'bigint' ? `${v}n` : v)) ?? String(value);
}
