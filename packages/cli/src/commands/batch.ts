import type { BatchSpec } from '@thresher/rest';
import { commandSpec, type Parsed, parseWith } from '../args.js';
import { defineCommand } from '../command.js';
import { type StoreArgs, storeFlags } from '../drive-options.js';
import { FailedError, UsageError } from '../errors.js';
import { ExitCode } from '../exit-code.js';
import { ProgressLine } from '../progress-line.js';
import { readPairs, readTarget } from '../repair-flags.js';
import { withSession } from '../session.js';
import { targetDeployment } from './migrate-instance.js';

const KINDS = ['cancel', 'retry', 'modify', 'migrate'] as const;

export const batchSpec = commandSpec({
  name: 'batch',
  usage:
    'thresher batch cancel|retry|modify|migrate --filter JSON [--move SOURCE=TARGET]... [--to PROCESS[:VERSION] --map SOURCE=TARGET...] [--handlers MODULE] [--store URL] [--json]',
  summary:
    'cancel, retry the incidents of, move tokens in or migrate every instance a filter matches, as one durable batch',
  positionals: [
    {
      name: 'KIND',
      required: true,
      description: 'cancel, retry (resolve incidents), modify (--move) or migrate (--to)',
    },
  ],
  options: {
    filter: {
      type: 'string',
      placeholder: 'JSON',
      description:
        'the process instances, as Camunda’s process instance search filter (e.g. {"processDefinitionId":"order"})',
    },
    move: {
      type: 'string',
      multiple: true,
      placeholder: 'SOURCE=TARGET',
      description: 'with modify: move each token at SOURCE to TARGET',
    },
    to: {
      type: 'string',
      placeholder: 'PROCESS[:VERSION]',
      description: 'with migrate: the process version to migrate onto',
    },
    map: {
      type: 'string',
      multiple: true,
      placeholder: 'SOURCE=TARGET',
      description: 'with migrate: an element mapped to its target',
    },
    handlers: {
      type: 'string',
      placeholder: 'MODULE',
      description: 'the handlers the instances run on with (a retried job’s)',
    },
    ...storeFlags.options,
  },
  examples: [
    'thresher batch cancel --filter \'{"processDefinitionId":"order","state":"ACTIVE"}\'',
    'thresher batch retry --filter \'{"hasIncident":true}\' --handlers handlers.mjs',
    'thresher batch modify --filter \'{"processDefinitionId":"order"}\' --move await-carrier=label',
    'thresher batch migrate --filter \'{"processDefinitionId":"order"}\' --to order:2 --map review=review',
  ],
});

const usage = batchSpec.usage;

export interface BatchArgs extends StoreArgs {
  kind: (typeof KINDS)[number];
  filter: Record<string, unknown>;
  moves: { sourceElementId: string; targetElementId: string }[];
  to: { processId: string; version: number | undefined } | undefined;
  mapping: { sourceElementId: string; targetElementId: string }[];
  handlers: string | undefined;
}

export function parseBatchArgs(argv: readonly string[]): Parsed<BatchArgs> {
  return parseWith(batchSpec, argv, ({ values, positionals }) => {
    const kind = positionals[0] as BatchArgs['kind'];
    if (!KINDS.includes(kind))
      throw new UsageError(`thresher batch ${positionals[0]}: expected ${KINDS.join(', ')}`, usage);
    const text = values.filter as string | undefined;
    if (text === undefined)
      throw new UsageError('--filter JSON is required: which process instances the batch is over', usage);
    let filter: unknown;
    try {
      filter = JSON.parse(text);
    } catch (error) {
      throw new UsageError(`--filter is not JSON: ${(error as Error).message}`, usage);
    }
    if (filter === null || typeof filter !== 'object' || Array.isArray(filter)) {
      throw new UsageError('--filter must be a JSON object of process instance search filters', usage);
    }
    const moves = readPairs(values.move as string[] | undefined, '--move', usage);
    const mapping = readPairs(values.map as string[] | undefined, '--map', usage);
    const to = readTarget(values.to as string | undefined, usage);
    if (kind === 'modify' && moves.length === 0)
      throw new UsageError('thresher batch modify needs --move SOURCE=TARGET', usage);
    if (kind === 'migrate' && to === undefined)
      throw new UsageError('thresher batch migrate needs --to PROCESS[:VERSION]', usage);
    if (kind !== 'modify' && moves.length > 0) throw new UsageError('--move belongs to thresher batch modify', usage);
    if (kind !== 'migrate' && (to !== undefined || mapping.length > 0)) {
      throw new UsageError('--to and --map belong to thresher batch migrate', usage);
    }
    return {
      kind,
      filter: filter as Record<string, unknown>,
      moves,
      to,
      mapping,
      handlers: values.handlers as string | undefined,
      ...storeFlags.read(values, usage),
    };
  });
}

