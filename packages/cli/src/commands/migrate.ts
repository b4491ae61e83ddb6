import { CURRENT_SCHEMA, migrateRepository } from '@thresher/checkpoint';
import { COMMANDS, parseMigrateArgs } from '../args.js';
import type { CommandContext } from '../command.js';
import { ExitCode } from '../exit-code.js';
import { commandHelp } from '../help.js';
import { withSession } from '../session.js';

/** `thresher migrate`: every stored document rewritten to the current schema; exit 1 if any could not be. */
export async function migrateCommand(argv: readonly string[], { io, out }: CommandContext): Promise<ExitCode> {
  const args = parseMigrateArgs(argv);
  if (args.help) {
    io.stdout.write(commandHelp('migrate'));
    return ExitCode.Ok;
  }
  const options = { store: args.store, handlers: undefined, create: false, usage: COMMANDS.migrate.usage };
  return withSession(io, out, options, async ({ repository }) => {
    const report = await migrateRepository(repository, { dryRun: args.dryRun });
    const failed = report.failed.map((failure) => ({ ...failure, error: failure.error.message }));
    out.document({ ...report, failed, schema: CURRENT_SCHEMA });
    const older = Object.entries(report.bySchema).map(([schema, count]) => `${count} at schema ${schema}`);
    out.print(
      [
        `${report.instances} instances, ${report.checkpoints} checkpoint documents (current schema ${CURRENT_SCHEMA})`,
        `  already current: ${report.current}`,
        `  ${report.dryRun ? 'would migrate' : 'migrated'}:  ${report.migrated}${older.length > 0 ? ` (found ${older.join(', ')})` : ''}`,
        `  failed:          ${report.failed.length}`,
        ...failed.map((failure) => `    ${failure.instanceId} seq ${failure.seq}: ${failure.error}`),
      ].join('\n'),
    );
    return report.failed.length > 0 ? ExitCode.Failed : ExitCode.Ok;
  });
}
