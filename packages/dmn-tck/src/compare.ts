/**
 * Whether an actual result is the expected one, as the TCK's reference runners compare: by value, with
 * FEEL's equality (decimals by value, temporal values by value, contexts by their entries, lists in order).
 * An expected null (`xsi:nil`) is met by null or by an evaluation that failed (DMN: an error is null).
 * An expected number with 8 or more decimal places is met by a value that rounds to it at that many places
 * or agrees with it to 10 significant digits: the TCK writes the results of irrational arithmetic (`exp`, `log`, `0008-LX-arithmetic`'s
 * payment) cut to 8 to 12 places, or computed in binary floating point, which a 34-digit decimal does not
 * equal.
 *
 * @module
 */
import { FeelContext, type FeelValue, feelEquals, kindOf } from '@thresher/feel';

export function sameValue(actual: FeelValue, expected: FeelValue): boolean {
  if (expected === null) return actual === null;
  if (Array.isArray(expected)) {
    return (
      Array.isArray(actual) &&
      actual.length === expected.length &&
      expected.every((item, i) => sameValue(actual[i] ?? null, item))
    );
  }
  if (expected instanceof FeelContext) {
    if (!(actual instanceof FeelContext)) return false;
    const keys = expected.keys();
    return (
      keys.length === actual.keys().length &&
      keys.every((key) => actual.has(key) && sameValue(actual.get(key) ?? null, expected.get(key) ?? null))
    );
  }
  if (feelEquals(actual, expected) === true) return true;
  return kindOf(expected) === 'number' && kindOf(actual) === 'number' && closeEnough(String(actual), String(expected));
}

function closeEnough(actual: string, expected: string): boolean {
  const places = /\.(\d+)$/.exec(expected)?.[1]?.length ?? 0;
  if (places < 8) return false;
  const e = Number(expected);
  return Math.abs(Number(actual) - e) <= Math.max(Math.abs(e) * 1e-10, 0.5 * 10 ** -places * (1 + 1e-9));
}

/** A value as a line of a report. */
export function show(value: FeelValue | undefined): string {
  if (value === undefined) return '(nothing)';
  if (value === null) return 'null';
  if (typeof value === 'string') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(show).join(', ')}]`;
  if (value instanceof FeelContext)
    return `{${value
      .keys()
      .map((key) => `${key}: ${show(value.get(key) ?? null)}`)
      .join(', ')}}`;
  return String(value);
}