/** `thresher batch KIND --filter JSON`: make the batch, run it here to its end, report its counts. */
export const batchCommand = defineCommand(batchSpec, parseBatchArgs, async (args, { io, out }) => {
  const rest = await import('@thresher/rest');
  const options = { store: args.store, handlers: args.handlers, create: false, usage };
  return withSession(io, out, options, async (session) => {
    const { engine, repository } = session;
    let spec: BatchSpec;
    if (args.kind === 'cancel') spec = { type: 'CANCEL_PROCESS_INSTANCE' };
    else if (args.kind === 'retry') spec = { type: 'RESOLVE_INCIDENT' };
    else if (args.kind === 'modify') spec = { type: 'MODIFY_PROCESS_INSTANCE', moves: args.moves };
    else {
      const target = await targetDeployment(engine, args.to!.processId, args.to!.version);
      spec = {
        type: 'MIGRATE_PROCESS_INSTANCE',
        processId: args.to!.processId,
        digest: target.digest,
        mapping: args.mapping,
      };
    }
    // The filter is read against the search projection, made here from the store's event log up to now.
    const projection = new rest.SearchProjection(engine, repository);
    let created: { batchOperationKey: string };
    try {
      await projection.caughtUp();
      try {
        created = await rest.startBatch(repository, spec, args.filter);
      } catch (error) {
        if (rest.Problem.is(error)) throw new FailedError(`--filter: ${error.message}`, { cause: error });
        throw error;
      }
    } finally {
      await projection.close();
    }
    const key = created.batchOperationKey;
    const runner = new rest.BatchRunner(engine, repository, {
      owner: engine.owner,
      onError: (error) => out.progress(String(error)),
    });
    const line = new ProgressLine(io, out, `batch ${key}`);
    let read = await rest.readBatch(repository, key);
    while (read !== undefined && (read.batch.state === 'CREATED' || read.batch.state === 'ACTIVE')) {
      if (!(await runner.runOnce())) await new Promise((resolve) => setTimeout(resolve, 100));
      read = await rest.readBatch(repository, key);
      const done = (read?.batch.operationsCompletedCount ?? 0) + (read?.batch.operationsFailedCount ?? 0);
      line.update(done, read?.batch.operationsTotalCount);
    }
    line.end();
    await runner.close();
    const batch = read!.batch;
    const failures = read!.items.filter((item) => item.state === 'FAILED');
    out.print(
      `batch ${key} (${batch.batchOperationType}) ${batch.state}: ${batch.operationsCompletedCount} done, ${batch.operationsFailedCount} failed of ${batch.operationsTotalCount}`,
    );
    for (const item of failures) out.print(`  ${item.processInstanceKey}: ${item.errorMessage}`);
    const { spec: _spec, ...shown } = batch;
    out.document({
      ...shown,
      failures: failures.map(({ processInstanceKey, errorMessage }) => ({ processInstanceKey, errorMessage })),
    });
    return batch.state === 'COMPLETED' ? ExitCode.Ok : ExitCode.Failed;
  });
});
