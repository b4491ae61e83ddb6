/**
 * How feel-scala writes a value (its `Val.toString`): in failure messages, and in `string(…)` of a
 * list or context (`string(["a", 1])` is `["a", 1]`, strings quoted inside).
 *
 * @module
 */
import { numberToString } from '../number.js';
import { FeelContext, FeelErrorValue, FeelFunction, FeelRange, type Val } from '../values.js';

/** feel-scala's `toString` of a value (strings in quotes). */
export function show(value: Val | undefined): string {
  if (value === null || value === undefined) return 'null';
  switch (typeof value) {
    case 'string':
      return `"${value}"`;
    case 'boolean':
      return String(value);
    case 'number':
      return String(value);
  }
  if (Array.isArray(value)) return `[${value.map(show).join(', ')}]`;
  if (value instanceof FeelContext) {
    return `{${[...value.entries()].map(([key, item]) => `${key}:${show(item)}`).join(', ')}}`;
  }
  if (value instanceof FeelRange) {
    return `${value.start.closed ? '[' : '('}${show(value.start.value)}..${show(value.end.value)}${value.end.closed ? ']' : ')'}`;
  }
  if (value instanceof FeelFunction || value instanceof FeelErrorValue) return value.toString();
  if (typeof value === 'object' && 'unscaled' in value) return numberToString(value);
  return (value as { toString(): string }).toString();
}

/** `string(x)` of feel-scala for anything but a string: lists and contexts recurse, the rest is {@link show}. */
export function toFeelString(value: Val): string {
  if (Array.isArray(value)) return `[${value.map(toFeelString).join(', ')}]`;
  if (value instanceof FeelContext) {
    return `{${[...value.entries()].map(([key, item]) => `${key}:${toFeelString(item)}`).join(', ')}}`;
  }
  return show(value);
}
