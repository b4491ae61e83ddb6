import { parseArgs } from 'node:util';
import type { Variables } from '@thresher/checkpoint';
import { parseDuration } from '@thresher/engine';
import { UsageError } from './errors.js';
import { parseVars } from './vars.js';

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
  options: Record<string, OptionSpec>;
  examples: string[];
}

/** What the generic parser returns before a command types it. */
export interface ParsedArgs {
  values: Record<string, string | boolean | string[] | undefined>;
  positionals: string[];
}

const json: OptionSpec = {
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
  description: 'complete every user task with no extra variables',
};
const vars: OptionSpec = {
  type: 'string',
  multiple: true,
  placeholder: 'k=v',
  description: 'a variable; v is JSON when it parses (2, true, [1,2]), else a string',
};
const help: OptionSpec = { type: 'boolean', short: 'h', description: 'show this help' };
const waitTimers: OptionSpec = {
  type: 'string',
  placeholder: 'DURATION',
  description:
    'wait in this process for a BPMN timer due within DURATION (ISO 8601: PT30S, PT1M, PT1H, P1D; default PT1M); a later one parks (exit 3)',
};

/** How long `--wait-timers` waits by default for a BPMN timer before the instance parks instead: PT1M. */
export const DEFAULT_WAIT_TIMERS = 'PT1M';

