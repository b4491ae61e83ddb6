import { commandSpec } from '../args.js';
import type { Command } from '../command.js';
import { UsageError } from '../errors.js';
import { ExitCode } from '../exit-code.js';
import { commandHelp, mainHelp } from '../help.js';

export const helpSpec = commandSpec({
  name: 'help',
  usage: 'thresher help [COMMAND]',
  summary: 'show help for thresher or one command',
  positionals: [{ name: 'COMMAND', required: false, description: 'the command to describe' }],
  options: {},
  examples: ['thresher help run'],
});

/**
 * `thresher help [COMMAND]` over the commands `all()` lists (itself among them). Its arguments are read by
 * hand, not by the generic parser: `thresher help --help` is the main help, and anything else is a name.
 */
export function helpCommand(all: () => readonly Command[]): Command {
  return {
    spec: helpSpec,
    run: async (argv, { io }) => {
      const [name, extra] = argv;
      if (name === undefined || name === '--help' || name === '-h') {
        io.stdout.write(mainHelp(all().map((command) => command.spec)));
        return ExitCode.Ok;
      }
      if (extra !== undefined) throw new UsageError(`unexpected argument ${JSON.stringify(extra)}`, helpSpec.usage);
      const command = all().find((candidate) => candidate.spec.name === name);
      if (!command) throw new UsageError(`unknown command "${name}"`, helpSpec.usage);
      io.stdout.write(commandHelp(command.spec));
      return ExitCode.Ok;
    },
  };
}
