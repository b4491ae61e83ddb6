/**
 * List built-ins (feel-scala's `ListBuiltinFunctions`), Camunda's extensions included: `duplicate
 * values`, `string join` with prefix and suffix, `is empty`, `partition`. Variadic ones (`sum(1, 2)`)
 * take a list too (`sum([1, 2])`).
 *
 * @module
 */
import { feelEquals, isComparable, order, scalaEquals } from '../eval/comparison.js';
import { JavaException } from '../eval/failure.js';
import { show } from '../eval/show.js';
import * as num from '../number.js';
import { FeelErrorValue, FeelFunction, type FeelNumber, type FeelValue, type Val } from '../values.js';
import { type BuiltinTable, builtin, fail } from './define.js';

const isList = (value: FeelValue | undefined): value is readonly FeelValue[] => Array.isArray(value);

/** feel-scala's `listIndex`: 1-based, or from the end when not positive. */
function listIndex(list: readonly unknown[], index: number): number {
  return index > 0 ? index - 1 : list.length + index;
}

/** Scala's `slice(from, until)`: both clamped into the list. */
function slice<T>(list: readonly T[], from: number, until: number): T[] {
  const start = Math.max(0, from);
  const end = Math.min(list.length, until);
  return end > start ? list.slice(start, end) : [];
}

/** feel-scala's `withListOfNumbers`. */
function numbers(list: readonly FeelValue[]): FeelNumber[] | FeelErrorValue {
  const bad = list.find((item) => !num.isNumber(item));
  if (bad !== undefined) return fail(`expected number but found '${show(bad)}'`);
  return list as FeelNumber[];
}

/** Distinct values by FEEL equality, first occurrences kept in order. */
export function distinct(list: readonly FeelValue[]): FeelValue[] {
  const kept: FeelValue[] = [];
  for (const item of list) if (!kept.some((seen) => feelEquals(seen, item) === true)) kept.push(item);
  return kept;
}

function flatten(list: readonly FeelValue[]): FeelValue[] {
  return list.flatMap((item) => (isList(item) ? flatten(item) : [item]));
}

/** feel-scala's `all` fold over booleans. */
function allOf(items: readonly FeelValue[]): FeelValue {
  let acc: FeelValue = true;
  for (const item of items) {
    if (acc === false) return false;
    if (acc === true && typeof item === 'boolean') acc = item;
    else if (acc === null && item === false) acc = false;
    else acc = null;
  }
  return acc;
}

/** feel-scala's `atLeastOne` fold over booleans. */
function anyOf(items: readonly FeelValue[]): FeelValue {
  let acc: FeelValue = false;
  for (const item of items) {
    if (acc === true) return true;
    if (acc === false && typeof item === 'boolean') acc = item;
    else if (acc === null && item === true) acc = true;
    else acc = null;
  }
  return acc;
}

function extreme(list: readonly FeelValue[], keep: (c: number) => boolean): Val {
  if (list.length === 0) return null;
  if (!isComparable(list)) return fail(`${show(list)} is not comparable`);
  // Scala's min/max reduce from the left, keeping the earlier of equal items.
  return list.reduce((a, b) => (keep(order(a, b)) ? a : b));
}

function joinStrings(list: readonly FeelValue[], delimiter = '', prefix = '', suffix = ''): Val {
  if (!list.every((item) => item === null || typeof item === 'string')) {
    return fail(`expected a list of strings but found '${show(list)}'`);
  }
  return prefix + (list.filter((item) => item !== null) as string[]).join(delimiter) + suffix;
}

const sum = (values: readonly FeelNumber[]) => values.reduce<FeelNumber>((a, b) => num.add(a, b), 0);

/**
 * A variadic built-in over a list of numbers (`sum(1, 2)` or `sum([1, 2])`): `empty()` for an empty list, an error
 * for an item that is no number, else what `compute` makes of the numbers.
 */
function overNumbers(empty: () => Val, compute: (values: readonly FeelNumber[]) => Val) {
  return [
    builtin(
      ['list'],
      ([list]) => {
        if (!isList(list)) return undefined;
        if (list.length === 0) return empty();
        const values = numbers(list);
        return values instanceof FeelErrorValue ? values : compute(values);
      },
      true,
    ),
  ];
}