/** Every command `thresher` knows, in the order help lists them. */
export const COMMANDS = {
  run: {
    name: 'run',
    usage:
      'thresher run FILE.bpmn [--process ID] [--var k=v]... [--business-key KEY] [--handlers MODULE] [--store URL] [--yes] [--wait-timers DURATION] [--json]',
    summary: 'deploy a BPMN file, start an instance and drive it until it ends or parks',
    positionals: [{ name: 'FILE.bpmn', required: true, description: 'the BPMN 2.0 file to deploy and start' }],
    options: {
      process: { type: 'string', placeholder: 'ID', description: 'the process to start when the file has several' },
      var: vars,
      'business-key': { type: 'string', placeholder: 'KEY', description: 'the business key of the new instance' },
      handlers,
      store,
      yes,
      'wait-timers': waitTimers,
      json,
      help,
    },
    examples: [
      'thresher run order.bpmn --handlers handlers.mjs --var total=120 --var express=true',
      `echo '{"approved":true}' | thresher run order.bpmn --handlers handlers.mjs --json`,
      'thresher run order.bpmn --handlers handlers.mjs --yes --store memory:',
    ],
  },
  inspect: {
    name: 'inspect',
    usage: 'thresher inspect FILE.bpmn [--json]',
    summary: 'compile a BPMN file and list its processes and elements, or every problem found',
    positionals: [{ name: 'FILE.bpmn', required: true, description: 'the BPMN 2.0 file to compile' }],
    options: { json, help },
    examples: ['thresher inspect order.bpmn', 'thresher inspect order.bpmn --json'],
  },
  instances: {
    name: 'instances',
    usage: 'thresher instances [--roots | --children] [--status S] [--store URL] [--json]',
    summary: 'list the instances in the store',
    positionals: [],
    options: {
      roots: { type: 'boolean', description: 'only instances with no parent' },
      children: { type: 'boolean', description: 'only called children' },
      status: { type: 'string', placeholder: 'S', description: 'running, completed or terminated' },
      store,
      json,
      help,
    },
    examples: ['thresher instances', 'thresher instances --status running --json'],
  },
  show: {
    name: 'show',
    usage: 'thresher show ID [--history] [--store URL] [--json]',
    summary: 'show one instance: status, variables, scopes, active elements, incidents and open user tasks',
    positionals: [{ name: 'ID', required: true, description: 'the instance id' }],
    options: {
      history: { type: 'boolean', description: 'also list the completed elements in order' },
      store,
      json,
      help,
    },
    examples: ['thresher show 3f0c…', 'thresher show 3f0c… --history --json'],
  },
  complete: {
    name: 'complete',
    usage:
      'thresher complete ID TASK [--var k=v]... [--handlers MODULE] [--store URL] [--wait-timers DURATION] [--json]',
    summary: 'complete an open user task, then drive the instance until it ends or parks again',
    positionals: [
      { name: 'ID', required: true, description: 'the instance id' },
      {
        name: 'TASK',
        required: true,
        description: 'the user task: its id (ID/u7 or u7) or its element id (approve-order)',
      },
    ],
    options: { var: vars, handlers, store, 'wait-timers': waitTimers, json, help },
    examples: ['thresher complete 3f0c… approve-order --var approved=true --handlers handlers.mjs'],
  },
  resume: {
    name: 'resume',
    usage: 'thresher resume ID | --all [--handlers MODULE] [--store URL] [--yes] [--wait-timers DURATION] [--json]',
    summary: 'restore instances from the store (after a crash) and drive each until it ends or parks',
    positionals: [{ name: 'ID', required: false, description: 'the instance id (or --all)' }],
    options: {
      all: { type: 'boolean', description: 'every running instance in the store' },
      handlers,
      store,
      yes,
      'wait-timers': waitTimers,
      json,
      help,
    },
    examples: [
      'thresher resume --all --handlers handlers.mjs',
      'thresher resume 3f0c… --handlers handlers.mjs --yes',
      'thresher resume 3f0c… --wait-timers PT2H',
    ],
  },
  retry: {
    name: 'retry',
    usage: 'thresher retry ID [INCIDENT] [--handlers MODULE] [--store URL] [--yes] [--wait-timers DURATION] [--json]',
    summary: 'resolve an instance’s incidents (or one) and drive it again; failed jobs get fresh retries',
    positionals: [
      { name: 'ID', required: true, description: 'the instance id' },
      {
        name: 'INCIDENT',
        required: false,
        description: 'one incident: its id (ID/i4 or i4) or its element id; default every incident',
      },
    ],
    options: { handlers, store, yes, 'wait-timers': waitTimers, json, help },
    examples: ['thresher retry 3f0c… --handlers handlers.mjs'],
  },
  send: {
    name: 'send',
    usage:
      'thresher send MESSAGE [--key K] [--var k=v]... [--message-id ID] [--ttl DURATION] [--handlers MODULE] [--store URL] [--wait-timers DURATION] [--json]',
    summary: 'deliver a message to the stored instance waiting for it, then drive that instance until it ends or parks',
    positionals: [{ name: 'MESSAGE', required: true, description: 'the message name (bpmn:message name)' }],
    options: {
      key: {
        type: 'string',
        placeholder: 'K',
        description: 'the correlation key the waiting subscription evaluated to (zeebe:subscription correlationKey)',
      },
      var: { ...vars, description: 'a variable the message carries; v is JSON when it parses, else a string' },
      'message-id': {
        type: 'string',
        placeholder: 'ID',
        description: 'the message id: the same id delivered to the same instance again changes nothing',
      },
      ttl: {
        type: 'string',
        placeholder: 'DURATION',
        description:
          'when no instance waits, keep the message this long (ISO 8601, e.g. PT1H) for the first one that does; default: not kept',
      },
      handlers,
      store,
      'wait-timers': waitTimers,
      json,
      help,
    },
    examples: [
      'thresher send payment-received --key A-1001 --var amount=120 --handlers handlers.mjs',
      'thresher send shipped --key A-1001 --message-id ship-77 --json',
      'thresher send payment-received --key A-1002 --var amount=80 --ttl PT1H',
    ],
  },
  signal: {
    name: 'signal',
    usage: 'thresher signal NAME [--var k=v]... [--handlers MODULE] [--store URL] [--wait-timers DURATION] [--json]',
    summary: 'broadcast a signal to every stored instance waiting for it, then drive each until it ends or parks',
    positionals: [{ name: 'NAME', required: true, description: 'the signal name (bpmn:signal name)' }],
    options: {
      var: { ...vars, description: 'a variable the signal carries; v is JSON when it parses, else a string' },
      handlers,
      store,
      'wait-timers': waitTimers,
      json,
      help,
    },
    examples: ['thresher signal open --handlers handlers.mjs', 'thresher signal recall --var reason=audit --json'],
  },
  test: {
    name: 'test',
    usage: 'thresher test [PATH...] [--kill every|none|N,M|random:N] [--seed S] [--json]',
    summary: 'run kill-and-resume fixtures: uninterrupted, then killed at every persist point, and compare the ends',
    positionals: [
      {
        name: 'PATH...',
        required: false,
        variadic: true,
        description: 'fixture files or folders holding *.fixture.yaml (default ./fixtures)',
      },
    ],
    options: {
      kill: {
        type: 'string',
        placeholder: 'PLAN',
        description:
          'every persist point (default: what each fixture says), none, given points (3,7), or random:N SIGKILLs of a child process on SQLite',
      },
      seed: {
        type: 'string',
        placeholder: 'S',
        description: 'the seed of random:N kill instants (printed when omitted)',
      },
      json,
      help,
    },
    examples: ['thresher test', 'thresher test fixtures/order --kill 1,2,3', 'thresher test --kill random:5 --seed 42'],
  },
  migrate: {
    name: 'migrate',
    usage: 'thresher migrate [--dry-run] [--store URL] [--json]',
    summary: 'rewrite every stored checkpoint document to the schema this build writes, and report counts',
    positionals: [],
    options: {
      'dry-run': { type: 'boolean', description: 'count what would be migrated, change nothing' },
      store,
      json,
      help,
    },
    examples: ['thresher migrate --dry-run', 'thresher migrate --store sqlite:app.db --json'],
  },
  help: {
    name: 'help',
    usage: 'thresher help [COMMAND]',
    summary: 'show help for thresher or one command',
    positionals: [{ name: 'COMMAND', required: false, description: 'the command to describe' }],
    options: { help },
    examples: ['thresher help run'],
  },
} satisfies Record<string, CommandSpec>;

