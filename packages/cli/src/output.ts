import type { CliIo, CliWritable } from './io.js';
import { jsonLine, type LogFields, type LogLevel, type LogOptions, logs } from './log.js';

/** Human lines at `info` and above: what `thresher` prints without log flags. */
export const DEFAULT_LOG: LogOptions = { format: 'human', level: 'info', explicit: false };

/**
 * Where a command's words go. Human mode: the outcome on stdout, progress on stderr. `--json`: exactly
 * one JSON document on stdout and no progress (unless `--log-format json` asks for log lines); errors still
 * go to stderr. What the terminal operator shows (`show`) goes to stdout, or to stderr under `--json`.
 * Progress, warnings and errors are log lines (`log.ts`): human text, or one JSON object a line, at or above
 * `--log-level`.
 *
 * @remarks Plain text; only the operator's window titles may be bold (`operator/window.ts` decides).
 */
export interface Output {
  readonly json: boolean;
  /** Whether the `--json` document has been printed. */
  readonly documented: boolean;
  /** A progress line on stderr (level info), with the ids it is about; dropped under `--json`. */
  progress(line: string, fields?: LogFields): void;
  /** A line at `level` on stderr (a detail at debug, what went wrong on the way at warn); dropped under `--json`. */
  log(level: LogLevel, line: string, fields?: LogFields): void;
  /** Whether a `log` line at `level` would be written (so that what only feeds one is not even made). */
  wants(level: LogLevel): boolean;
  /** A warning on stderr (level warn), in both modes. */
  warn(line: string, fields?: LogFields): void;
  /** Human outcome text on stdout; dropped under `--json` (the document carries it). */
  print(text: string): void;
  /** The one JSON document of `--json`; ignored in human mode. */
  document(value: unknown): void;
  /** An error line on stderr, in both modes, whatever the level. */
  error(line: string, fields?: LogFields): void;
  /**
   * What the terminal operator shows a person (windows, prompts, the answer written back), as is: on
   * stdout so a transcript has it, on stderr under `--json` so stdout stays one document.
   */
  show(text: string): void;
  /** The stream `show` writes to, for its width. */
  readonly screen: CliWritable;
  /**
   * Holds progress lines until the returned release is called (holds nest; the last release writes them
   * in order), so no line from other work lands inside a window while it is up.
   */
  hold(): () => void;
}

export function createOutput(io: CliIo, json: boolean, log: LogOptions = DEFAULT_LOG): Output {
  let documented = false;
  let holds = 0;
  const held: string[] = [];
  const screen = json ? io.stderr : io.stdout;
  const line = (level: LogLevel, text: string, fields?: LogFields): string =>
    log.format === 'json' ? jsonLine(io.clock.now(), level, text, fields) : text;
  // Progress and details: not under --json unless log lines were asked for, and held while a window is up.
  const wants = (level: LogLevel): boolean => !(json && !log.explicit) && logs(level, log.level);
  const chatter = (level: LogLevel, text: string, fields?: LogFields): void => {
    if (!wants(level)) return;
    if (holds > 0) held.push(line(level, text, fields));
    else io.stderr.write(`${line(level, text, fields)}\n`);
  };
  return {
    json,
    get documented() {
      return documented;
    },
    progress: (text, fields) => chatter('info', text, fields),
    log: chatter,
    wants,
    warn: (text, fields) => {
      if (logs('warn', log.level)) io.stderr.write(`${line('warn', text, fields)}\n`);
    },
    print: (text) => {
      if (!json) io.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
    },
    document: (value) => {
      if (!json) return;
      // One document per run is the --json contract; a second one is a bug in a command.
      if (documented) throw new Error('thresher: a command tried to print a second JSON document');
      documented = true;
      io.stdout.write(`${toJson(value, 2)}\n`);
    },
    error: (text, fields) => {
      io.stderr.write(`${line('error', text, fields)}\n`);
    },
    show: (text) => {
      screen.write(text);
    },
    screen,
    hold: () => {
      holds += 1;
      let released = false;
      return () => {
        // A second call of one release must not let another holder's window be written into.
        if (released) return;
        released = true;
        holds -= 1;
        if (holds === 0) for (const line of held.splice(0)) io.stderr.write(`${line}\n`);
      };
    },
  };
}

