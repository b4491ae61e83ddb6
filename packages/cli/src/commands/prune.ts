import type { InstanceStatus } from '@thresher/checkpoint';
import { commandSpec, flag, type Parsed, parseWith, text } from '../args.js';
import { defineCommand } from '../command.js';
import { type StoreArgs, storeFlags } from '../drive-options.js';
import { UsageError } from '../errors.js';
import { ExitCode } from '../exit-code.js';
import { ProgressLine } from '../progress-line.js';
import { withSession } from '../session.js';

export const pruneSpec = commandSpec({
  name: 'prune',
  usage: 'thresher prune --keep-last N [--running] [--store URL] [--json]',
  summary:
    "keep only each ended instance's latest N checkpoints (with --running, every instance's): its older history and the events it kept go",
  positionals: [],
  options: {
    'keep-last': {
      type: 'string',
      placeholder: 'N',
      description:
        'how many of the latest checkpoints each instance keeps (at least 1: the latest is what it restores from)',
    },
    running: {
      type: 'boolean',
      description: 'running instances too (their older checkpoints are what `thresher rollback` goes back to)',
    },
    ...storeFlags.options,
  },
  examples: [
    'thresher prune --keep-last 1',
    'thresher prune --keep-last 20 --running --store postgres://localhost/app',
  ],
});

/** `thresher prune`, parsed. */
export interface PruneArgs extends StoreArgs {
  keepLast: number;
  running: boolean;
}

/** Instances are listed from the store's index this many at a time. */
const PAGE = 1000;

/** Parses `thresher prune` arguments. */
export function parsePruneArgs(argv: readonly string[]): Parsed<PruneArgs> {
  return parseWith(pruneSpec, argv, ({ values }) => {
    const keepLast = text(values, 'keep-last');
    if (keepLast === undefined) throw new UsageError('option --keep-last N is required', pruneSpec.usage);
    if (!/^[1-9]\d{0,8}$/.test(keepLast)) {
      throw new UsageError(
        `option --keep-last: expected a whole number of at least 1, got ${JSON.stringify(keepLast)}`,
        pruneSpec.usage,
      );
    }
    return {
      keepLast: Number(keepLast),
      running: flag(values, 'running'),
      ...storeFlags.read(values, pruneSpec.usage),
    };
  });
}

/**
 * `thresher prune`: the store's retention of history. Each instance asked for keeps its latest `--keep-last`
 * checkpoints; older ones go with their journal entries and the events they kept (`engine.events` no longer
 * reads them). Ended instances only, unless `--running`.
 */
export const pruneCommand = defineCommand(pruneSpec, parsePruneArgs, async (args, { io, out }) => {
  const options = { store: args.store, handlers: undefined, create: false, usage: pruneSpec.usage };
  return withSession(io, out, options, async ({ repository }) => {
    const statuses: InstanceStatus[] = args.running
      ? ['completed', 'terminated', 'running']
      : ['completed', 'terminated'];
    const line = new ProgressLine(io, out, 'pruning: instances');
    const counts: Record<string, number> = {};
    for (const status of statuses) {
      counts[status] = 0;
      let after: string | undefined;
      for (;;) {
        const ids = await repository.instanceIds({ status, limit: PAGE, ...(after === undefined ? {} : { after }) });
        for (const instanceId of ids) {
          await repository.prune(instanceId, { keepLast: args.keepLast });
          counts[status]++;
        }
        line.update(
          Object.values(counts).reduce((sum, count) => sum + count, 0),
          undefined,
          status,
        );
        if (ids.length < PAGE) break;
        after = ids[ids.length - 1];
      }
    }
    line.end();
    const instances = Object.values(counts).reduce((sum, count) => sum + count, 0);
    out.document({ keepLast: args.keepLast, instances, byStatus: counts });
    const detail = statuses.map((status) => `${counts[status]} ${status}`).join(', ');
    out.print(`pruned ${instances} instances to their latest ${args.keepLast} checkpoints (${detail})`);
    return ExitCode.Ok;
  });
});
