/**
 * The safe-integer fast path gives the decimal path's answers: generated arithmetic and comparisons over
 * integers (some near 2^53, where the fast path must hand over) are checked against exact bigint
 * arithmetic, and against the same values entered as decimals (`7.0`), which never take the fast path.
 */
import { expect, test } from 'vitest';
import { Decimal, evaluate, type FeelValue, fromFeel, parseExpression } from '../src/index.js';

const POOL = [0n, 1n, -1n, 7n, -13n, 2n ** 26n, 2n ** 52n, 2n ** 53n - 1n, -(2n ** 53n - 1n), 123456789n];
const OPERATORS = ['+', '-', '*'] as const;
const COMPARISONS = ['=', '<', '>=', '!='] as const;

function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
}

/** An integer rounded to 34 significant digits, half-even, as feel-scala's arithmetic rounds. */
function round34(value: bigint): bigint {
  const digits = (value < 0n ? -value : value).toString().length;
  if (digits <= 34) return value;
  const unit = 10n ** BigInt(digits - 34);
  let q = value / unit;
  const r = value % unit;
  const twice = (r < 0n ? -r : r) * 2n;
  if (twice > unit || (twice === unit && q % 2n !== 0n)) q += value < 0n ? -1n : 1n;
  return q * unit;
}

type Vars = { a: bigint; b: bigint; c: bigint };
type Expr = { text: string; value: (vars: Vars) => bigint };

const APPLY = {
  '+': (x: bigint, y: bigint) => x + y,
  '-': (x: bigint, y: bigint) => x - y,
  '*': (x: bigint, y: bigint) => x * y,
};
const TEST = {
  '=': (x: bigint, y: bigint) => x === y,
  '<': (x: bigint, y: bigint) => x < y,
  '>=': (x: bigint, y: bigint) => x >= y,
  '!=': (x: bigint, y: bigint) => x !== y,
};

function generate(next: () => number, depth: number): Expr {
  const names = ['a', 'b', 'c'] as const;
  if (depth === 0 || next() < 0.3) {
    const name = names[Math.floor(next() * names.length)]!;
    return { text: name, value: (vars) => vars[name] };
  }
  const op = OPERATORS[Math.floor(next() * OPERATORS.length)]!;
  const left = generate(next, depth - 1);
  const right = generate(next, depth - 1);
  return {
    text: `(${left.text} ${op} ${right.text})`,
    value: (vars) => round34(APPLY[op](left.value(vars), right.value(vars))),
  };
}

const asDecimal = (value: bigint): FeelValue => Decimal.of(value * 10n, 1);

test('integer arithmetic and comparisons give the exact answer, by either path', () => {
  const next = random(42);
  for (let i = 0; i < 3000; i++) {
    const vars = {
      a: POOL[Math.floor(next() * POOL.length)]!,
      b: POOL[Math.floor(next() * POOL.length)]!,
      c: POOL[Math.floor(next() * POOL.length)]!,
    };
    const left = generate(next, 3);
    let text = left.text;
    let expected: bigint | boolean = left.value(vars);
    if (next() < 0.4) {
      const op = COMPARISONS[Math.floor(next() * COMPARISONS.length)]!;
      const right = generate(next, 2);
      text = `${text} ${op} ${right.text}`;
      expected = TEST[op](left.value(vars), right.value(vars));
    }
    const parsed = parseExpression(text);
    const fast = evaluate(parsed, { a: Number(vars.a), b: Number(vars.b), c: Number(vars.c) });
    const slow = evaluate(parsed, { a: asDecimal(vars.a), b: asDecimal(vars.b), c: asDecimal(vars.c) });
    for (const result of [fast, slow]) {
      expect(result.ok, text).toBe(true);
      const value = result.ok ? fromFeel(result.value) : undefined;
      expect(
        typeof value === 'number' ? BigInt(value) : value,
        `${text} with ${JSON.stringify(vars, (_, v) => String(v))}`,
      ).toEqual(expected);
    }
  }
});
