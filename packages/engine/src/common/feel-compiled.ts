/**
 * The fast path of FEEL evaluation: the common subset of FEEL, compiled once per source into a closure
 * and evaluated without feelin, which re-parses the source on every call (docs/architecture.md §2).
 *
 * The subset: number literals (`1`, `-2.5`, `.5`), string literals without backslashes, `true`,
 * `false`, `null`, simple names (`[A-Za-z_][A-Za-z0-9_]*`, not a keyword nor a built-in) and paths of
 * them (`a.b.c`), unary `-`, `+ - * /`, `= != < <= > >=`, `and`, `or`, `not(x)`, parentheses.
 * Anything else compiles to `null` and feelin evaluates it.
 *
 * The closure must return exactly what feelin returns. Where the answer is not plainly the same
 * for the operands met at run time it gives up with {@link FEELIN}, and feelin evaluates the whole
 * expression: an operand that is not a number, string, boolean or null (objects, lists, NaN, ±Infinity,
 * dates…), an ordering comparison of a boolean or of two different types, an arithmetic result that
 * is not finite, and variables or path targets having a key that is not a simple name (feelin's
 * parse depends on those: with a key `a-b`, `a-b` and even `a - b` name it).
 *
 * One known difference: feelin deep-copies all the variables first, so a cyclic structure or a
 * throwing getter that the expression never reads fails there and not here. Neither can be checkpointed.
 *
 * @internal
 * @module
 */
import { evaluate as feelEvaluate } from 'feelin';

/** The feelin dialect Thresher parses and evaluates with. */
export const FEEL_DIALECT = 'camunda';

/** Returned by {@link _evaluateCompiled} when feelin must evaluate the expression instead. */
export const FEELIN: unique symbol = Symbol('thresher.feel.feelin');

type Scope = Record<string, unknown>;
type Scalar = number | string | boolean | null;
type Node = (scope: Scope) => unknown;
type Compiled = { run: Node; readsNames: boolean };

/** Thrown inside a closure to hand the expression to feelin; preallocated, so bailing is cheap. */
const BAIL = new Error('thresher: FEEL evaluation falls back to feelin');
/** Thrown while parsing: the source is not in the subset. */
const REFUSE = new Error('thresher: FEEL source is outside the compiled subset');

const KEYWORDS = new Set(
  'and or not if then else for in return some every satisfies instance of between function external null true false'.split(
    ' ',
  ),
);
/** A key feelin's tokenizer reads as one plain name, so it cannot change how a source parses. */
const PLAIN_KEY = new RegExp(`^(?!(?:${[...KEYWORDS].join('|')})$)[A-Za-z_][A-Za-z0-9_]*$`);
const NUMBER = /-?(?:\d+(?:\.\d+)?|\.\d+)(?![\w.])/y;
const WORD = /[A-Za-z_][A-Za-z0-9_]*(?=$|[ \t\r\n+\-*/=!<>().])/y;
const MAX_DEPTH = 48;
const MAX_DATA_DEPTH = 64;
const CACHE_LIMIT = 10_000;

const cache = new Map<string, Compiled | null>();
const freeNames = new Map<string, boolean>();
const isEnumerableOwn = Object.prototype.propertyIsEnumerable;

/**
 * Evaluates `source` on the compiled fast path.
 *
 * @returns the raw result (feel.ts turns it into plain data), or {@link FEELIN} when the source is
 *   outside the subset or the values met need feelin's own semantics.
 * @internal
 */
export function _evaluateCompiled(source: string, variables: Record<string, unknown>): unknown {
  let compiled = cache.get(source);
  if (compiled === undefined) {
    if (cache.size >= CACHE_LIMIT) cache.clear();
    compiled = _compileFeel(source);
    cache.set(source, compiled);
  }
  if (compiled === null) return FEELIN;
  try {
    if (compiled.readsNames && !isPlainContext(variables)) return FEELIN;
    return result(compiled.run(variables));
  } catch {
    // BAIL, or anything unforeseen (a throwing getter): feelin decides, and words any error.
    return FEELIN;
  }
}

/**
 * Compiles `source` (without Zeebe's `=`) into a closure, or `null` when it is outside the subset.
 *
 * @internal Exported for tests; {@link _evaluateCompiled} caches it.
 */
export function _compileFeel(source: string): Compiled | null {
  const parser = new Parser(source);
  try {
    const run = parser.parseExpression(0);
    parser.skipSpace();
    if (parser.pos !== source.length) return null;
    return { run, readsNames: parser.readsNames };
  } catch (error) {
    if (error === REFUSE) return null;
    throw error;
  }
}

/** A recursive-descent parser over the subset; any other construct throws REFUSE. */
class Parser {
  pos = 0;
  /** Whether the source has a word feelin could read as (part of) a name. */
  readsNames = false;

  constructor(private readonly src: string) {}

  skipSpace(): void {
    let c = this.src.charCodeAt(this.pos);
    while (c === 32 || c === 9 || c === 10 || c === 13) c = this.src.charCodeAt(++this.pos);
  }

  parseExpression(depth: number): Node {
    if (depth > MAX_DEPTH) throw REFUSE;
    return this.parseBinary(0, depth);
  }

