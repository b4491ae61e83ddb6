/**
 * How `thresher` logs: what it says while it works (progress, warnings, errors) as human lines or as JSON
 * objects, one a line, on stderr, filtered by level. Every command takes `--log-format human|json` and
 * `--log-level debug|info|warn|error` (or `THRESHER_LOG_FORMAT`, `THRESHER_LOG_LEVEL`); runCli reads them
 * before the command parses its own flags.
 *
 * @module
 */
import { UsageError } from './errors.js';

export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
export const LOG_FORMATS = ['human', 'json'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

export interface LogOptions {
  format: LogFormat;
  level: LogLevel;
  /** The format was asked for (a flag or the environment), not the default. */
  explicit: boolean;
}

/** What a log line is about, beside its message: ids a reader filters by (`instanceId`, `elementId`, …). */
export type LogFields = Record<string, string | number | boolean | null | undefined>;

/** Whether a line at `level` passes `threshold`. */
export function logs(level: LogLevel, threshold: LogLevel): boolean {
  return LOG_LEVELS.indexOf(level) >= LOG_LEVELS.indexOf(threshold);
}

function oneOf<T extends string>(value: string, known: readonly T[], flag: string): T {
  const found = known.find((candidate) => candidate === value);
  if (!found) throw new UsageError(`option ${flag}: expected ${known.join(', ')}, got ${JSON.stringify(value)}`);
  return found;
}

/**
 * The log flags of a command line, and the line without them (flags after `--` are left alone).
 *
 * @throws UsageError for a value that is not a format or a level, or a flag without its value
 */
export function readLogFlags(
  argv: readonly string[],
  env: Record<string, string | undefined>,
): { argv: string[]; log: LogOptions } {
  const rest: string[] = [];
  let format = env.THRESHER_LOG_FORMAT;
  let level = env.THRESHER_LOG_LEVEL;
  for (let at = 0; at < argv.length; at++) {
    const arg = argv[at] ?? '';
    if (arg === '--') {
      rest.push(...argv.slice(at));
      break;
    }
    const [flag, inline] =
      arg.startsWith('--log-') && arg.includes('=')
        ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)]
        : [arg, undefined];
    if (flag !== '--log-format' && flag !== '--log-level') {
      rest.push(arg);
      continue;
    }
    const value = inline ?? argv[++at];
    if (value === undefined || value.startsWith('--')) throw new UsageError(`option ${flag}: a value is missing`);
    if (flag === '--log-format') format = value;
    else level = value;
  }
  return {
    argv: rest,
    log: {
      format: format === undefined ? 'human' : oneOf(format, LOG_FORMATS, '--log-format'),
      level: level === undefined ? 'info' : oneOf(level, LOG_LEVELS, '--log-level'),
      explicit: format !== undefined,
    },
  };
}

/** One JSON log line: time, level, message, then the fields that are set. */
export function jsonLine(time: number, level: LogLevel, message: string, fields: LogFields = {}): string {
  const set = Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
  return JSON.stringify({ time: new Date(time).toISOString(), level, msg: message, ...set });
}
