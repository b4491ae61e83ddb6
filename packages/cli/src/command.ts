import type { CommandName } from './args.js';
import type { ExitCode } from './exit-code.js';
import type { CliIo } from './io.js';
import type { Output } from './output.js';

/** What every command receives: the process's io and the output mode `--json` chose. */
export interface CommandContext {
  io: CliIo;
  out: Output;
}

/** A command: parses its own arguments, does its work, returns the exit code. */
export type Command = (argv: readonly string[], context: CommandContext) => Promise<ExitCode>;

export type CommandTable = Record<Exclude<CommandName, 'help'>, Command>;
