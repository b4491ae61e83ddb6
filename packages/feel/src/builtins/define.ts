/**
 * How built-ins are declared: feel-scala's `builtinFunction(params, partial function)`. A body
 * returning `undefined` matched none of its cases, which feel-scala reports as
 * `Illegal arguments: …` (a suppressed failure: the call is null).
 *
 * @module
 */
import { show } from '../eval/show.js';
import type { EvalState } from '../eval/state.js';
import { FeelErrorValue, FeelFunction, type FeelValue, type Val } from '../values.js';

/** A built-in's body: a value, an error value, or undefined when no case of it applies. */
export type Body = (args: FeelValue[], state: EvalState) => Val | undefined;

/** Built-ins by name; each name may have several signatures. */
export type BuiltinTable = Record<string, FeelFunction[]>;

/** A built-in with these parameter names. */
export function builtin(params: readonly string[], body: Body, varArgs = false): FeelFunction {
  return new FeelFunction(
    params,
    (args, state) => {
      const result = body(args, state as EvalState);
      return result === undefined ? illegal(args) : result;
    },
    varArgs,
  );
}

/** feel-scala's error for arguments no case accepts. */
export function illegal(args: readonly FeelValue[]): FeelErrorValue {
  return new FeelErrorValue(`Illegal arguments: ${args.map((arg) => `'${show(arg)}'`).join(', ')}`);
}

/** An error value (feel-scala's `ValError`): the call is null with a warning naming it. */
export function fail(message: string): FeelErrorValue {
  return new FeelErrorValue(message);
}
