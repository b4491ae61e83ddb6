/**
 * Equality and order as feel-scala decides them: `=` is deep and type-aware (feel-scala's
 * `ValComparator`; values of different types are not comparable, so `1 = "1"` is null), `<` compares
 * two values of one comparable type (`Val.compare`), and some built-ins use Scala's `==` instead.
 *
 * @module
 */
import type { Decimal } from '../decimal.js';
import { compare as compareNumbers } from '../number.js';
import { type FeelContext, type FeelRange, type FeelValue, type Kind, kindOf } from '../values.js';

export { type Kind, kindOf } from '../values.js';

import { show } from './show.js';

const ORDERED: ReadonlySet<Kind> = new Set([
  'number',
  'string',
  'date',
  'local time',
  'time',
  'local date-time',
  'date-time',
  'years-months',
  'days-time',
]);

/** feel-scala's `isComparable`: an ordered kind, or a non-empty list of one ordered kind. */
export function isComparable(value: FeelValue): boolean {
  const kind = kindOf(value);
  if (ORDERED.has(kind)) return true;
  if (kind !== 'list') return false;
  const list = value as readonly FeelValue[];
  if (list.length === 0) return false;
  const head = kindOf(list[0]!);
  return ORDERED.has(head) && list.every((item) => kindOf(item) === head);
}

/** Thrown where feel-scala's `Val.compare` throws (lists are "comparable" but have no order). */
export class NotOrderedError extends Error {
  constructor(x: FeelValue, y: FeelValue) {
    super(`${show(x)} can not be compared to ${show(y)}`);
    this.name = 'IllegalArgumentException';
  }
}

/**
 * feel-scala's `Val.compare`: the order of two values of one ordered kind.
 *
 * @throws NotOrderedError for any other pair, as feel-scala throws.
 */
export function order(x: FeelValue, y: FeelValue): number {
  const kind = kindOf(x);
  if (kind !== kindOf(y)) throw new NotOrderedError(x, y);
  switch (kind) {
    case 'number':
      return compareNumbers(x as number | Decimal, y as number | Decimal);
    case 'string':
      return compareStrings(x as string, y as string);
    case 'date':
    case 'local time':
    case 'time':
    case 'local date-time':
    case 'date-time':
    case 'years-months':
    case 'days-time':
      return (x as { compare(other: unknown): number }).compare(y);
    default:
      throw new NotOrderedError(x, y);
  }
}

/** Java's `String.compareTo`: UTF-16 code units, shorter first on a common prefix. */
export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * feel-scala's `=` (`ValComparator.compare`): null equals only null; values of one kind compare deeply;
 * values of different kinds (and functions, ranges) are not comparable.
 *
 * @returns true, false, or null when not comparable.
 */
export function feelEquals(x: FeelValue, y: FeelValue): boolean | null {
  if (x === null) return y === null;
  if (y === null) return false;
  if (typeof x === 'string' || typeof x === 'boolean') return typeof y === typeof x ? x === y : null;
  const kind = kindOf(x);
  if (kind !== kindOf(y)) return null;
  switch (kind) {
    case 'number':
      return compareNumbers(x as number | Decimal, y as number | Decimal) === 0;
    case 'list': {
      const a = x as readonly FeelValue[];
      const b = y as readonly FeelValue[];
      return a.length === b.length && a.every((item, i) => feelEquals(item, b[i]!) === true);
    }
    case 'context': {
      const a = x as FeelContext;
      const b = y as FeelContext;
      const keys = a.keys();
      if (keys.length !== b.size || !keys.every((key) => b.has(key))) return false;
      return keys.every((key) => feelEquals(a.get(key)!, b.get(key)!) === true);
    }
    case 'function':
    case 'range':
      return null;
    default:
      return (x as { equals(other: unknown): boolean }).equals(y);
  }
}

/** Scala's `==` on two values (case-class equality), which `list contains` and the range built-ins use. */
export function scalaEquals(x: FeelValue, y: FeelValue): boolean {
  if (x === y) return true;
  if (x === null || y === null) return false;
  const kind = kindOf(x);
  if (kind !== kindOf(y)) return false;
  switch (kind) {
    case 'number':
      return compareNumbers(x as number | Decimal, y as number | Decimal) === 0;
    case 'string':
    case 'boolean':
    case 'function':
      return false;
    case 'list': {
      const a = x as readonly FeelValue[];
      const b = y as readonly FeelValue[];
      return a.length === b.length && a.every((item, i) => scalaEquals(item, b[i]!));
    }
    case 'context': {
      const a = x as FeelContext;
      const b = y as FeelContext;
      const keys = a.keys();
      return keys.length === b.size && keys.every((key) => b.has(key) && scalaEquals(a.get(key)!, b.get(key)!));
    }
    case 'range': {
      const a = x as FeelRange;
      const b = y as FeelRange;
      return (
        a.start.closed === b.start.closed &&
        a.end.closed === b.end.closed &&
        scalaEquals(a.start.value, b.start.value) &&
        scalaEquals(a.end.value, b.end.value)
      );
    }
    default:
      return (x as { equals(other: unknown): boolean }).equals(y);
  }
}
