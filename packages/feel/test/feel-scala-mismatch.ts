/**
 * Runs one case of feel-scala's tests (data/feel-scala) and says how its result differs from feel-scala's.
 */
import {
  evaluate,
  evaluateUnaryTests,
  type FeelResult,
  type FeelValue,
  parseExpression,
  parseUnaryTests,
} from '../src/index.js';
import type { FeelScalaCase } from './data/feel-scala/load.js';
import { decode, same } from './feel-scala-values.js';

const NOW = Date.UTC(2019, 7, 12, 22, 22, 22);

function run(c: FeelScalaCase): FeelResult {
  const variables: Record<string, FeelValue> = {};
  for (const [name, value] of Object.entries(c.variables ?? {})) variables[name] = decode(value);
  const options = { now: () => NOW, unsafeRandom: () => 0.5, unsafeUuid: () => '01890a5d-ac96-774b-bcce-b302099a8057' };
  if (c.kind === 'unaryTests') {
    return evaluateUnaryTests(
      parseUnaryTests(c.expression),
      c.input === undefined ? undefined : decode(c.input),
      variables,
      options,
    );
  }
  return evaluate(parseExpression(c.expression), variables, options);
}

/** Why the case's result is not feel-scala's, or null when it is. */
export function mismatch(c: FeelScalaCase): string | null {
  let result: FeelResult;
  try {
    result = run(c);
  } catch (error) {
    const failed =
      c.expect !== null && typeof c.expect === 'object' && !Array.isArray(c.expect) && '$failure' in c.expect;
    return failed ? null : `threw ${(error as Error).message}`;
  }
  const expect = c.expect;
  const warnings = result.ok ? result.warnings : result.failure.warnings;
  const missingWarnings = (suppressed: { type: string; message: string }[]) =>
    suppressed.filter((s) => !warnings.some((w) => w.type === s.type && w.message === s.message));
  const show = (r: FeelResult) =>
    r.ok ? `value ${JSON.stringify(r.value, replacer)}` : `failure ${r.failure.message}`;
  if (expect !== null && typeof expect === 'object' && !Array.isArray(expect)) {
    if ('$failure' in expect) return result.ok ? `expected a failure (${expect.$failure}), got ${show(result)}` : null;
    if ('$null' in expect || '$result' in expect || '$anyResult' in expect) {
      if (!result.ok) return `expected a result, got ${show(result)}`;
      if ('$null' in expect && result.value !== null) return `expected null, got ${show(result)}`;
      if ('$result' in expect && !same(result.value, decode(expect.$result), c.harness)) {
        return `expected ${JSON.stringify(expect.$result)}, got ${show(result)}`;
      }
      const missing = missingWarnings(expect.suppressed);
      return missing.length === 0
        ? null
        : `missing warnings ${JSON.stringify(missing)}; got ${JSON.stringify(warnings)}`;
    }
  }
  if (!result.ok) return `expected ${JSON.stringify(expect)}, got ${show(result)}`;
  return same(result.value, decode(expect as Parameters<typeof decode>[0]), c.harness)
    ? null
    : `expected ${JSON.stringify(expect)}, got ${show(result)}`;
}

function replacer(_: string, value: unknown): unknown {
  if (typeof value === 'bigint') return `${value}n`;
  if (value instanceof Map) return Object.fromEntries(value);
  if (value !== null && typeof value === 'object' && !Array.isArray(value) && value.constructor !== Object) {
    return String(value);
  }
  return value;
}
