/**
 * Compiles a FEEL syntax tree once into closures, each evaluating one node as feel-scala's
 * `FeelInterpreter.eval` does; evaluation then only runs closures (no re-parse, no tree walk).
 *
 * @module
 */
import type { Bound, Node, NodeOf, TypeRef } from '../ast.js';
import * as num from '../number.js';
import {
  isDateText,
  parseAtLiteral,
  parseDate,
  parseDateAndTime,
  parseDurationLiteral,
  parseTime,
} from '../temporal/parse.js';
import { FeelTime } from '../temporal/time.js';
import {
  FeelContext,
  FeelErrorValue,
  FeelFunction,
  type FeelNumber,
  FeelRange,
  type FeelValue,
  typeName,
  type Val,
} from '../values.js';
import { add, divide, multiply, subtract } from './arithmetic.js';
import { asError, type Code, isError, orNull } from './code.js';
import { kindOf } from './comparison.js';
import { type CompiledArgs, compileCall, compileFunctionDefinition, compileQualifiedCall } from './compile-call.js';
import { asNumber, compileFilter, compileIterationRange, compileIterators } from './compile-iteration.js';
import {
  atLeastOne,
  compileAnd,
  compileCompare,
  compileIf,
  compileInputCompare,
  compileInputInRange,
  compileNot,
  compileOr,
  compileUnaryTestExpression,
  INPUT_SYMBOL,
  inputVariableName,
} from './compile-logic.js';
import { JavaException } from './failure.js';
import { path } from './path.js';
import { show } from './show.js';
import { FeelWarningType } from './state.js';

/** Compiles a node. @internal */
export function compile(node: Node): Code {
  switch (node.kind) {
    case 'const': {
      const value = node.value;
      return () => value;
    }
    case 'temporal':
      return compileTemporal(node);
    case 'input':
      return (scope) => {
        const value = scope.variable(INPUT_SYMBOL);
        return value !== undefined
          ? value
          : new FeelErrorValue(`No input value available. '?' can only be used inside an unary-test expression.`, true);
      };
    case 'list':
      return compileList(node.items.map(compile));
    case 'context':
      return compileContext(node);
    case 'range':
      return compileRange(node.start, node.end);
    case 'inputCompare':
      return compileInputCompare(node.op, compile(node.value));
    case 'inputInRange':
      return compileInputInRange(compile(node.start.node), node.start.closed, compile(node.end.node), node.end.closed);
    case 'unaryTestExpression':
      return compileUnaryTestExpression(compile(node.node));
    case 'atLeastOne': {
      const items = node.items.map(compile);
      return (scope, state) =>
        atLeastOne(
          items.map((item) => () => item(scope, state)),
          state,
        );
    }
    case 'arith':
      return compileArithmetic(node);
    case 'negate': {
      const operand = compile(node.operand);
      return (scope, state) => {
        const value = operand(scope, state);
        if (typeof value === 'number') return 0 - value;
        const checked = asNumber(value, state);
        return isError(checked) ? orNull(checked) : num.negate(checked);
      };
    }
    case 'compare':
      return compileCompare(node.op, compile(node.left), compile(node.right));
    case 'not':
      return compileNot(compile(node.operand));
    case 'or':
      return compileOr(compile(node.left), compile(node.right));
    case 'and':
      return compileAnd(compile(node.left), compile(node.right));
    case 'if':
      return compileIf(compile(node.condition), compile(node.whenTrue), compile(node.whenFalse));
    case 'in': {
      const value = compile(node.value);
      const test = compile(node.test);
      return (scope, state) => {
        const x = value(scope, state);
        if (isError(x)) return x;
        return test(scope.withVariable(inputVariableName(scope), x), state);
      };
    }
    case 'instanceOf': {
      const value = compile(node.value);
      const type = node.type;
      return (scope, state) => {
        const x = value(scope, state);
        return isError(x) ? x : isInstance(x, type);
      };
    }
    case 'ref':
    case 'path':
      return compilePath(node);
    case 'for':
    case 'some':
    case 'every':
      return compileIterators(
        node.kind,
        node.iterators.map((iterator) => iterator.name),
        node.iterators.map((iterator) => compile(iterator.source)),
        compile(node.body),
        node.kind === 'for' && mentions(node.body, 'partial'),
      );
    case 'filter':
      return compileFilter(compile(node.list), node.filter, compile(node.filter));
    case 'iteration':
      return compileIterationRange(compile(node.start), compile(node.end));
    case 'call':
      return compileCall(node.name, compileArgs(node));
    case 'qualifiedCall':
      return compileQualifiedCall(compile(node.target), node.name, compileArgs(node));
    case 'function':
      return compileFunctionDefinition(node.params, compile(node.body));
  }
}

