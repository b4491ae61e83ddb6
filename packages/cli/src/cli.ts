import { EngineError } from '@thresher/engine';
import { COMMANDS, findCommand } from './commands/index.js';
import { CliError, UsageError } from './errors.js';
import { ExitCode } from './exit-code.js';
import { mainHelp, version } from './help.js';
import type { CliIo } from './io.js';
import { readLogFlags } from './log.js';
import { formatModelError, isModelError, modelErrorDocument } from './model-report.js';
import { createOutput, DEFAULT_LOG, type Output } from './output.js';

/** Whether `--json` is among the flags (before a `--`), known before the command parses its arguments. */
function wantsJson(argv: readonly string[]): boolean {
  const end = argv.indexOf('--');
  return (end < 0 ? argv : argv.slice(0, end)).includes('--json');
}

/**
 * Runs one `thresher` command line in-process and returns its exit code (see `ExitCode`). Everything
 * it reads or writes goes through `io`; it never touches `process`.
 *
 * @example
 * const code = await runCli(['run', 'order.bpmn', '--yes', '--json'], io);
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<ExitCode> {
  let read: ReturnType<typeof readLogFlags>;
  try {
    read = readLogFlags(argv, io.env);
  } catch (error) {
    return report(error, createOutput(io, wantsJson(argv), DEFAULT_LOG), io);
  }
  const out = createOutput(io, wantsJson(read.argv), read.log);
  const [first, ...rest] = read.argv;
  try {
    if (first === undefined) throw new UsageError('no command given');
    if (first === '--help' || first === '-h') {
      io.stdout.write(mainHelp(COMMANDS.map((command) => command.spec)));
      return ExitCode.Ok;
    }
    if (first === '--version' || first === '-v') {
      io.stdout.write(`${version()}\n`);
      return ExitCode.Ok;
    }
    const command = findCommand(first);
    if (!command) {
      throw new UsageError(
        first.startsWith('-') ? `unknown option ${first}; a command comes first` : `unknown command "${first}"`,
      );
    }
    return await command.run(rest, { io, out });
  } catch (error) {
    return report(error, out, io);
  }
}

/** Turns what a command threw into its message and exit code; unexpected errors exit 1, loudly. */
function report(error: unknown, out: Output, io: CliIo): ExitCode {
  if (CliError.is(error)) {
    if (UsageError.isUsage(error)) {
      const usage = error.usage ?? 'thresher COMMAND [ARGS]; see thresher --help';
      out.error(`thresher: ${error.message}\nusage: ${usage}`);
    } else {
      out.error(`thresher: ${error.message}`);
    }
    errorDocument(out, { code: error.code, message: error.message }, error.exitCode);
    return error.exitCode;
  }
  if (isModelError(error)) {
    out.error(`thresher: ${formatModelError(error, undefined)}`);
    if (!out.documented) out.document(modelErrorDocument(error, undefined));
    return ExitCode.Failed;
  }
  const message = error instanceof Error ? error.message : String(error);
  out.error(`thresher: ${message}`);
  if (io.env.THRESHER_DEBUG && error instanceof Error && error.stack) out.error(error.stack);
  const code = EngineError.is(error)
    ? error.code
    : error instanceof Error && 'code' in error
      ? String(error.code)
      : undefined;
  errorDocument(out, { ...(code ? { code } : {}), message }, ExitCode.Failed);
  return ExitCode.Failed;
}

function errorDocument(out: Output, error: { code?: string; message: string }, exitCode: ExitCode): void {
  if (!out.documented) out.document({ status: 'error', exitCode, error });
}
