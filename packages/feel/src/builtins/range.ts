/**
 * Range built-ins (feel-scala's `RangeBuiltinFunction`): Allen's interval relations between points and
 * ranges (`before`, `after`, `meets`, `overlaps`, `during`, …). Two arguments must be points of one
 * kind, or ranges (or a range and a point) over such points.
 *
 * @module
 */
import { kindOf, order, scalaEquals } from '../eval/comparison.js';
import { FeelRange, type FeelValue } from '../values.js';
import { type BuiltinTable, builtin } from './define.js';

const POINT_KINDS = new Set([
  'number',
  'date',
  'time',
  'local time',
  'date-time',
  'local date-time',
  'years-months',
  'days-time',
]);

/** feel-scala's `isComparable` of the range built-ins: compares the start points of ranges. */
function comparable(x: FeelValue, y: FeelValue): boolean {
  if (x instanceof FeelRange) return comparable(x.start.value, y instanceof FeelRange ? y.start.value : y);
  if (y instanceof FeelRange) return comparable(x, y.start.value);
  return POINT_KINDS.has(kindOf(x)) && kindOf(x) === kindOf(y);
}

const lt = (a: FeelValue, b: FeelValue) => order(a, b) < 0;
const gt = (a: FeelValue, b: FeelValue) => order(a, b) > 0;
const eq = scalaEquals;

type Relation = (x: FeelValue, y: FeelValue) => boolean | undefined;

/** A range built-in: both signatures' names, one body deciding by the argument types. */
function relation(params: readonly [string, string][], body: Relation) {
  return params.map(([a, b]) => builtin([a, b], ([x, y]) => (comparable(x!, y!) ? body(x!, y!) : undefined)));
}

const POINTS_AND_RANGES: [string, string][] = [
  ['point1', 'point2'],
  ['point', 'range'],
  ['range', 'point'],
  ['range1', 'range2'],
];
const RANGES: [string, string][] = [['range1', 'range2']];

