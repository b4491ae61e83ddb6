/**
 * The closures the compiled FEEL subset is built from (`feel-compiled.ts` parses into them): each one
 * evaluates its operands and gives feelin's answer, or throws {@link BAIL} where feelin's semantics for the
 * values met are not plainly the same (see the notes of `feel-compiled.ts`).
 *
 * @internal
 * @module
 */

export type Scope = Record<string, unknown>;
export type Scalar = number | string | boolean | null;
export type Node = (scope: Scope) => unknown;

/** Thrown inside a closure to hand the expression to feelin; preallocated, so bailing is cheap. */
export const BAIL = new Error('thresher: FEEL evaluation falls back to feelin');

export const KEYWORDS = new Set(
  'and or not if then else for in return some every satisfies instance of between function external null true false'.split(
    ' ',
  ),
);
/** A key feelin's tokenizer reads as one plain name, so it cannot change how a source parses. */
export const PLAIN_KEY = new RegExp(`^(?!(?:${[...KEYWORDS].join('|')})$)[A-Za-z_][A-Za-z0-9_]*$`);
const MAX_DATA_DEPTH = 64;
const isEnumerableOwn = Object.prototype.propertyIsEnumerable;

export /** Whether `value` is a plain object whose keys cannot change feelin's parse (see the module notes). */
function isPlainContext(value: object): boolean {
  if (Object.getPrototypeOf(value) !== Object.prototype) return false;
  for (const key of Object.keys(value)) if (!PLAIN_KEY.test(key)) return false;
  return true;
}

export function constant(value: Scalar): Node {
  return () => value;
}

/** An operand: a number, string, boolean or null; anything else bails out to feelin. */
function scalar(value: unknown): Scalar {
  const type = typeof value;
  if (type === 'string' || type === 'boolean') return value as string | boolean;
  if (type === 'number' && Number.isFinite(value)) return value as number;
  if (value === null || value === undefined) return null;
  throw BAIL;
}

/** The top-level result: a scalar, or data that feel.ts copies exactly as it copies feelin's. */
export function result(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return scalar(value);
  if (!isPlainData(value, 0)) throw BAIL;
  return value;
}

function isPlainData(value: unknown, depth: number): boolean {
  const type = typeof value;
  if (type === 'number') return Number.isFinite(value);
  if (type !== 'object' || value === null) return type === 'string' || type === 'boolean' || value == null;
  if (depth > MAX_DATA_DEPTH) return false;
  const prototype = Object.getPrototypeOf(value);
  if (prototype === Array.prototype) {
    const list = value as unknown[];
    for (let i = 0; i < list.length; i++) if (!isPlainData(list[i], depth + 1)) return false;
    return true;
  }
  if (prototype !== Object.prototype) return false;
  for (const item of Object.values(value as object)) if (!isPlainData(item, depth + 1)) return false;
  return true;
}

/** A name or path. Reads only own enumerable keys: feelin reads a copy made by `Object.entries`. */
export function reference(name: string, steps: readonly string[]): Node {
  return (scope) => {
    let value = isEnumerableOwn.call(scope, name) ? scope[name] : undefined;
    for (const step of steps) value = property(value, step);
    return value;
  };
}

function property(target: unknown, key: string): unknown {
  if (target === null || target === undefined) return null;
  const type = typeof target;
  if (type === 'string' || type === 'number' || type === 'boolean') return null;
  // A list maps the path over its items; other objects have their own FEEL types.
  if (type !== 'object' || !isPlainContext(target as object)) throw BAIL;
  return isEnumerableOwn.call(target, key) ? (target as Scope)[key] : undefined;
}

/** Unary minus of anything but a literal: feelin computes `0 - x`, so `-(0)` is 0, not -0. */
export function negate(operand: Node): Node {
  return (scope) => {
    const value = scalar(operand(scope));
    return typeof value === 'number' ? 0 - value : null;
  };
}

const ARITHMETIC: Record<string, (a: number, b: number) => number | null> = {
  '+': (a, b) => a + b,
  '-': (a, b) => a - b,
  '*': (a, b) => a * b,
  '/': (a, b) => (b === 0 ? null : a / b),
};

/** Numbers only, except `+` of two strings; any other mix is null. */
function arithmetic(op: string, left: Node, right: Node): Node {
  const apply = ARITHMETIC[op]!;
  return (scope) => {
    const a = scalar(left(scope));
    const b = scalar(right(scope));
    if (typeof a !== 'number' || typeof b !== 'number') {
      return op === '+' && typeof a === 'string' && typeof b === 'string' ? a + b : null;
    }
    // An overflow to ±Infinity or NaN is not checked here: whatever consumes it passes it through
    // scalar() or result(), which hand it to feelin.
    return apply(a, b);
  };
}

/** `null = null` is true, null against a value false, two different types null. */
function equality(op: string, left: Node, right: Node): Node {
  return (scope) => {
    const a = scalar(left(scope));
    const b = scalar(right(scope));
    let equal: boolean | null;
    if (a === null || b === null) equal = a === b;
    else equal = typeof a === typeof b ? a === b : null;
    return op === '=' || equal === null ? equal : !equal;
  };
}

const ORDER: Record<string, (a: number | string, b: number | string) => boolean> = {
  '<': (a, b) => a < b,
  '<=': (a, b) => a <= b,
  '>': (a, b) => a > b,
  '>=': (a, b) => a >= b,
};

function order(op: string, left: Node, right: Node): Node {
  const compare = ORDER[op]!;
  return (scope) => {
    const a = scalar(left(scope));
    const b = scalar(right(scope));
    // feelin tests `a < b` as "a in the range (…b)": a null bound gives null, a boolean one throws.
    if (b === null) return null;
    if (typeof b === 'boolean') throw BAIL;
    if (a === null) return null;
    if (typeof a !== typeof b) throw BAIL;
    return compare(a as number | string, b);
  };
}

/** FEEL's three-valued `and`: both sides are always evaluated, a non-boolean counts as null. */
function and(left: Node, right: Node): Node {
  return (scope) => {
    const a = asBoolean(left(scope));
    const b = asBoolean(right(scope));
    if (a === false || b === false) return false;
    return a === true && b === true ? true : null;
  };
}

function or(left: Node, right: Node): Node {
  return (scope) => {
    const a = asBoolean(left(scope));
    const b = asBoolean(right(scope));
    if (a === true || b === true) return true;
    return a === false && b === false ? false : null;
  };
}

export function not(operand: Node): Node {
  return (scope) => {
    const value = asBoolean(operand(scope));
    return value === null ? null : !value;
  };
}

function asBoolean(value: unknown): boolean | null {
  const operand = scalar(value);
  return typeof operand === 'boolean' ? operand : null;
}

/** The binary operators by precedence, loosest first, as FEEL (and feelin) ranks them. */
export const LEVELS: readonly { pattern: RegExp; build: (op: string, left: Node, right: Node) => Node }[] = [
  { pattern: /or(?!\w)/y, build: (_, left, right) => or(left, right) },
  { pattern: /and(?!\w)/y, build: (_, left, right) => and(left, right) },
  {
    pattern: /!=|<=|>=|[=<>]/y,
    build: (op, l, r) => (op === '=' || op === '!=' ? equality(op, l, r) : order(op, l, r)),
  },
  { pattern: /[+-]/y, build: arithmetic },
  // `**` is exponentiation, `//` and `/*` open comments: none of them is in the subset.
  { pattern: /[*/](?![*/])/y, build: arithmetic },
];