function compileArgs(node: NodeOf<'call'> | NodeOf<'qualifiedCall'>): CompiledArgs {
  return node.args.kind === 'positional'
    ? { kind: 'positional', items: node.args.items.map(compile) }
    : { kind: 'named', items: node.args.items.map((item) => ({ name: item.name, value: compile(item.value) })) };
}

/** A temporal literal: read once, unless it is a time in a zone (its offset depends on the clock). */
function compileTemporal(node: NodeOf<'temporal'>): Code {
  const read = (nowSecond: number): FeelValue => {
    switch (node.form) {
      case '@':
        return parseAtLiteral(node.text, nowSecond);
      case 'date':
        return isDateText(node.text) ? parseDate(node.text) : null;
      case 'time':
        return parseTime(node.text, nowSecond);
      case 'date and time':
        return parseDateAndTime(node.text);
      case 'duration':
        return parseDurationLiteral(node.text);
    }
  };
  const value = read(0);
  if (value instanceof FeelTime && value.zone !== null) return (_, state) => read(Math.floor(state.now() / 1000));
  return () => value;
}

function compileList(items: Code[]): Code {
  return (scope, state) => {
    const values: FeelValue[] = new Array(items.length);
    for (let i = 0; i < items.length; i++) {
      const value = items[i]!(scope, state);
      if (isError(value)) return asError(value);
      values[i] = value;
    }
    return values;
  };
}

/** `{a: 1, b: a + 1}`: each entry sees the earlier ones; a function entry is callable, not an entry. */
function compileContext(node: NodeOf<'context'>): Code {
  const entries = node.entries.map((entry) => ({ key: entry.key, value: compile(entry.value) }));
  return (scope, state) => {
    let vars = new Map<string, FeelValue>();
    let funcs = new Map<string, FeelFunction>();
    for (const entry of entries) {
      const value = entry.value(scope.with(vars, funcs), state);
      if (isError(value)) return asError(value);
      // Each entry's scope is a snapshot: a function defined earlier does not see later entries.
      if (value instanceof FeelFunction) {
        funcs = new Map(funcs);
        funcs.set(entry.key, value);
      } else {
        vars = new Map(vars);
        vars.set(entry.key, value);
      }
    }
    return FeelContext.of(vars, funcs.size > 0 ? funcs : null);
  };
}

const RANGE_KINDS = new Set([
  'number',
  'date',
  'time',
  'local time',
  'date-time',
  'local date-time',
  'years-months',
  'days-time',
]);

/** A range argument `[1..5)`: both ends of one kind that has an order, else an error (propagates). */
function compileRange(start: Bound, end: Bound): Code {
  const low = compile(start.node);
  const high = compile(end.node);
  return (scope, state) => {
    const x = low(scope, state);
    if (isError(x)) return x;
    const y = high(scope, state);
    if (isError(y)) return y;
    const kind = kindOf(x);
    if (!RANGE_KINDS.has(kind) || kind !== kindOf(y)) {
      const text = `${start.closed ? '[' : '('}${show(x)}..${show(y)}${end.closed ? ']' : ')'}`;
      return state.error(FeelWarningType.InvalidType, `Invalid range definition '${text}'`);
    }
    return new FeelRange({ value: x, closed: start.closed }, { value: y, closed: end.closed });
  };
}

const ARITHMETIC = { '+': add, '-': subtract, '*': multiply, '/': divide } as const;

function compileArithmetic(node: NodeOf<'arith'>): Code {
  const left = compile(node.left);
  const right = compile(node.right);
  if (node.op === '**') {
    return (scope, state) => {
      const x = asNumber(left(scope, state), state);
      if (isError(x)) return orNull(x);
      const y = asNumber(right(scope, state), state);
      if (isError(y)) return orNull(y);
      return power(x, y);
    };
  }
  const op = ARITHMETIC[node.op];
  const fast = FAST[node.op];
  return (scope, state) => {
    const x = left(scope, state);
    const y = right(scope, state);
    if (typeof x === 'number' && typeof y === 'number') {
      const result = fast(x, y);
      if (result !== undefined) return result;
    }
    if (isError(x)) return orNull(x);
    if (isError(y)) return orNull(y);
    return orNull(op(x, y, state));
  };
}

