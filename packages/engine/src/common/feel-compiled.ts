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
import { constant, isPlainContext, KEYWORDS, LEVELS, type Node, negate, not, reference, result } from './feel-nodes.js';

/** The feelin dialect Thresher parses and evaluates with. */
export const FEEL_DIALECT = 'camunda';

/** Returned by {@link _evaluateCompiled} when feelin must evaluate the expression instead. */
export const FEELIN: unique symbol = Symbol('thresher.feel.feelin');

type Compiled = { run: Node; readsNames: boolean };

/** Thrown while parsing: the source is not in the subset. */
const REFUSE = new Error('thresher: FEEL source is outside the compiled subset');

const NUMBER = /-?(?:\d+(?:\.\d+)?|\.\d+)(?![\w.])/y;
const WORD = /[A-Za-z_][A-Za-z0-9_]*(?=$|[ \t\r\n+\-*/=!<>().])/y;
const MAX_DEPTH = 48;
const CACHE_LIMIT = 10_000;

const cache = new Map<string, Compiled | null>();
const freeNames = new Map<string, boolean>();

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
