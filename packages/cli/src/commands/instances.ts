import type { InstanceQuery } from '@thresher/checkpoint';
import { COMMANDS, parseInstancesArgs } from '../args.js';
import type { CommandContext } from '../command.js';
import { ExitCode } from '../exit-code.js';
import { commandHelp } from '../help.js';
import { formatTable } from '../output.js';
import { withSession } from '../session.js';

/** `thresher instances`: the store's instances as a table (or `{ "instances": […] }`). */
export async function instancesCommand(argv: readonly string[], { io, out }: CommandContext): Promise<ExitCode> {
  const args = parseInstancesArgs(argv);
  if (args.help) {
    io.stdout.write(commandHelp('instances'));
    return ExitCode.Ok;
  }
  const query: InstanceQuery = {
    ...(args.roots ? { roots: true } : {}),
    ...(args.children ? { children: true } : {}),
    ...(args.status ? { status: args.status } : {}),
  };
  const usage = COMMANDS.instances.usage;
  const options = { store: args.store, handlers: undefined, create: false, usage };
  return withSession(io, out, options, async ({ engine }) => {
    const instances = await engine.instances(query);
    out.document({ instances });
    if (instances.length === 0) {
      out.print('no instances');
      return ExitCode.Ok;
    }
    const rows = instances.map((instance) => [
      instance.instanceId,
      instance.processId,
      instance.status,
      String(instance.latestSeq),
      instance.businessKey ?? '',
    ]);
    out.print(formatTable(['ID', 'PROCESS', 'STATUS', 'SEQ', 'BUSINESS KEY'], rows));
    return ExitCode.Ok;
  });
}
