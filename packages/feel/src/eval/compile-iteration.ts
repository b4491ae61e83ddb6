/**
 * Iteration as feel-scala evaluates it: `for` (several iteration contexts, `partial`), `some`/`every`,
 * ranges of numbers (`1..3`), and filters (`list[cond]`, `list[index]`, 1-based, negative from the end).
 *
 * @module
 */
import type { Node } from '../ast.js';
import * as num from '../number.js';
import { FeelContext, type FeelErrorValue, type FeelNumber, type FeelValue, type Val } from '../values.js';
import { type Code, isError, orNull } from './code.js';
import { all, atLeastOne } from './compile-logic.js';
import type { Scope } from './scope.js';
import { show } from './show.js';
import { type EvalState, FeelWarningType } from './state.js';

/** feel-scala's `withNumber`: a non-number records INVALID_TYPE and is an error value. */
export function asNumber(value: Val, state: EvalState): FeelNumber | FeelErrorValue {
  if (num.isNumber(value) || isError(value)) return value;
  return state.error(FeelWarningType.InvalidType, `Expected number but found '${show(value)}'`);
}

/** `1..3`: the numbers from start to end by 1 (or -1), both included. */
export function compileIterationRange(start: Code, end: Code): Code {
  return (scope, state) => {
    const x = asNumber(start(scope, state), state);
    if (isError(x)) return x;
    const y = asNumber(end(scope, state), state);
    if (isError(y)) return y;
    const step = num.compare(x, y) < 0 ? 1 : -1;
    const items: FeelValue[] = [];
    for (
      let value = x;
      step > 0 ? num.compare(value, y) <= 0 : num.compare(value, y) >= 0;
      value = num.add(value, step)
    ) {
      items.push(value);
    }
    return items;
  };
}

/** feel-scala's `withLists`: each source must be a list (INVALID_TYPE recorded for each that is not). */
function lists(sources: Val[], state: EvalState): (readonly FeelValue[])[] | FeelErrorValue {
  const checked = sources.map((source) =>
    Array.isArray(source) || isError(source)
      ? source
      : state.error(FeelWarningType.InvalidType, `Expected list but found '${show(source)}'`),
  );
  const failed = checked.find((item) => !Array.isArray(item));
  return failed === undefined ? (checked as (readonly FeelValue[])[]) : (failed as FeelErrorValue);
}

/** Every combination of the iterators' values, the first iterator outermost. */
function* combinations(
  names: readonly string[],
  values: (readonly FeelValue[])[],
  depth = 0,
  acc = new Map<string, FeelValue>(),
): Generator<Map<string, FeelValue>> {
  if (depth === names.length) {
    if (depth > 0) yield new Map(acc);
    return;
  }
  for (const value of values[depth]!) {
    acc.set(names[depth]!, value);
    yield* combinations(names, values, depth + 1, acc);
  }
}

/** `for`, `some`, `every`: the sources are evaluated first, in the enclosing scope (as feel-scala does). */
export function compileIterators(
  kind: 'for' | 'some' | 'every',
  names: readonly string[],
  sources: readonly Code[],
  body: Code,
  /** Whether the body reads `partial` (copying it each round is quadratic, so only then). */
  readsPartial = true,
): Code {
  return (scope, state) => {
    const values = lists(
      sources.map((source) => source(scope, state)),
      state,
    );
    if (isError(values)) return orNull(values);
    if (kind === 'for') {
      const results: FeelValue[] = [];
      for (const vars of combinations(names, values)) {
        if (readsPartial) vars.set('partial', results.slice());
        const value = body(scope.with(vars), state);
        // A list cannot hold feel-scala's error value; Zeebe writes it as null.
        results.push(isError(value) ? null : value);
      }
      return results;
    }
    const items = (function* () {
      for (const vars of combinations(names, values)) yield () => body(scope.with(vars), state);
    })();
    return orNull(kind === 'some' ? atLeastOne(items, state) : all(items, state));
  };
}

/** The scope of a filter's condition: `item`, and a context item's entries as names. */
function itemScope(scope: Scope, item: FeelValue): Scope {
  const withItem = scope.withVariable('item', item);
  return item instanceof FeelContext ? withItem.with(item.entries(), item.functions) : withItem;
}

/** feel-scala's index filter: 1-based, negative from the end, null outside. */
function byIndex(list: readonly FeelValue[], index: FeelNumber): FeelValue {
  const size = list.length;
  const i = num.compare(index, 0) > 0 ? num.subtract(index, 1) : num.add(size, index);
  if (num.compare(i, 0) < 0 || num.compare(i, size) >= 0) return null;
  return list[num.intValue(i)] ?? null;
}

function byCondition(list: readonly FeelValue[], filter: (item: FeelValue) => Val): Val {
  if (list.length === 0) return [];
  const head = list[0]!;
  const first = filter(head);
  if (isError(first)) return first;
  if (num.isNumber(first)) return byIndex(list, first);
  const kept: FeelValue[] = first === true ? [head] : [];
  for (let i = 1; i < list.length; i++) {
    const item = list[i]!;
    // Past the head, feel-scala keeps an item on true and drops it on anything else, errors included.
    if (filter(item) === true) kept.push(item);
  }
  return kept;
}

/** How feel-scala reads a filter: a literal index, a condition, or (by its value) either. */
function filterKind(node: Node): 'index' | 'condition' | 'dynamic' {
  if (node.kind === 'const' && num.isNumber(node.value)) return 'index';
  if (node.kind === 'negate' && node.operand.kind === 'const' && num.isNumber(node.operand.value)) return 'index';
  if (node.kind === 'compare' || node.kind === 'call' || node.kind === 'qualifiedCall') return 'condition';
  return 'dynamic';
}

/** `list[filter]`. */
export function compileFilter(list: Code, filterNode: Node, filter: Code): Code {
  const kind = filterKind(filterNode);
  return (scope, state) => {
    const target = list(scope, state);
    if (isError(target)) return orNull(target);
    if (!Array.isArray(target)) {
      state.warn(FeelWarningType.InvalidType, `Expected list but found '${show(target)}'`);
      return null;
    }
    const condition = (item: FeelValue) => filter(itemScope(scope, item), state);
    if (kind === 'index') {
      const index = filter(scope, state) as FeelNumber;
      return byIndex(target, index);
    }
    if (kind === 'condition') return orNull(byCondition(target, condition));
    const value = filter(scope, state);
    if (num.isNumber(value)) return byIndex(target, value);
    return orNull(byCondition(target, condition));
  };
}
