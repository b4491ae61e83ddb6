import type { Variables } from '@thresher/checkpoint';
import { parseDuration } from '@thresher/engine';
import { flag, list, type OptionSpec, type OptionSpecs, type ParsedArgs, text } from './args.js';
import { UsageError } from './errors.js';
import { parseVars } from './vars.js';

/**
 * The flags several commands share, each declared and read once here; a command composes the groups it
 * takes into its own `CommandSpec` (`options: { …own, ...driveFlags.options }`) and typed parser
 * (`{ …own, ...driveFlags.read(values, usage) }`).
 *
 * - `storeFlags` (`--store`, `--json`): commands that read the store (`instances`, `show`, `migrate`).
 * - `driveFlags` (`--handlers`, `--store`, `--wait-timers`, `--json`): commands that drive instances
 *   without answering user tasks (`complete`, `send`, `signal`).
 * - `answerFlags`: `driveFlags` with `--yes` and `--choose`, for the commands that may answer them (`run`,
 *   `resume`, `retry`).
 * - `variablesFlag()` (`--var k=v`...): `run`, `complete`, `send`, `signal`.
 *
 * @module
 */

/** A group of flags several commands take: their specs, in help order, and how they are read. */
export interface OptionGroup<T> {
  readonly options: OptionSpecs;
  read(values: ParsedArgs['values'], usage: string): T;
}

/** `--otel`: `run` and `worker` export traces and metrics over OTLP (`otel.ts`). */
export const otelOption: OptionSpec = {
  type: 'boolean',
  description:
    'export traces and metrics with OpenTelemetry over OTLP/HTTP, as the standard OTEL_* variables say (OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_SERVICE_NAME, …)',
};

/** `--json`: every command but `help` takes it, alone (`inspect`, `test`) or in the groups below. */
export const jsonOption: OptionSpec = {
  type: 'boolean',
  description: 'print one JSON document on stdout (the outcome) and no progress',
};
const store: OptionSpec = {
  type: 'string',
  placeholder: 'URL',
  description:
    'sqlite:PATH, PATH.db, postgres://…[?schema=NAME] or memory: (default ./.thresher/thresher.db, or $THRESHER_STORE)',
};
const handlers: OptionSpec = {
  type: 'string',
  placeholder: 'MODULE',
  description: 'an ES module whose exports (default object or named functions) handle service tasks by task type',
};
const yes: OptionSpec = {
  type: 'boolean',
  short: 'y',
  description:
    'approve the briefing without asking, and complete every user task no --choose answers with no extra variables',
};
const choose: OptionSpec = {
  type: 'string',
  multiple: true,
  placeholder: 'ELEMENT=OPTION',
  description:
    'answer user task ELEMENT up front: the option with that id, else the option numbered so (a value naming no option exits 2); with or without a terminal',
};
const waitTimers: OptionSpec = {
  type: 'string',
  placeholder: 'DURATION',
  description:
    'wait in this process for a BPMN timer due within DURATION (ISO 8601: PT30S, PT1M, PT1H, P1D; default PT1M); a later one parks (exit 3)',
};

/** How long `--wait-timers` waits by default for a BPMN timer before the instance parks instead: PT1M. */
export const DEFAULT_WAIT_TIMERS = 'PT1M';

/**
 * Reads a duration flag (ISO 8601, read as BPMN timers read theirs) into milliseconds; a malformed
 * duration is a `UsageError` naming the flag and saying why.
 */
/** `--port` as a server command reads it (`ui`, `serve`): 0 to 65535, else a `UsageError` naming the value. */
export function parsePortFlag(value: string, usage: string): number {
  if (!/^\d{1,5}$/.test(value) || Number(value) > 65535) {
    throw new UsageError(`option --port: expected a port from 0 to 65535, got ${JSON.stringify(value)}`, usage);
  }
  return Number(value);
}

