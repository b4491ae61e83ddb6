/**
 * FEEL values: the union every evaluation produces, and the classes of the non-primitive ones
 * (context, range, function). Temporal values live in `temporal/`, decimals in `decimal.ts`.
 *
 * @module
 */
import { Decimal } from './decimal.js';
import { FeelDate } from './temporal/date.js';
import { FeelDateTime, FeelLocalDateTime } from './temporal/date-time.js';
import { FeelDaysTimeDuration, FeelYearsMonthsDuration } from './temporal/duration.js';
import { FeelLocalTime, FeelTime } from './temporal/time.js';

/** A FEEL number: a safe integer as a JS number (the fast path), any other value as a {@link Decimal}. */
export type FeelNumber = number | Decimal;

/** Any FEEL value. Lists are arrays; `null` is FEEL's null. */
export type FeelValue =
  | null
  | boolean
  | string
  | FeelNumber
  | readonly FeelValue[]
  | FeelContext
  | FeelRange
  | FeelFunction
  | FeelDate
  | FeelLocalTime
  | FeelTime
  | FeelLocalDateTime
  | FeelDateTime
  | FeelDaysTimeDuration
  | FeelYearsMonthsDuration;

/**
 * An evaluation's internal error value (feel-scala's `ValError` / `ValFatalError`): propagates through
 * the constructs that propagate it, and becomes a failure when it reaches the top.
 *
 * @internal
 */
export class FeelErrorValue {
  constructor(
    readonly message: string,
    /** feel-scala's `ValFatalError`: `?` read outside a unary test. */
    readonly fatal = false,
  ) {}

  /** feel-scala's `toString`, which a list or context embeds when it turns a fatal error into an error. */
  toString(): string {
    return this.fatal ? `fatal error("${this.message}")` : `error("${this.message}")`;
  }
}

/** What a closure returns: a value, or an error travelling up. @internal */
export type Val = FeelValue | FeelErrorValue;

/** Reads plain JS data into FEEL values on demand (see `convert.ts`); set there to avoid a cycle. @internal */
export const lazyConversion: { toFeel: (value: unknown, path: string) => FeelValue } = {
  toFeel: () => {
    throw new Error('thresher: FEEL conversion not initialised');
  },
};

/**
 * A FEEL context: ordered entries. A context literal's function entries live apart from its other
 * entries, as in feel-scala (they can be called, `{f: function(x) x}.f(1)`, but are not entries).
 */
export class FeelContext {
  private constructor(
    private readonly map: ReadonlyMap<string, FeelValue> | null,
    private readonly raw: Readonly<Record<string, unknown>> | null,
    private readonly rawPath: string,
    /** Functions a context literal defines, by name. */
    readonly functions: ReadonlyMap<string, FeelFunction> | null,
  ) {}

  /** A context of the given entries (in order). */
  static of(entries: ReadonlyMap<string, FeelValue>, functions: ReadonlyMap<string, FeelFunction> | null = null) {
    return new FeelContext(entries, null, '', functions);
  }

  /** A context over a plain object, converting entries as they are read. @internal */
  static ofObject(raw: Readonly<Record<string, unknown>>, path: string): FeelContext {
    return new FeelContext(null, raw, path, null);
  }

  /** An empty context. */
  static empty(): FeelContext {
    return EMPTY;
  }

  /** The entry's value, or undefined when there is no such key. */
  get(key: string): FeelValue | undefined {
    if (this.map) return this.map.get(key);
    const raw = this.raw!;
    if (!Object.hasOwn(raw, key)) return undefined;
    const value = raw[key];
    return value === undefined ? undefined : lazyConversion.toFeel(value, `${this.rawPath}.${key}`);
  }

  has(key: string): boolean {
    if (this.map) return this.map.has(key);
    return Object.hasOwn(this.raw!, key) && this.raw![key] !== undefined;
  }

  /** The keys, in order. */
  keys(): string[] {
    if (this.map) return [...this.map.keys()];
    return Object.keys(this.raw!).filter((key) => this.raw![key] !== undefined);
  }

  get size(): number {
    return this.map ? this.map.size : this.keys().length;
  }

