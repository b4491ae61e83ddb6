import type { CommandSpec, Parsed } from './args.js';
import { ExitCode } from './exit-code.js';
import { commandHelp } from './help.js';
import type { CliIo } from './io.js';
import type { Output } from './output.js';

/** What every command receives: the process's io and the output mode `--json` chose. */
export interface CommandContext {
  io: CliIo;
  out: Output;
}

/** A command: its flags and arguments (which its help is made of), and what it does with them. */
export interface Command {
  readonly spec: CommandSpec;
  /** Parses its own arguments, does its work, returns the exit code. */
  run(argv: readonly string[], context: CommandContext): Promise<ExitCode>;
}

/**
 * A command from its spec, its typed parser and its work: `--help` (`-h`) prints the help made from the
 * spec and exits 0; anything else parsed goes to `execute`.
 */
export function defineCommand<T>(
  spec: CommandSpec,
  parse: (argv: readonly string[]) => Parsed<T>,
  execute: (args: T, context: CommandContext) => Promise<ExitCode>,
): Command {
  return {
    spec,
    run: async (argv, context) => {
      const args = parse(argv);
      if (args.help) {
        context.io.stdout.write(commandHelp(spec));
        return ExitCode.Ok;
      }
      return execute(args, context);
    },
  };
}