/** The list built-ins. */
export const listBuiltins: BuiltinTable = {
  'list contains': [
    builtin(['list', 'element'], ([list, element]) =>
      isList(list) ? list.some((item) => scalaEquals(item, element!)) : undefined,
    ),
  ],
  count: [builtin(['list'], ([list]) => (isList(list) ? list.length : undefined))],
  min: [builtin(['list'], ([list]) => (isList(list) ? extreme(list, (c) => c <= 0) : undefined), true)],
  max: [builtin(['list'], ([list]) => (isList(list) ? extreme(list, (c) => c >= 0) : undefined), true)],
  sum: overNumbers(() => null, sum),
  product: overNumbers(
    () => null,
    (values) => values.reduce<FeelNumber>((a, b) => num.multiply(a, b), 1),
  ),
  mean: overNumbers(
    () => null,
    (values) => num.divide(sum(values), values.length),
  ),
  median: overNumbers(
    () => null,
    (values) => {
      const sorted = [...values].sort(num.compare);
      const middle = Math.floor(sorted.length / 2);
      if (sorted.length % 2 === 1) return sorted[middle]!;
      return num.divide(num.add(sorted[middle - 1]!, sorted[middle]!), 2);
    },
  ),
  stddev: overNumbers(
    () => null,
    (values) => {
      const mean = num.divide(sum(values), values.length);
      const squares = values.reduce<FeelNumber>((acc, n) => num.add(acc, num.power(num.subtract(n, mean), 2)), 0);
      // feel-scala divides by (n - 1): a single number divides by zero, which throws in Java.
      if (values.length === 1) throw new JavaException('java.lang.ArithmeticException', 'Division by zero');
      return num.fromDouble(Math.sqrt(num.toDouble(num.divide(squares, values.length - 1))));
    },
  ),
  mode: overNumbers(
    () => [],
    (values) => {
      const groups: { value: FeelNumber; count: number }[] = [];
      for (const value of values) {
        const group = groups.find((g) => num.compare(g.value, value) === 0);
        if (group) group.count++;
        else groups.push({ value, count: 1 });
      }
      const most = Math.max(...groups.map((g) => g.count));
      return groups
        .filter((g) => g.count === most)
        .map((g) => g.value)
        .sort(num.compare);
    },
  ),
  all: [builtin(['list'], ([list]) => (isList(list) ? allOf(list) : undefined), true)],
  any: [builtin(['list'], ([list]) => (isList(list) ? anyOf(list) : undefined), true)],
  // feel-scala's older names of `all` and `any`.
  and: [builtin(['list'], ([list]) => (isList(list) ? allOf(list) : undefined), true)],
  or: [builtin(['list'], ([list]) => (isList(list) ? anyOf(list) : undefined), true)],
  sublist: [
    ...['start', 'start position'].map((start) =>
      builtin(['list', start], ([list, from]) => {
        if (!isList(list) || !num.isNumber(from)) return undefined;
        if (num.isZero(from)) return fail('start position must be a non-zero number');
        return slice(list, listIndex(list, num.intValue(from)), list.length);
      }),
    ),
    ...['start', 'start position'].map((start) =>
      builtin(['list', start, 'length'], ([list, from, length]) => {
        if (!isList(list) || !num.isNumber(from) || !num.isNumber(length)) return undefined;
        if (num.isZero(from)) return fail('start position must be a non-zero number');
        const index = listIndex(list, num.intValue(from));
        return slice(list, index, (index + num.intValue(length)) | 0);
      }),
    ),
  ],
  append: [
    builtin(
      ['list', 'items'],
      ([list, items]) => (isList(list) && isList(items) ? [...list, ...items] : undefined),
      true,
    ),
  ],
  concatenate: [
    builtin(
      ['lists'],
      ([lists]) => (isList(lists) ? lists.flatMap((item) => (isList(item) ? item : [item])) : undefined),
      true,
    ),
  ],
  'insert before': [
    builtin(['list', 'position', 'newItem'], ([list, position, item]) => {
      if (!isList(list) || !num.isNumber(position)) return undefined;
      if (num.isZero(position)) return fail('position must be a non-zero number');
      const index = Math.max(0, listIndex(list, num.intValue(position)));
      return [...list.slice(0, index), item!, ...list.slice(index)];
    }),
  ],
  remove: [
    builtin(['list', 'position'], ([list, position]) => {
      if (!isList(list) || !num.isNumber(position)) return undefined;
      if (num.isZero(position)) return fail('position must be a non-zero number');
      const p = num.intValue(position);
      const take = Math.max(0, listIndex(list, p));
      const drop = Math.max(0, listIndex(list, (p + 1) | 0));
      return [...list.slice(0, take), ...list.slice(drop)];
    }),
  ],
  reverse: [builtin(['list'], ([list]) => (isList(list) ? [...list].reverse() : undefined))],
  'index of': [
    builtin(['list', 'match'], ([list, match]) => {
      if (!isList(list)) return undefined;
      const positions: FeelValue[] = [];
      list.forEach((item, i) => {
        if (feelEquals(item, match!) === true) positions.push(i + 1);
      });
      return positions;
    }),
  ],
  // feel-scala names the parameter `lists`; Camunda documents `list`.
  union: ['lists', 'list'].map((param) =>
    builtin(
      [param],
      ([lists]) => (isList(lists) ? distinct(lists.flatMap((item) => (isList(item) ? item : [item]))) : undefined),
      true,
    ),
  ),
  'distinct values': [builtin(['list'], ([list]) => (isList(list) ? distinct(list) : undefined))],
  'duplicate values': [
    builtin(['list'], ([list]) => {
      if (!isList(list)) return undefined;
      return distinct(list).filter((x) => list.filter((item) => feelEquals(item, x) === true).length > 1);
    }),
  ],
  flatten: [builtin(['list'], ([list]) => (isList(list) ? flatten(list) : undefined))],
  sort: [
    builtin(['list', 'precedes'], ([list, precedes], state) => {
      if (!isList(list) || !(precedes instanceof FeelFunction)) return undefined;
      if (precedes.params.length !== 2) {
        return fail(`expect boolean function with 2 arguments, but found '${precedes.params.length}'`);
      }
      const lessThan = (x: FeelValue, y: FeelValue) => {
        const result = precedes.invoke([x, y], state);
        if (typeof result !== 'boolean') throw new SortError(`expected boolean but found '${show(result)}'`);
        return result;
      };
      try {
        return [...list].sort((x, y) => (lessThan(x, y) ? -1 : lessThan(y, x) ? 1 : 0));
      } catch (error) {
        if (error instanceof SortError) return fail(`fail to sort list by given precedes function: ${error.message}`);
        throw error;
      }
    }),
  ],
  'string join': [
    builtin(['list'], ([list]) => (isList(list) ? joinStrings(list) : undefined)),
    builtin(['list', 'delimiter'], ([list, delimiter]) => {
      if (!isList(list)) return undefined;
      if (typeof delimiter === 'string') return joinStrings(list, delimiter);
      return delimiter === null ? joinStrings(list) : undefined;
    }),
    builtin(['list', 'delimiter', 'prefix', 'suffix'], ([list, delimiter, prefix, suffix]) => {
      if (!isList(list)) return undefined;
      if (typeof prefix === 'string' && typeof suffix === 'string') {
        if (typeof delimiter === 'string') return joinStrings(list, delimiter, prefix, suffix);
        if (delimiter === null) return joinStrings(list, '', prefix, suffix);
      }
      if (prefix === null && suffix === null) {
        if (typeof delimiter === 'string') return joinStrings(list, delimiter);
        if (delimiter === null) return joinStrings(list);
      }
      return undefined;
    }),
  ],
  'is empty': [builtin(['list'], ([list]) => (isList(list) ? list.length === 0 : undefined))],
  partition: [
    builtin(['list', 'size'], ([list, size]) => {
      if (!isList(list) || !num.isNumber(size)) return undefined;
      const n = num.intValue(size);
      if (n <= 0) return fail(`'size' should be greater than zero but was '${num.numberToString(size)}'`);
      const parts: FeelValue[] = [];
      for (let i = 0; i < list.length; i += n) parts.push(list.slice(i, i + n));
      return parts;
    }),
  ],
};

/** The precedes function of `sort` returned something else than a boolean. */
class SortError extends Error {}
