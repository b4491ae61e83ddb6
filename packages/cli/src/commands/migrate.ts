import { CURRENT_SCHEMA, migrateRepository } from '@thresher/checkpoint';
import { commandSpec, flag, type Parsed, parseWith } from '../args.js';
import { defineCommand } from '../command.js';
import { type StoreArgs, storeFlags } from '../drive-options.js';
import { ExitCode } from '../exit-code.js';
import { ProgressLine } from '../progress-line.js';
import { withSession } from '../session.js';

export const migrateSpec = commandSpec({
  name: 'migrate',
  usage: 'thresher migrate [--dry-run] [--store URL] [--json]',
  summary: 'rewrite every stored checkpoint document to the schema this build writes, and report counts',
  positionals: [],
  options: {
    'dry-run': { type: 'boolean', description: 'count what would be migrated, change nothing' },
    ...storeFlags.options,
  },
  examples: ['thresher migrate --dry-run', 'thresher migrate --store sqlite:app.db --json'],
});

/** `thresher migrate`, parsed. */
export interface MigrateArgs extends StoreArgs {
  dryRun: boolean;
}

/** Parses `thresher migrate` arguments. */
export function parseMigrateArgs(argv: readonly string[]): Parsed<MigrateArgs> {
  return parseWith(migrateSpec, argv, ({ values }) => ({
    dryRun: flag(values, 'dry-run'),
    ...storeFlags.read(values, migrateSpec.usage),
  }));
}

/** `thresher migrate`: every stored document rewritten to the current schema; exit 1 if any could not be. */
export const migrateCommand = defineCommand(migrateSpec, parseMigrateArgs, async (args, { io, out }) => {
  const options = { store: args.store, handlers: undefined, create: false, usage: migrateSpec.usage };
  return withSession(io, out, options, async ({ repository }) => {
    const line = new ProgressLine(io, out, 'migrating: instances');
    const report = await migrateRepository(repository, {
      dryRun: args.dryRun,
      onProgress: ({ instances, migrated, failed }) =>
        line.update(instances, undefined, `${migrated} documents migrated, ${failed.length} failed`),
    });
    line.end();
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
});