/** Safe-integer arithmetic without allocation; undefined when the exact result is not a safe integer. */
const FAST: Record<'+' | '-' | '*' | '/', (x: number, y: number) => number | undefined> = {
  '+': (x, y) => {
    const r = x + y;
    return Number.isSafeInteger(r) ? r : undefined;
  },
  '-': (x, y) => {
    const r = x - y;
    return Number.isSafeInteger(r) ? r + 0 : undefined;
  },
  '*': (x, y) => {
    const r = x * y;
    return Number.isSafeInteger(r) ? r + 0 : undefined;
  },
  '/': (x, y) => (y !== 0 && x % y === 0 ? x / y + 0 : undefined),
};

/** feel-scala's `**`: an integral exponent by `BigDecimal.pow`, any other through doubles. */
function power(x: FeelNumber, y: FeelNumber): Val {
  if (num.isWhole(y)) {
    try {
      return num.power(x, num.intValue(y));
    } catch (error) {
      throw new JavaException('ArithmeticException', (error as Error).message);
    }
  }
  const result = num.fromDouble(num.toDouble(x) ** num.toDouble(y));
  if (result === null)
    throw new JavaException(
      'NumberFormatException',
      'Character N is neither a decimal digit number, decimal point, nor "e" notation exponential mark.',
    );
  return result;
}

/** `a`, `a.b.c`, `(expr).b`: a missing root variable is null with one warning (no path warnings after it). */
function compilePath(node: NodeOf<'ref'> | NodeOf<'path'>): Code {
  const keys: string[] = [];
  let root: Node = node;
  while (root.kind === 'path') {
    keys.unshift(root.key);
    root = root.target;
  }
  if (root.kind === 'ref') {
    const name = root.name;
    if (keys.length === 0) {
      return (scope, state) => {
        const value = scope.variable(name);
        if (value !== undefined) return value;
        state.warn(FeelWarningType.NoVariableFound, `No variable found with name '${name}'`);
        return null;
      };
    }
    return (scope, state) => {
      let value = scope.variable(name);
      if (value === undefined) {
        state.warn(FeelWarningType.NoVariableFound, `No variable found with name '${name}'`);
        return null;
      }
      for (const key of keys) value = path(value, key, state);
      return value;
    };
  }
  const target = compile(root);
  return (scope, state) => {
    let value: Val = target(scope, state);
    if (isError(value)) return value;
    for (const key of keys) value = path(value as FeelValue, key, state);
    return value;
  };
}

/** Whether a name is read anywhere in the tree (an over-approximation: shadowing is ignored). */
function mentions(node: Node, name: string): boolean {
  if (node.kind === 'ref') return node.name === name;
  return Object.values(node).some((child) => isNodeLike(child) && mentionsIn(child, name));
}

function isNodeLike(value: unknown): value is object {
  return typeof value === 'object' && value !== null;
}

function mentionsIn(value: object, name: string): boolean {
  if (Array.isArray(value)) return value.some((item) => isNodeLike(item) && mentionsIn(item, name));
  if ('kind' in value && typeof (value as { kind: unknown }).kind === 'string' && 'from' in value) {
    return mentions(value as Node, name);
  }
  return Object.values(value).some((child) => isNodeLike(child) && mentionsIn(child, name));
}

/** `instance of`: feel-scala compares type names; `list<T>` and `function<…>->T` are read per the DMN spec. */
function isInstance(value: FeelValue, type: TypeRef): boolean {
  switch (type.kind) {
    case 'name': {
      if (type.name === 'Any') return value !== null;
      const actual = typeName(value);
      if (type.name === 'date time') return actual === 'date and time';
      if (type.name === 'year-month-duration') return actual === 'years and months duration';
      if (type.name === 'day-time-duration') return actual === 'days and time duration';
      return type.name === actual;
    }
    case 'list':
      return Array.isArray(value) && value.every((item) => isInstance(item, type.item));
    case 'function':
      return value instanceof FeelFunction && value.params.length === type.params.length;
  }
}