/** The name of a command `thresher` knows. */
export type CommandName = keyof typeof COMMANDS;

/** Whether `name` is a command (own keys only: `toString` is not a command). */
export function isCommandName(name: string): name is CommandName {
  return Object.hasOwn(COMMANDS, name);
}

/** The `--store`, `--handlers` and `--json` every engine-backed command shares. */
interface StoreArgs {
  store: string | undefined;
  json: boolean;
}

/** `--wait-timers`, read: how long (ms) a command waits for a BPMN timer before the instance parks. */
interface DriveArgs {
  waitTimers: number;
}

/** `thresher run`, parsed; `variables` already read from `--var`. */
export interface RunArgs extends StoreArgs, DriveArgs {
  file: string;
  process: string | undefined;
  variables: Variables;
  businessKey: string | undefined;
  handlers: string | undefined;
  yes: boolean;
}

/** `thresher inspect`, parsed. */
export interface InspectArgs {
  file: string;
  json: boolean;
}

/** `thresher instances`, parsed. */
export interface InstancesArgs extends StoreArgs {
  roots: boolean;
  children: boolean;
  status: 'running' | 'completed' | 'terminated' | undefined;
}

/** `thresher show`, parsed. */
export interface ShowArgs extends StoreArgs {
  id: string;
  history: boolean;
}

/** `thresher complete`, parsed. */
export interface CompleteArgs extends StoreArgs, DriveArgs {
  id: string;
  task: string;
  variables: Variables;
  handlers: string | undefined;
}

/** `thresher resume`, parsed. */
export interface ResumeArgs extends StoreArgs, DriveArgs {
  /** undefined with `--all`. */
  id: string | undefined;
  handlers: string | undefined;
  yes: boolean;
}

/** `thresher retry`, parsed. */
export interface RetryArgs extends StoreArgs, DriveArgs {
  id: string;
  incident: string | undefined;
  handlers: string | undefined;
  yes: boolean;
}

/** `thresher send`, parsed. */
export interface SendArgs extends StoreArgs, DriveArgs {
  message: string;
  /** `--key`; undefined matches subscriptions without a correlation key. */
  key: string | undefined;
  variables: Variables;
  messageId: string | undefined;
  /** `--ttl`: how long a message nothing takes is buffered, as given and in ms; undefined: not buffered. */
  ttl: { text: string; ms: number } | undefined;
  handlers: string | undefined;
}

/** `thresher signal`, parsed. */
export interface SignalArgs extends StoreArgs, DriveArgs {
  signal: string;
  variables: Variables;
  handlers: string | undefined;
}

/** `thresher test`, parsed; `kill` undefined keeps each fixture's own plan. */
export interface TestArgs {
  paths: string[];
  kill: KillOption | undefined;
  seed: number | undefined;
  json: boolean;
}

/** A `--kill` plan. */
export type KillOption =
  | { kind: 'none' }
  | { kind: 'every' }
  | { kind: 'points'; points: number[] }
  | { kind: 'random'; count: number };

/** `thresher migrate`, parsed. */
export interface MigrateArgs extends StoreArgs {
  dryRun: boolean;
}

/** A parsed command line: `help` when `--help` was asked for on any command. */
export type Parsed<T> = { help: true } | ({ help: false } & T);

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

const text = (values: ParsedArgs['values'], name: string): string | undefined => values[name] as string | undefined;
const flag = (values: ParsedArgs['values'], name: string): boolean => values[name] === true;
const list = (values: ParsedArgs['values'], name: string): string[] => (values[name] as string[] | undefined) ?? [];

