import { parseArgs } from 'node:util';
import { UsageError } from './errors.js';

/**
 * The generic half of argument parsing: what a flag and a command look like, and one strict parse over
 * `node:util` `parseArgs` for every command. Each command declares its own `CommandSpec` and typed parser
 * next to its code (`commands/*.ts`); the flags several commands share live in `drive-options.ts`.
 *
 * @module
 */

/** One flag of a command. */
export interface OptionSpec {
  type: 'string' | 'boolean';
  /** May be given several times (`--var a=1 --var b=2`). */
  multiple?: boolean;
  short?: string;
  /** The value's placeholder in help text (`URL`, `k=v`). */
  placeholder?: string;
  description: string;
}

/** Flags by name, in the order help lists them. */
export type OptionSpecs = Record<string, OptionSpec>;

/** One positional argument of a command. */
export interface PositionalSpec {
  name: string;
  required: boolean;
  /** The last positional may take any number of values. */
  variadic?: boolean;
  description: string;
}

/** A command's flags and arguments; the help text is generated from it. */
export interface CommandSpec {
  name: string;
  usage: string;
  summary: string;
  positionals: PositionalSpec[];
  options: OptionSpecs;
  examples: string[];
}

/** What the generic parser returns before a command types it. */
export interface ParsedArgs {
  values: Record<string, string | boolean | string[] | undefined>;
  positionals: string[];
}

/** A parsed command line: `help` when `--help` was asked for on any command. */
export type Parsed<T> = { help: true } | ({ help: false } & T);

/** `-h`, `--help`: every command takes it, last in its help. */
export const helpOption: OptionSpec = { type: 'boolean', short: 'h', description: 'show this help' };

/** A command's spec with `-h, --help` added after its own flags. */
export function commandSpec(spec: CommandSpec): CommandSpec {
  return { ...spec, options: { ...spec.options, help: helpOption } };
}

/**
 * Parses a command's arguments strictly: an unknown flag, a flag without its value, a value on a
 * boolean flag, a string flag given twice, a missing or an extra argument all throw `UsageError`
 * naming the flag or argument, with the command's usage line.
 */
export function parseCommandArgs(spec: CommandSpec, argv: readonly string[]): ParsedArgs {
  const options: Record<string, { type: 'string' | 'boolean'; multiple?: boolean; short?: string }> = {};
  for (const [name, option] of Object.entries(spec.options)) {
    options[name] = {
      type: option.type,
      ...(option.multiple ? { multiple: true } : {}),
      ...(option.short ? { short: option.short } : {}),
    };
  }
  // strict: false so that every problem is reported here, in thresher's words, with the flag's name.
  const { tokens } = parseArgs({ args: [...argv], options, strict: false, allowPositionals: true, tokens: true });
  const values: ParsedArgs['values'] = {};
  const positionals: string[] = [];
  function fail(message: string): never {
    throw new UsageError(message, spec.usage);
  }

  for (const token of tokens) {
    if (token.kind === 'positional') {
      positionals.push(token.value);
      continue;
    }
    if (token.kind !== 'option') continue;
    const option = Object.hasOwn(spec.options, token.name) ? spec.options[token.name] : undefined;
    if (!option) fail(`unknown option ${token.rawName} for "thresher ${spec.name}"`);
    const flag = `--${token.name}`;
    if (option.type === 'boolean') {
      if (token.value !== undefined) fail(`option ${flag} takes no value (got ${JSON.stringify(token.value)})`);
      values[token.name] = true;
      continue;
    }
    const placeholder = option.placeholder ?? 'VALUE';
    if (token.value === undefined) fail(`option ${flag} needs a value: ${flag} ${placeholder}`);
    const value = token.value;
    if (!token.inlineValue && /^--?[A-Za-z]/.test(value)) {
      fail(`option ${flag} needs a value but got the option ${value}; write ${flag}=${value} if that is the value`);
    }
    if (option.multiple) {
      const list = (values[token.name] as string[] | undefined) ?? [];
      list.push(value);
      values[token.name] = list;
    } else if (values[token.name] !== undefined) {
      fail(`option ${flag} given twice`);
    } else {
      values[token.name] = value;
    }
  }
  if (values.help) return { values, positionals };
  const required = spec.positionals.filter((positional) => positional.required);
  if (positionals.length < required.length) {
    fail(`missing ${required[positionals.length]!.name}`);
  }
  const variadic = spec.positionals.at(-1)?.variadic === true;
  if (positionals.length > spec.positionals.length && !variadic) {
    fail(`unexpected argument ${JSON.stringify(positionals[spec.positionals.length])}`);
  }
  return { values, positionals };
}

/**
 * Parses a command line with `parseCommandArgs`, then types it with `build` unless `--help` was asked
 * for. `build` throws `UsageError` for what the generic parse cannot see (flags that exclude each other,
 * malformed values).
 */
export function parseWith<T>(spec: CommandSpec, argv: readonly string[], build: (args: ParsedArgs) => T): Parsed<T> {
  const args = parseCommandArgs(spec, argv);
  if (args.values.help) return { help: true };
  return { help: false, ...build(args) };
}

/** A string flag's value; undefined when absent. */
export const text = (values: ParsedArgs['values'], name: string): string | undefined =>
  values[name] as string | undefined;

/** Whether a boolean flag was given. */
export const flag = (values: ParsedArgs['values'], name: string): boolean => values[name] === true;

/** Every value of a repeatable string flag; empty when absent. */
export const list = (values: ParsedArgs['values'], name: string): string[] =>
  (values[name] as string[] | undefined) ?? [];

/** A message or signal name argument: not empty (`what` names it in the error). */
export function eventName(value: string, what: string, usage: string): string {
  if (value.trim() === '') throw new UsageError(`the ${what} name is empty`, usage);
  return value;
}