export function parseDurationFlag(name: string, value: string, usage: string): number {
  try {
    return parseDuration(value);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new UsageError(`option ${name}: ${reason}`, usage);
  }
}

/** Reads `--wait-timers` into milliseconds: how long a command waits for a BPMN timer; `PT1M` when absent. */
export function parseWaitTimers(value: string | undefined, usage: string): number {
  return parseDurationFlag('--wait-timers', value ?? DEFAULT_WAIT_TIMERS, usage);
}

/** `--store` and `--json`, read. */
export interface StoreArgs {
  /** `--store` as given; undefined: `$THRESHER_STORE` or the default file. */
  store: string | undefined;
  json: boolean;
}

/** The flags of a command that drives instances, read. */
export interface DriveArgs extends StoreArgs {
  /** `--handlers` as given. */
  handlers: string | undefined;
  /** `--wait-timers`, read: how long (ms) the command waits for a BPMN timer before the instance parks. */
  waitTimers: number;
}

/** The flags of a command that may answer user tasks (`--yes`, `--choose`) while it drives, read. */
export interface AnswerArgs extends DriveArgs {
  yes: boolean;
  /** `--choose ELEMENT=OPTION`, read: the option value by element id. */
  choose: ReadonlyMap<string, string>;
}

/**
 * Reads `--choose ELEMENT=OPTION`... into a map by element id. A value without `=`, with an empty side, or
 * a second value for one element is a `UsageError` naming it. Whether OPTION names an option is known only
 * once the task is asked (its options may depend on the instance), so the drive checks that.
 */
export function parseChoose(values: readonly string[], usage: string): ReadonlyMap<string, string> {
  const answers = new Map<string, string>();
  for (const value of values) {
    const at = value.indexOf('=');
    const element = at < 0 ? '' : value.slice(0, at).trim();
    const option = at < 0 ? '' : value.slice(at + 1).trim();
    if (element === '' || option === '') {
      throw new UsageError(
        `option --choose ${JSON.stringify(value)}: expected ELEMENT=OPTION (e.g. approve=yes or approve=1)`,
        usage,
      );
    }
    if (answers.has(element)) {
      throw new UsageError(`option --choose answers ${element} twice (${answers.get(element)} and ${option})`, usage);
    }
    answers.set(element, option);
  }
  return answers;
}

/** `--store URL --json`: commands that read the store. */
export const storeFlags: OptionGroup<StoreArgs> = {
  options: { store, json: jsonOption },
  read: (values) => ({ store: text(values, 'store'), json: flag(values, 'json') }),
};

/** `--handlers MODULE --store URL --wait-timers DURATION --json`: commands that drive instances. */
export const driveFlags: OptionGroup<DriveArgs> = {
  options: { handlers, store, 'wait-timers': waitTimers, json: jsonOption },
  read: (values, usage) => ({
    handlers: text(values, 'handlers'),
    ...storeFlags.read(values, usage),
    waitTimers: parseWaitTimers(text(values, 'wait-timers'), usage),
  }),
};

/** `driveFlags` with `--yes` and `--choose`: commands that may answer the user tasks they drive to. */
export const answerFlags: OptionGroup<AnswerArgs> = {
  options: { handlers, store, yes, choose, 'wait-timers': waitTimers, json: jsonOption },
  read: (values, usage) => ({
    ...driveFlags.read(values, usage),
    yes: flag(values, 'yes'),
    choose: parseChoose(list(values, 'choose'), usage),
  }),
};

const VAR_DESCRIPTION = 'a variable; v is JSON when it parses (2, true, [1,2]), else a string';

/** `--var k=v`..., read into `variables`; `description` says what the variables go to. */
export function variablesFlag(description = VAR_DESCRIPTION): OptionGroup<{ variables: Variables }> {
  return {
    options: { var: { type: 'string', multiple: true, placeholder: 'k=v', description } },
    read: (values, usage) => ({ variables: parseVars(list(values, 'var'), '--var', usage) }),
  };
}