  /** The entries, in order, as a map. */
  entries(): ReadonlyMap<string, FeelValue> {
    if (this.map) return this.map;
    const map = new Map<string, FeelValue>();
    for (const key of this.keys()) map.set(key, this.get(key)!);
    return map;
  }

  /** A copy with one entry set (appended, or replaced in place). */
  with(key: string, value: FeelValue): FeelContext {
    const map = new Map(this.entries());
    map.set(key, value);
    return FeelContext.of(map);
  }
}

const EMPTY = FeelContext.of(new Map());

/** One end of a range. */
export interface RangeBoundary {
  readonly value: FeelValue;
  readonly closed: boolean;
}

/** A FEEL range: `[1..10)`, `(date("2024-01-01")..date("2024-12-31")]`. */
export class FeelRange {
  constructor(
    readonly start: RangeBoundary,
    readonly end: RangeBoundary,
  ) {}
}

/**
 * The state a function needs while it runs: where warnings go and the injected sources.
 *
 * @internal
 */
export interface CallState {
  /** Suppressed failures, in order. */
  readonly warnings: { type: string; message: string }[];
  /** The clock, as epoch milliseconds. */
  readonly now: () => number;
  /** The zone of `now()` and `today()`: null for UTC as an offset. */
  readonly zone: string | null;
  readonly unsafeRandom: () => number;
  readonly unsafeUuid: () => string;
}

/** A function's body: the argument values (already checked for errors), the state; a value or an error. @internal */
export type Invoke = (args: FeelValue[], state: CallState) => Val;

/** A FEEL function: a built-in, or a user's `function(a, b) a + b`. */
export class FeelFunction {
  constructor(
    /** Parameter names, in order. */
    readonly params: readonly string[],
    /** @internal */
    readonly invoke: Invoke,
    /** Whether the last parameter collects the remaining positional arguments (`sum(1, 2, 3)`). */
    readonly varArgs = false,
  ) {}

  /** feel-scala's form: `function(a, b)`. */
  toString(): string {
    return `function(${this.params.join(', ')})`;
  }
}

/** feel-scala's value classes: two values of one kind are comparable. */
export type Kind =
  | 'null'
  | 'number'
  | 'boolean'
  | 'string'
  | 'date'
  | 'local time'
  | 'time'
  | 'local date-time'
  | 'date-time'
  | 'years-months'
  | 'days-time'
  | 'list'
  | 'context'
  | 'function'
  | 'range';

/** The feel-scala class of a value. */
export function kindOf(value: FeelValue): Kind {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'number':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'string':
      return 'string';
  }
  if (value instanceof Decimal) return 'number';
  if (Array.isArray(value)) return 'list';
  if (value instanceof FeelContext) return 'context';
  if (value instanceof FeelDate) return 'date';
  if (value instanceof FeelLocalTime) return 'local time';
  if (value instanceof FeelTime) return 'time';
  if (value instanceof FeelLocalDateTime) return 'local date-time';
  if (value instanceof FeelDateTime) return 'date-time';
  if (value instanceof FeelYearsMonthsDuration) return 'years-months';
  if (value instanceof FeelDaysTimeDuration) return 'days-time';
  if (value instanceof FeelFunction) return 'function';
  if (value instanceof FeelRange) return 'range';
  throw new Error(`thresher: not a FEEL value: ${String(value)}`);
}

/** The FEEL type name of each kind, as error messages and `instance of` name it. */
const TYPE_NAMES: Readonly<Record<Kind, string>> = {
  null: 'null',
  number: 'number',
  boolean: 'boolean',
  string: 'string',
  date: 'date',
  'local time': 'time',
  time: 'time',
  'local date-time': 'date and time',
  'date-time': 'date and time',
  'years-months': 'years and months duration',
  'days-time': 'days and time duration',
  list: 'list',
  context: 'context',
  function: 'function',
  range: 'range',
};

/** FEEL's name of a value's type, as `instance of` and messages use it. */
export function typeName(value: FeelValue): string {
  return TYPE_NAMES[kindOf(value)];
}
