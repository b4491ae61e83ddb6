import type { InstanceStatus, Repository } from '@thresher/checkpoint';
import { commandSpec, flag, type Parsed, parseWith, text } from '../args.js';
import { defineCommand } from '../command.js';
import { parseDurationFlag, type StoreArgs, storeFlags } from '../drive-options.js';
import { UsageError } from '../errors.js';
import { ExitCode } from '../exit-code.js';
import { isoDuration } from '../output.js';
import { ProgressLine } from '../progress-line.js';
import { withSession } from '../session.js';

export const pruneSpec = commandSpec({
  name: 'prune',
  usage: 'thresher prune [--keep-last N [--running]] [--ended-before DURATION] [--store URL] [--json]',
  summary:
    "the store's retention: keep each ended instance's latest N checkpoints (with --running, every instance's), and delete instances that ended longer ago than DURATION with their log",
  positionals: [],
  options: {
    'keep-last': {
      type: 'string',
      placeholder: 'N',
      description:
        'how many of the latest checkpoints each instance keeps (at least 1: the latest is what it restores from); its log stays',
    },
    running: {
      type: 'boolean',
      description: 'running instances too (their older checkpoints are what `thresher rollback` goes back to)',
    },
    'ended-before': {
      type: 'string',
      placeholder: 'DURATION',
      description:
        'delete the instances that ended longer ago than this ISO 8601 duration (P30D, PT12H), checkpoints and log; none a registered event reader has not read, none holding a lease or with a running called child',
    },
    ...storeFlags.options,
  },
  examples: [
    'thresher prune --keep-last 1',
    'thresher prune --ended-before P30D',
    'thresher prune --keep-last 20 --running --store postgres://localhost/app',
  ],
});

/** `thresher prune`, parsed. */
export interface PruneArgs extends StoreArgs {
  /** Checkpoints each instance keeps; undefined: no pruning of checkpoints. */
  keepLast: number | undefined;
  running: boolean;
  /** Ended instances older than this (ms) are deleted; undefined: none is. */
  endedBefore: number | undefined;
}

/** Instances are listed from the store's index this many at a time. */
const PAGE = 1000;

/** Parses `thresher prune` arguments. */
export function parsePruneArgs(argv: readonly string[]): Parsed<PruneArgs> {
  return parseWith(pruneSpec, argv, ({ values }) => {
    const keepLast = text(values, 'keep-last');
    const endedBefore = text(values, 'ended-before');
    if (keepLast === undefined && endedBefore === undefined) {
      throw new UsageError('say what to prune: --keep-last N, --ended-before DURATION, or both', pruneSpec.usage);
    }
    if (keepLast !== undefined && !/^[1-9]\d{0,8}$/.test(keepLast)) {
      throw new UsageError(
        `option --keep-last: expected a whole number of at least 1, got ${JSON.stringify(keepLast)}`,
        pruneSpec.usage,
      );
    }
    const running = flag(values, 'running');
    if (running && keepLast === undefined) {
      throw new UsageError('option --running prunes checkpoints: it needs --keep-last N', pruneSpec.usage);
    }
    return {
      keepLast: keepLast === undefined ? undefined : Number(keepLast),
      running,
      endedBefore:
        endedBefore === undefined ? undefined : parseDurationFlag('--ended-before', endedBefore, pruneSpec.usage),
      ...storeFlags.read(values, pruneSpec.usage),
    };
  });
}

/**
 * `thresher prune`: the store's retention. With `--keep-last`, each instance asked for keeps its latest N
 * checkpoints, older ones going with their journal entries (its log, the history and events, stays); ended
 * instances only, unless `--running`. With `--ended-before`, instances that ended longer ago are deleted whole
 * (`Repository.expire`), but for those a registered event reader still needs.
 */
export const pruneCommand = defineCommand(pruneSpec, parsePruneArgs, async (args, { io, out }) => {
  const options = { store: args.store, handlers: undefined, create: false, usage: pruneSpec.usage };
  return withSession(io, out, options, async ({ repository, engine }) => {
    const document: Record<string, unknown> = {};
    const lines: string[] = [];
    if (args.keepLast !== undefined) {
      const line = new ProgressLine(io, out, 'pruning: instances');
      const counts = await pruneCheckpoints(repository, args.keepLast, args.running, (done, status) =>
        line.update(done, undefined, status),
      );
      line.end();
      const instances = Object.values(counts).reduce((sum, count) => sum + count, 0);
      Object.assign(document, { keepLast: args.keepLast, instances, byStatus: counts });
      const detail = Object.entries(counts)
        .map(([status, count]) => `${count} ${status}`)
        .join(', ');
      lines.push(`pruned ${instances} instances to their latest ${args.keepLast} checkpoints (${detail})`);
    }
    if (args.endedBefore !== undefined) {
      const before = Date.now() - args.endedBefore;
      const expired = await engine.expireEnded(before);
      const readers = await repository.readers();
      document.expired = { endedBefore: new Date(before).toISOString(), instances: expired, readers };
      lines.push(
        `deleted ${expired.length} instances that ended more than ${isoDuration(args.endedBefore)} ago (before ${new Date(before).toISOString()})`,
      );
      if (readers.length > 0) {
        const names = readers.map((reader) => reader.name).join(', ');
        lines.push(`  kept what registered event readers have not read yet: ${names}`);
      }
    }
    out.document(document);
    out.print(lines.join('\n'));
    return ExitCode.Ok;
  });
});

/** Prune every instance of the statuses asked to its latest `keepLast` checkpoints; how many of each. */
async function pruneCheckpoints(
  repository: Repository,
  keepLast: number,
  running: boolean,
  progress: (done: number, status: InstanceStatus) => void,
): Promise<Record<string, number>> {
  const statuses: InstanceStatus[] = running ? ['completed', 'terminated', 'running'] : ['completed', 'terminated'];
  const counts: Record<string, number> = {};
  let done = 0;
  for (const status of statuses) {
    counts[status] = 0;
    let after: string | undefined;
    for (;;) {
      const ids = await repository.instanceIds({ status, limit: PAGE, ...(after === undefined ? {} : { after }) });
      for (const instanceId of ids) {
        await repository.prune(instanceId, { keepLast });
        counts[status]++;
        done++;
      }
      progress(done, status);
      if (ids.length < PAGE) break;
      after = ids[ids.length - 1];
    }
  }
  return counts;
}