/**
 * Reads `--wait-timers` (an ISO 8601 duration, read as BPMN timers read theirs) into milliseconds;
 * `PT1M` when absent. A malformed duration is a `UsageError` saying why.
 */
export function parseWaitTimers(value: string | undefined, usage: string): number {
  try {
    return parseDuration(value ?? DEFAULT_WAIT_TIMERS);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new UsageError(`option --wait-timers: ${reason}`, usage);
  }
}

/** Reads `--ttl` (an ISO 8601 duration) into milliseconds; a malformed duration is a `UsageError` saying why. */
export function parseTtl(value: string | undefined, usage: string): { text: string; ms: number } | undefined {
  if (value === undefined) return undefined;
  try {
    return { text: value, ms: parseDuration(value) };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new UsageError(`option --ttl: ${reason}`, usage);
  }
}

function parse<T>(spec: CommandSpec, argv: readonly string[], build: (args: ParsedArgs) => T): Parsed<T> {
  const args = parseCommandArgs(spec, argv);
  if (args.values.help) return { help: true };
  return { help: false, ...build(args) };
}

/** Parses `thresher run` arguments (after the command name). */
export function parseRunArgs(argv: readonly string[]): Parsed<RunArgs> {
  const spec = COMMANDS.run;
  return parse(spec, argv, ({ values, positionals }) => ({
    file: positionals[0]!,
    process: text(values, 'process'),
    variables: parseVars(list(values, 'var'), '--var', spec.usage),
    businessKey: text(values, 'business-key'),
    handlers: text(values, 'handlers'),
    store: text(values, 'store'),
    yes: flag(values, 'yes'),
    waitTimers: parseWaitTimers(text(values, 'wait-timers'), spec.usage),
    json: flag(values, 'json'),
  }));
}

/** Parses `thresher inspect` arguments. */
export function parseInspectArgs(argv: readonly string[]): Parsed<InspectArgs> {
  return parse(COMMANDS.inspect, argv, ({ values, positionals }) => ({
    file: positionals[0]!,
    json: flag(values, 'json'),
  }));
}

const STATUSES = ['running', 'completed', 'terminated'] as const;

/** Parses `thresher instances` arguments; `--roots` with `--children` and an unknown `--status` are usage errors. */
export function parseInstancesArgs(argv: readonly string[]): Parsed<InstancesArgs> {
  const spec = COMMANDS.instances;
  return parse(spec, argv, ({ values }) => {
    if (flag(values, 'roots') && flag(values, 'children')) {
      throw new UsageError('options --roots and --children exclude each other', spec.usage);
    }
    const status = text(values, 'status');
    if (status !== undefined && !(STATUSES as readonly string[]).includes(status)) {
      throw new UsageError(
        `option --status ${JSON.stringify(status)}: expected one of ${STATUSES.join(', ')}`,
        spec.usage,
      );
    }
    return {
      roots: flag(values, 'roots'),
      children: flag(values, 'children'),
      status: status as InstancesArgs['status'],
      store: text(values, 'store'),
      json: flag(values, 'json'),
    };
  });
}

/** Parses a `--kill` value: `every`, `none`, `3,7` or `random:5`. */
export function parseKill(value: string, usage: string): KillOption {
  if (value === 'every' || value === 'none') return { kind: value };
  const random = /^random:(\d+)$/.exec(value);
  if (random) {
    const count = Number(random[1]);
    if (count < 1) throw new UsageError('option --kill random:N needs N of at least 1', usage);
    return { kind: 'random', count };
  }
  if (/^\d+(,\d+)*$/.test(value)) {
    const points = value.split(',').map(Number);
    if (points.some((point) => point < 1)) throw new UsageError('option --kill: persist points start at 1', usage);
    return { kind: 'points', points: [...new Set(points)].sort((a, b) => a - b) };
  }
  throw new UsageError(`option --kill ${JSON.stringify(value)}: expected every, none, N,M or random:N`, usage);
}

/** Parses `thresher test` arguments. */
export function parseTestArgs(argv: readonly string[]): Parsed<TestArgs> {
  const spec = COMMANDS.test;
  return parse(spec, argv, ({ values, positionals }) => {
    const kill = text(values, 'kill');
    const seed = text(values, 'seed');
    if (seed !== undefined && !/^\d+$/.test(seed)) {
      throw new UsageError(`option --seed ${JSON.stringify(seed)}: expected a whole number`, spec.usage);
    }
    return {
      paths: positionals,
      kill: kill === undefined ? undefined : parseKill(kill, spec.usage),
      seed: seed === undefined ? undefined : Number(seed),
      json: flag(values, 'json'),
    };
  });
}