/** JSON for values the engine's codec carries but JSON does not (bigint, Map, Set, bytes). */
export function toJson(value: unknown, indent?: number): string {
  return JSON.stringify(
    value,
    (_key, item: unknown) => {
      if (typeof item === 'bigint') return item.toString();
      if (item instanceof Map) return Object.fromEntries(item);
      if (item instanceof Set) return [...item];
      if (item instanceof Uint8Array) return Buffer.from(item).toString('base64');
      return item;
    },
    indent,
  );
}

/** A variable's value as one line: JSON for structured values, strings quoted. */
export function formatValue(value: unknown): string {
  if (value === undefined) return 'undefined';
  return toJson(value) ?? String(value);
}

/** `name = value` lines, indented; `(none)` when empty. */
export function formatVariables(variables: Record<string, unknown>, indent = '  '): string {
  const names = Object.keys(variables);
  if (names.length === 0) return `${indent}(none)`;
  return names.map((name) => `${indent}${name} = ${formatValue(variables[name])}`).join('\n');
}

/** A plain text table: a header row and left-aligned columns two spaces apart. */
export function formatTable(header: string[], rows: string[][]): string {
  const widths = header.map((cell, column) => Math.max(cell.length, ...rows.map((row) => (row[column] ?? '').length)));
  const line = (cells: string[]): string =>
    cells
      .map((cell, column) => (column === cells.length - 1 ? cell : cell.padEnd(widths[column] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)].join('\n');
}

/** Quotes a command-line argument for a POSIX shell when it needs it. */
export function shellQuote(argument: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(argument) ? argument : `'${argument.replaceAll("'", `'\\''`)}'`;
}

const DAY = 86_400_000;
const HOUR = 3_600_000;
const MINUTE = 60_000;
const SECOND = 1_000;

/** Milliseconds as an ISO 8601 duration `--wait-timers` reads back: `PT1M`, `P1DT2H`, `PT0.25S`. */
export function isoDuration(ms: number): string {
  let rest = Math.max(0, Math.round(ms));
  const days = Math.floor(rest / DAY);
  rest -= days * DAY;
  const hours = Math.floor(rest / HOUR);
  rest -= hours * HOUR;
  const minutes = Math.floor(rest / MINUTE);
  rest -= minutes * MINUTE;
  const seconds = rest / SECOND;
  const time = `${hours ? `${hours}H` : ''}${minutes ? `${minutes}M` : ''}${seconds ? `${seconds}S` : ''}`;
  if (days === 0 && time === '') return 'PT0S';
  return `P${days ? `${days}D` : ''}${time ? `T${time}` : ''}`;
}

/** Milliseconds for people, the two largest units: `1d 2h`, `5m 30s`, `0.2s`. */
export function humanDuration(ms: number): string {
  const value = Math.max(0, Math.round(ms));
  if (value < MINUTE) return `${Number((value / SECOND).toFixed(value < 10 * SECOND ? 1 : 0))}s`;
  const units: [string, number][] = [
    ['d', DAY],
    ['h', HOUR],
    ['m', MINUTE],
    ['s', SECOND],
  ];
  const parts: string[] = [];
  let rest = value;
  for (const [unit, size] of units) {
    const count = Math.floor(rest / size);
    rest -= count * size;
    if (count > 0 || parts.length > 0) parts.push(`${count}${unit}`);
    if (parts.length === 2) break;
  }
  return parts.filter((part) => !/^0/.test(part) || parts.length === 1).join(' ');
}
