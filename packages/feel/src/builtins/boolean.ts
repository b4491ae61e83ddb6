/**
 * Boolean built-ins (feel-scala's `BooleanBuiltinFunctions`): `not`, and Camunda's `is defined`,
 * `get or else`, `assert`.
 *
 * @module
 */
import { type BuiltinTable, builtin, fail } from './define.js';

/** The boolean built-ins. */
export const booleanBuiltins: BuiltinTable = {
  not: [builtin(['negand'], ([negand]) => (typeof negand === 'boolean' ? !negand : null))],
  'is defined': [builtin(['value'], ([value]) => value !== null)],
  'get or else': [builtin(['value', 'default'], ([value, fallback]) => (value === null ? fallback! : value!))],
  assert: [
    builtin(['value', 'condition'], ([value, condition]) =>
      condition === true ? value! : fail('The condition is not fulfilled'),
    ),
    builtin(['value', 'condition', 'cause'], ([value, condition, cause]) => {
      if (condition === true) return value!;
      return typeof cause === 'string' ? fail(cause) : undefined;
    }),
  ],
};