/** Parses `thresher migrate` arguments. */
export function parseMigrateArgs(argv: readonly string[]): Parsed<MigrateArgs> {
  return parse(COMMANDS.migrate, argv, ({ values }) => ({
    dryRun: flag(values, 'dry-run'),
    store: text(values, 'store'),
    json: flag(values, 'json'),
  }));
}

/** Parses `thresher show` arguments. */
export function parseShowArgs(argv: readonly string[]): Parsed<ShowArgs> {
  return parse(COMMANDS.show, argv, ({ values, positionals }) => ({
    id: positionals[0]!,
    history: flag(values, 'history'),
    store: text(values, 'store'),
    json: flag(values, 'json'),
  }));
}

/** Parses `thresher complete` arguments. */
export function parseCompleteArgs(argv: readonly string[]): Parsed<CompleteArgs> {
  const spec = COMMANDS.complete;
  return parse(spec, argv, ({ values, positionals }) => ({
    id: positionals[0]!,
    task: positionals[1]!,
    variables: parseVars(list(values, 'var'), '--var', spec.usage),
    handlers: text(values, 'handlers'),
    store: text(values, 'store'),
    waitTimers: parseWaitTimers(text(values, 'wait-timers'), spec.usage),
    json: flag(values, 'json'),
  }));
}

/** Parses `thresher resume` arguments: exactly one of ID and `--all`. */
export function parseResumeArgs(argv: readonly string[]): Parsed<ResumeArgs> {
  const spec = COMMANDS.resume;
  return parse(spec, argv, ({ values, positionals }) => {
    const all = flag(values, 'all');
    if (all && positionals[0] !== undefined) {
      throw new UsageError(
        `give an instance ID or --all, not both (got ${JSON.stringify(positionals[0])} and --all)`,
        spec.usage,
      );
    }
    if (!all && positionals[0] === undefined) throw new UsageError('missing ID (or --all)', spec.usage);
    return {
      id: positionals[0],
      handlers: text(values, 'handlers'),
      store: text(values, 'store'),
      yes: flag(values, 'yes'),
      waitTimers: parseWaitTimers(text(values, 'wait-timers'), spec.usage),
      json: flag(values, 'json'),
    };
  });
}

/** Parses `thresher retry` arguments. */
export function parseRetryArgs(argv: readonly string[]): Parsed<RetryArgs> {
  const spec = COMMANDS.retry;
  return parse(spec, argv, ({ values, positionals }) => ({
    id: positionals[0]!,
    incident: positionals[1],
    handlers: text(values, 'handlers'),
    store: text(values, 'store'),
    yes: flag(values, 'yes'),
    waitTimers: parseWaitTimers(text(values, 'wait-timers'), spec.usage),
    json: flag(values, 'json'),
  }));
}

/** A message or signal name: not empty. */
function eventName(value: string, what: string, usage: string): string {
  if (value.trim() === '') throw new UsageError(`the ${what} name is empty`, usage);
  return value;
}

/** Parses `thresher send` arguments. */
export function parseSendArgs(argv: readonly string[]): Parsed<SendArgs> {
  const spec = COMMANDS.send;
  return parse(spec, argv, ({ values, positionals }) => ({
    message: eventName(positionals[0]!, 'message', spec.usage),
    key: text(values, 'key'),
    variables: parseVars(list(values, 'var'), '--var', spec.usage),
    messageId: text(values, 'message-id'),
    ttl: parseTtl(text(values, 'ttl'), spec.usage),
    handlers: text(values, 'handlers'),
    store: text(values, 'store'),
    waitTimers: parseWaitTimers(text(values, 'wait-timers'), spec.usage),
    json: flag(values, 'json'),
  }));
}

/** Parses `thresher signal` arguments. */
export function parseSignalArgs(argv: readonly string[]): Parsed<SignalArgs> {
  const spec = COMMANDS.signal;
  return parse(spec, argv, ({ values, positionals }) => ({
    signal: eventName(positionals[0]!, 'signal', spec.usage),
    variables: parseVars(list(values, 'var'), '--var', spec.usage),
    handlers: text(values, 'handlers'),
    store: text(values, 'store'),
    waitTimers: parseWaitTimers(text(values, 'wait-timers'), spec.usage),
    json: flag(values, 'json'),
  }));
}
