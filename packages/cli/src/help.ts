import { readFileSync } from 'node:fs';
import type { CommandSpec } from './args.js';

const EXIT_CODES = `Exit codes:
  0  completed (or terminated by a terminate end event); the query ran
  1  an incident, an invalid model, a restore failure, a missing instance, a message nobody waits for
  2  a usage error: unknown flag, missing argument, unreadable file or handlers module, (run) a handlers
     module with no handler for a task type of the process, or a --choose value that names no option
  3  parked: the instance is stored and waits for something the CLI cannot give (a user task, a message,
     a signal, or a timer due later than --wait-timers), or the input ended while a user task was asked
  4  not approved: the briefing (Continue? [y/N]) was not approved; run starts nothing, the others leave
     the instance parked
  5  stopped at a choice (q): the instance is stored, parked at that user task`;

const ANSWERING = `Answering: on a terminal, run, resume, complete and send show the touchpoints where the run needs
you and ask Continue? [y/N] (THRESHER_YES=1 or --yes approves without asking), then put each user task
as a numbered choice (q stops, exit 5). --choose ELEMENT=OPTION answers a task up front, terminal or not.
Without a terminal, run reads one JSON object line per user task from stdin; the others park (exit 3).`;

/** `thresher --help`: every command with its one-line summary, in the order given. */
export function mainHelp(specs: readonly CommandSpec[]): string {
  const width = Math.max(...specs.map((spec) => spec.name.length));
  const commands = specs.map((spec) => `  ${spec.name.padEnd(width)}  ${spec.summary}`).join('\n');
  return `thresher — run durable BPMN 2.0 processes

Usage: thresher COMMAND [ARGS] [--json]
       thresher help COMMAND | thresher --help | thresher --version

Commands:
${commands}

Stores: --store sqlite:PATH | PATH.db | postgres://…[?schema=NAME] | memory:  (default ./.thresher/thresher.db, or $THRESHER_STORE)

Logs:   every command takes --log-format human|json (progress, warnings and errors on stderr, a JSON object a
        line with time, level, msg and the instance and element ids) and --log-level debug|info|warn|error
        (debug: every engine event); or $THRESHER_LOG_FORMAT, $THRESHER_LOG_LEVEL.

${ANSWERING}

${EXIT_CODES}
`;
}

/** `thresher help COMMAND`: usage line, arguments, flags, examples and exit codes. */
export function commandHelp(spec: CommandSpec): string {
  const lines = [`Usage: ${spec.usage}`, '', `${spec.summary[0]!.toUpperCase()}${spec.summary.slice(1)}.`];
  const flags = Object.entries(spec.options).map(([flag, option]) => {
    const short = option.short ? `-${option.short}, ` : '';
    const value = option.type === 'string' ? ` ${option.placeholder ?? 'VALUE'}` : '';
    return { label: `${short}--${flag}${value}${option.multiple ? '...' : ''}`, description: option.description };
  });
  // 22 columns, or wider when a flag is longer, so every description starts in one column.
  const width = Math.max(22, ...flags.map((flag) => flag.label.length));
  if (spec.positionals.length > 0) {
    lines.push('', 'Arguments:');
    for (const positional of spec.positionals)
      lines.push(`  ${positional.name.padEnd(width)}  ${positional.description}`);
  }
  lines.push('', 'Options:');
  for (const flag of flags) lines.push(`  ${flag.label.padEnd(width)}  ${flag.description}`);
  if (spec.examples.length > 0) {
    lines.push('', 'Examples:', ...spec.examples.map((example) => `  ${example}`));
  }
  if (spec.name !== 'help') lines.push('', EXIT_CODES);
  return `${lines.join('\n')}\n`;
}

/** The version of the package the CLI runs from (`src/` in tests, `dist/` when built: both one level down). */
export function version(): string {
  const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    version?: unknown;
  };
  if (typeof manifest.version !== 'string') throw new Error("@thresher/cli's package.json names no version");
  return manifest.version;
}
