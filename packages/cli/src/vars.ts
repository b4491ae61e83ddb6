import type { Variables } from '@thresher/checkpoint';
import { UsageError } from './errors.js';

/**
 * Reads the value of a `k=v` pair: JSON when it parses (`2`, `true`, `[1,2]`, `{"a":1}`, `"quoted"`,
 * `null`), the text itself otherwise (`A-1001`, `007`, `hello world`).
 *
 * @remarks An integer JSON cannot hold exactly (`12345678901234567890`) and a number that overflows
 * (`1e400`) stay strings: silently changing an id or a reference is worse than a string.
 */
export function parseVarValue(text: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return text;
  }
  if (
    typeof value === 'number' &&
    (!Number.isFinite(value) || (Number.isInteger(value) && !Number.isSafeInteger(value)))
  ) {
    return text;
  }
  return value;
}

/**
 * Splits one `k=v` argument at its first `=`. Throws `UsageError` naming the argument when the `=` or
 * the name is missing.
 *
 * @example parseVar('total=120') // ['total', 120]
 * @example parseVar('note=a=b') // ['note', 'a=b']
 */
export function parseVar(argument: string, flag = '--var', usage?: string): [string, unknown] {
  const cut = argument.indexOf('=');
  if (cut < 0) {
    throw new UsageError(`${flag} ${JSON.stringify(argument)}: expected NAME=VALUE (e.g. ${flag} total=120)`, usage);
  }
  const name = argument.slice(0, cut).trim();
  if (name === '') {
    throw new UsageError(`${flag} ${JSON.stringify(argument)}: the variable name before "=" is missing`, usage);
  }
  return [name, parseVarValue(argument.slice(cut + 1))];
}

/** Reads every `--var k=v`; a name given twice keeps the last value. */
export function parseVars(argumentsList: readonly string[], flag = '--var', usage?: string): Variables {
  // fromEntries defines own properties, so a name such as "__proto__" is a plain variable.
  return Object.fromEntries(argumentsList.map((argument) => parseVar(argument, flag, usage)));
}