/** The range built-ins. */
export const rangeBuiltins: BuiltinTable = {
  before: relation(POINTS_AND_RANGES, (x, y) => {
    if (x instanceof FeelRange && y instanceof FeelRange) {
      return lt(x.end.value, y.start.value) || ((!x.end.closed || !y.start.closed) && eq(x.end.value, y.start.value));
    }
    if (y instanceof FeelRange) return lt(x, y.start.value) || (eq(x, y.start.value) && !y.start.closed);
    if (x instanceof FeelRange) return lt(x.end.value, y) || (eq(x.end.value, y) && !x.end.closed);
    return lt(x, y);
  }),
  after: relation(POINTS_AND_RANGES, (x, y) => {
    if (x instanceof FeelRange && y instanceof FeelRange) {
      return gt(x.start.value, y.end.value) || ((!x.start.closed || !y.end.closed) && eq(x.start.value, y.end.value));
    }
    if (y instanceof FeelRange) return gt(x, y.end.value) || (eq(x, y.end.value) && !y.end.closed);
    if (x instanceof FeelRange) return gt(x.start.value, y) || (eq(x.start.value, y) && !x.start.closed);
    return gt(x, y);
  }),
  meets: relation(RANGES, (x, y) =>
    x instanceof FeelRange && y instanceof FeelRange
      ? x.end.closed && y.start.closed && eq(x.end.value, y.start.value)
      : undefined,
  ),
  'met by': relation(RANGES, (x, y) =>
    x instanceof FeelRange && y instanceof FeelRange
      ? x.start.closed && y.end.closed && eq(x.start.value, y.end.value)
      : undefined,
  ),
  overlaps: relation(RANGES, (x, y) => {
    if (!(x instanceof FeelRange && y instanceof FeelRange)) return undefined;
    return (
      (gt(x.end.value, y.start.value) || (eq(x.end.value, y.start.value) && x.end.closed && y.start.closed)) &&
      (lt(x.start.value, y.end.value) || (eq(x.start.value, y.end.value) && x.start.closed && y.end.closed))
    );
  }),
  'overlaps before': relation(RANGES, (x, y) => {
    if (!(x instanceof FeelRange && y instanceof FeelRange)) return undefined;
    return (
      (lt(x.start.value, y.start.value) || (eq(x.start.value, y.start.value) && x.start.closed && !y.start.closed)) &&
      (gt(x.end.value, y.start.value) || (eq(x.end.value, y.start.value) && x.end.closed && y.start.closed)) &&
      (lt(x.end.value, y.end.value) || (eq(x.end.value, y.end.value) && (!x.end.closed || y.end.closed)))
    );
  }),
  'overlaps after': relation(RANGES, (x, y) => {
    if (!(x instanceof FeelRange && y instanceof FeelRange)) return undefined;
    return (
      (lt(y.start.value, x.start.value) || (eq(y.start.value, x.start.value) && y.start.closed && !x.start.closed)) &&
      (gt(y.end.value, x.start.value) || (eq(y.end.value, x.start.value) && y.end.closed && x.start.closed)) &&
      (lt(y.end.value, x.end.value) || (eq(y.end.value, x.end.value) && (!y.end.closed || x.end.closed)))
    );
  }),
  finishes: relation(
    [
      ['point', 'range'],
      ['range1', 'range2'],
    ],
    (x, y) => {
      if (x instanceof FeelRange && y instanceof FeelRange) {
        return (
          x.end.closed === y.end.closed &&
          eq(x.end.value, y.end.value) &&
          (gt(x.start.value, y.start.value) ||
            (eq(x.start.value, y.start.value) && (!x.start.closed || y.start.closed)))
        );
      }
      if (y instanceof FeelRange && !(x instanceof FeelRange)) return y.end.closed && eq(y.end.value, x);
      return undefined;
    },
  ),
  'finished by': relation(
    [
      ['range', 'point'],
      ['range1', 'range2'],
    ],
    (x, y) => {
      if (x instanceof FeelRange && y instanceof FeelRange) {
        return (
          x.end.closed === y.end.closed &&
          eq(x.end.value, y.end.value) &&
          (lt(x.start.value, y.start.value) ||
            (eq(x.start.value, y.start.value) && (x.start.closed || !y.start.closed)))
        );
      }
      if (x instanceof FeelRange) return x.end.closed && eq(x.end.value, y);
      return undefined;
    },
  ),
  includes: relation(
    [
      ['range', 'point'],
      ['range1', 'range2'],
    ],
    (x, y) => contains(x, y),
  ),
  // `during(x, y)` is `includes(y, x)`.
  during: relation(
    [
      ['point', 'range'],
      ['range1', 'range2'],
    ],
    (x, y) => contains(y, x),
  ),
  starts: relation(
    [
      ['point', 'range'],
      ['range1', 'range2'],
    ],
    (x, y) => {
      if (x instanceof FeelRange && y instanceof FeelRange) {
        return (
          eq(x.start.value, y.start.value) &&
          x.start.closed === y.start.closed &&
          (lt(x.end.value, y.end.value) || (eq(x.end.value, y.end.value) && (!x.end.closed || y.end.closed)))
        );
      }
      if (y instanceof FeelRange && !(x instanceof FeelRange)) return eq(y.start.value, x) && y.start.closed;
      return undefined;
    },
  ),
  'started by': relation(
    [
      ['range', 'point'],
      ['range1', 'range2'],
    ],
    (x, y) => {
      if (x instanceof FeelRange && y instanceof FeelRange) {
        return (
          eq(x.start.value, y.start.value) &&
          x.start.closed === y.start.closed &&
          (lt(y.end.value, x.end.value) || (eq(y.end.value, x.end.value) && (!y.end.closed || x.end.closed)))
        );
      }
      if (x instanceof FeelRange) return eq(x.start.value, y) && x.start.closed;
      return undefined;
    },
  ),
  coincides: relation(
    [
      ['point1', 'point2'],
      ['range1', 'range2'],
    ],
    (x, y) => {
      if (x instanceof FeelRange && y instanceof FeelRange) {
        return (
          eq(x.start.value, y.start.value) &&
          x.start.closed === y.start.closed &&
          eq(x.end.value, y.end.value) &&
          x.end.closed === y.end.closed
        );
      }
      return eq(x, y);
    },
  ),
};

/**
 * Whether range `outer` includes `inner`, a range or a point: `includes(outer, inner)`, `during(inner, outer)`;
 * undefined when `outer` is no range.
 */
function contains(outer: FeelValue, inner: FeelValue): boolean | undefined {
  if (!(outer instanceof FeelRange)) return undefined;
  if (!(inner instanceof FeelRange)) return inside(outer, inner);
  return (
    (lt(outer.start.value, inner.start.value) ||
      (eq(outer.start.value, inner.start.value) && (outer.start.closed || !inner.start.closed))) &&
    (gt(outer.end.value, inner.end.value) ||
      (eq(outer.end.value, inner.end.value) && (outer.end.closed || !inner.end.closed)))
  );
}

/** feel-scala's point-in-range test of `includes` and `during`. */
function inside(range: FeelRange, point: FeelValue): boolean {
  return (
    (lt(range.start.value, point) && gt(range.end.value, point)) ||
    (eq(range.start.value, point) && range.start.closed) ||
    (eq(range.end.value, point) && range.end.closed)
  );
}
