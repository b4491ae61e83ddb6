/**
 * Type references: a value meets its declared type (`typeRef`) or becomes null, as DMN 1.4+ says for a
 * value that does not conform (a singleton list stands for its item, an item for a singleton list of a
 * collection type). Item definitions give names to types: aliases, collections, structures of components,
 * and allowed values.
 *
 * @module
 */
import { evaluateUnaryTests, FeelContext, type FeelUnaryTests, type FeelValue, kindOf } from '@thresher/feel';
import type { ItemDef } from './model.js';

const BUILT_IN: Readonly<Record<string, readonly string[]>> = {
  number: ['number'],
  string: ['string'],
  boolean: ['boolean'],
  date: ['date'],
  time: ['time', 'local time'],
  dateTime: ['date-time', 'local date-time'],
  'date and time': ['date-time', 'local date-time'],
  dayTimeDuration: ['days-time'],
  'days and time duration': ['days-time'],
  yearMonthDuration: ['years-months'],
  'years and months duration': ['years-months'],
  context: ['context'],
  list: ['list'],
  function: ['function'],
  range: ['range'],
};

/** A type resolved from its reference: what a value must be to conform. */
export type DmnType =
  | { kind: 'any' }
  | { kind: 'builtin'; kinds: readonly string[] }
  | { kind: 'collection'; item: DmnType; allowed: FeelUnaryTests | null }
  | { kind: 'structure'; components: ReadonlyMap<string, DmnType>; allowed: FeelUnaryTests | null }
  | { kind: 'constrained'; base: DmnType; allowed: FeelUnaryTests };

const ANY: DmnType = { kind: 'any' };

/** Resolves type names against a model's item definitions (and imported ones, by `import.name`). */
export class TypeResolver {
  private readonly cache = new Map<string, DmnType>();

  constructor(
    private readonly items: ReadonlyMap<string, ItemDef>,
    private readonly parseTests: (source: string) => FeelUnaryTests | null,
  ) {}

  resolve(typeRef: string | undefined): DmnType {
    if (typeRef === undefined) return ANY;
    const cached = this.cache.get(typeRef);
    if (cached) return cached;
    this.cache.set(typeRef, ANY); // a recursive definition resolves its inner self as Any
    const type = this.resolveUncached(typeRef);
    this.cache.set(typeRef, type);
    return type;
  }

  private resolveUncached(typeRef: string): DmnType {
    const name = typeRef.trim();
    if (name === 'Any' || name === 'any') return ANY;
    const builtin = BUILT_IN[name];
    if (builtin) return { kind: 'builtin', kinds: builtin };
    // Generic built-ins (`list<number>`, `context<a: string>`) are read as their outer kind.
    const generic = /^(list|context|range|function)\s*</.exec(name);
    if (generic) return { kind: 'builtin', kinds: BUILT_IN[generic[1]!]! };
    const item = this.items.get(name);
    return item ? this.ofItem(item) : ANY;
  }

  ofItem(item: ItemDef): DmnType {
    const allowedSource = item.allowedValues ?? item.typeConstraint;
    const allowed = allowedSource === undefined ? null : this.parseTests(allowedSource);
    let base: DmnType;
    if (item.components.length > 0) {
      base = {
        kind: 'structure',
        components: new Map(item.components.map((component) => [component.name, this.ofItem(component)])),
        allowed: null,
      };
    } else if (item.functionItem) {
      base = { kind: 'builtin', kinds: ['function'] };
    } else {
      base = this.resolve(item.typeRef);
    }
    if (item.isCollection) {
      // allowedValues on a collection item definition constrain its items; typeConstraint the list itself.
      const itemAllowed = item.allowedValues === undefined ? null : allowed;
      const itemType: DmnType = itemAllowed ? { kind: 'constrained', base, allowed: itemAllowed } : base;
      return { kind: 'collection', item: itemType, allowed: item.typeConstraint === undefined ? null : allowed };
    }
    return allowed ? { kind: 'constrained', base, allowed } : base;
  }
}

/** Whether `value` conforms to `type` as it is (no coercion). */
export function conforms(value: FeelValue, type: DmnType): boolean {
  if (value === null) return true;
  switch (type.kind) {
    case 'any':
      return true;
    case 'builtin':
      return type.kinds.includes(kindOf(value));
    case 'collection':
      return (
        Array.isArray(value) &&
        value.every((item) => conforms(item, type.item)) &&
        (type.allowed === null || passes(type.allowed, value))
      );
    case 'structure':
      if (!(value instanceof FeelContext)) return false;
      for (const [name, component] of type.components) {
        if (!value.has(name)) return false;
        if (!conforms(value.get(name) ?? null, component)) return false;
      }
      return true;
    case 'constrained':
      return conforms(value, type.base) && passes(type.allowed, value);
  }
}

function passes(tests: FeelUnaryTests, value: FeelValue): boolean {
  const result = evaluateUnaryTests(tests, value, {});
  return result.ok && result.value === true;
}

/**
 * The value as its declared type takes it: itself when it conforms, the item of a singleton list, a
 * singleton list of an item for a collection type, else null.
 */
export function coerce(value: FeelValue, type: DmnType): FeelValue {
  if (type.kind === 'any' || value === null) return value;
  if (conforms(value, type)) return value;
  if (type.kind !== 'collection' && Array.isArray(value) && value.length === 1 && conforms(value[0]!, type)) {
    return value[0]!;
  }
  if (type.kind === 'collection' && !Array.isArray(value) && conforms([value], type)) return [value];
  return null;
}
