/**
 * Every built-in function by name: feel-scala's library, Camunda's extensions and Zeebe's functions.
 *
 * @module
 */
import type { FeelFunction } from '../values.js';
import { booleanBuiltins } from './boolean.js';
import { camundaBuiltins } from './camunda.js';
import { contextBuiltins } from './context.js';
import { conversionBuiltins } from './conversion.js';
import { jsonBuiltins } from './json.js';
import { listBuiltins } from './list.js';
import { numericBuiltins } from './numeric.js';
import { rangeBuiltins } from './range.js';
import { stringBuiltins } from './string.js';
import { temporalBuiltins } from './temporal.js';

/** The built-in functions, by name; a name may have several signatures. */
export const BUILTINS: ReadonlyMap<string, readonly FeelFunction[]> = new Map(
  Object.entries({
    ...conversionBuiltins,
    ...jsonBuiltins,
    ...booleanBuiltins,
    ...stringBuiltins,
    ...listBuiltins,
    ...numericBuiltins,
    ...contextBuiltins,
    ...rangeBuiltins,
    ...temporalBuiltins,
    ...camundaBuiltins,
  }),
);

/** The names of the built-ins (the parser must know those with spaces). */
export const BUILTIN_NAMES: readonly string[] = [...BUILTINS.keys()];