  /** One precedence level of {@link LEVELS}; operators chain to the left (`a = b = c` is `(a = b) = c`). */
  private parseBinary(level: number, depth: number): Node {
    const operators = LEVELS[level];
    if (!operators) return this.parseUnary(depth);
    let left = this.parseBinary(level + 1, depth);
    for (;;) {
      this.skipSpace();
      operators.pattern.lastIndex = this.pos;
      const op = operators.pattern.exec(this.src)?.[0];
      // Anything else here (`**`, `//`, `==`, `!`) is left over, and refused by the caller.
      if (op === undefined) return left;
      this.pos += op.length;
      left = operators.build(op, left, this.parseBinary(level + 1, depth));
    }
  }

  private parseUnary(depth: number): Node {
    this.skipSpace();
    if (this.src[this.pos] !== '-') return this.parsePrimary(depth);
    // feelin reads `-1` as one literal (so `-0` is -0), but `- 1` as a literal that is NaN.
    if (isNumberStart(this.src, this.pos + 1)) return this.noPostfix(this.parseNumber());
    this.pos++;
    this.skipSpace();
    if (isNumberStart(this.src, this.pos)) throw REFUSE;
    return negate(this.parseUnary(depth + 1));
  }

  private parsePrimary(depth: number): Node {
    const c = this.src[this.pos];
    let node: Node;
    if (isNumberStart(this.src, this.pos)) node = this.parseNumber();
    else if (c === '"') node = this.parseString();
    else if (c === '(') {
      this.pos++;
      node = this.parseExpression(depth + 1);
      this.expect(')');
    } else node = this.parseNameOrPath(depth);
    return this.noPostfix(node);
  }

  /** Postfix forms (`(a).b`, `x (y)`, filters) are outside the subset. */
  private noPostfix(node: Node): Node {
    this.skipSpace();
    const after = this.src[this.pos];
    if (after === '.' || after === '(' || after === '[') throw REFUSE;
    return node;
  }

  private parseNameOrPath(depth: number): Node {
    const word = this.readWord();
    this.readsNames = true;
    if (word === 'true' || word === 'false') return constant(word === 'true');
    if (word === 'null') return constant(null);
    if (word === 'not') {
      this.expect('(');
      const operand = this.parseExpression(depth + 1);
      this.expect(')');
      return not(operand);
    }
    if (KEYWORDS.has(word) || !isFreeName(word)) throw REFUSE;
    const steps: string[] = [];
    while (this.src[this.pos] === '.') {
      this.pos++;
      const step = this.readWord();
      if (KEYWORDS.has(step)) throw REFUSE;
      steps.push(step);
    }
    return reference(word, steps);
  }

  private parseNumber(): Node {
    const match = this.sticky(NUMBER);
    // Parsed exactly as feelin does, so huge literals round the same way.
    const value = match[0].includes('.') ? Number.parseFloat(match[0]) : Number.parseInt(match[0], 10);
    if (!Number.isFinite(value)) throw REFUSE;
    return constant(value);
  }

  private parseString(): Node {
    const end = this.src.indexOf('"', this.pos + 1);
    if (end < 0) throw REFUSE;
    const value = this.src.slice(this.pos + 1, end);
    // feelin's escapes (`\"`, `\n`, `\u…`, unknown ones kept verbatim) are left to feelin.
    if (value.includes('\\')) throw REFUSE;
    this.pos = end + 1;
    return constant(value);
  }

  /** A name; one glued to any other character (`a€`, `a?`, `a"x"`) may be a longer FEEL name. */
  private readWord(): string {
    return this.sticky(WORD)[0];
  }

  private sticky(pattern: RegExp): RegExpExecArray {
    pattern.lastIndex = this.pos;
    const match = pattern.exec(this.src);
    if (!match) throw REFUSE;
    this.pos += match[0].length;
    return match;
  }

  private expect(char: string): void {
    this.skipSpace();
    if (this.src[this.pos] !== char) throw REFUSE;
    this.pos++;
  }
}

function isNumberStart(src: string, at: number): boolean {
  const c = src.charCodeAt(at);
  if (c >= 48 && c <= 57) return true;
  const next = src.charCodeAt(at + 1);
  return c === 46 && next >= 48 && next <= 57;
}

/** Whether feelin reads `name`, absent from the variables, as a missing variable rather than a built-in. */
function isFreeName(name: string): boolean {
  let free = freeNames.get(name);
  if (free === undefined) {
    try {
      const probe = feelEvaluate(name, {}, FEEL_DIALECT);
      free = probe.value === null && probe.warnings.length === 1 && probe.warnings[0]?.type === 'NO_VARIABLE_FOUND';
    } catch {
      free = false;
    }
    if (freeNames.size >= CACHE_LIMIT) freeNames.clear();
    freeNames.set(name, free);
  }
  return free;
}

/** Whether `value` is a plain object whose keys cannot change feelin's parse (see the module notes). */
function isPlainContext(value: object): boolean {
  if (Object.getPrototypeOf(value) !== Object.prototype) return false;
  for (const key of Object.keys(value)) if (!PLAIN_KEY.test(key)) return false;
  return true;
}

// ---- evaluation -------------------------------------------------------------------------------

function constant(value: Scalar): Node {
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
function result(value: unknown): unknown {
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
function reference(name: string, steps: readonly string[]): Node {
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
function negate(operand: Node): Node {
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

function not(operand: Node): Node {
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
const LEVELS: readonly { pattern: RegExp; build: (op: string, left: Node, right: Node) => Node }[] = [
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
