import { commandSpec, type Parsed, parseWith } from '../args.js';
import { defineCommand } from '../command.js';
import { type StoreArgs, storeFlags } from '../drive-options.js';
import { UsageError } from '../errors.js';
import { ExitCode } from '../exit-code.js';
import { withSession } from '../session.js';

export const rollbackSpec = commandSpec({
  name: 'rollback',
  usage: 'thresher rollback ID --to SEQ [--store URL] [--json]',
  summary:
    'write an earlier checkpoint’s state again as the head of an instance whose head cannot be opened; refused when it would forget a completed step',
  positionals: [{ name: 'ID', required: true, description: 'the instance id' }],
  options: {
    to: { type: 'string', description: 'the seq of the good checkpoint to go back to (thresher show names it)' },
    ...storeFlags.options,
  },
  examples: ['thresher rollback 3f0c… --to 12'],
});

/** `thresher rollback`, parsed. */
export interface RollbackArgs extends StoreArgs {
  id: string;
  to: number;
}

/** Parses `thresher rollback` arguments. */
export function parseRollbackArgs(argv: readonly string[]): Parsed<RollbackArgs> {
  return parseWith(rollbackSpec, argv, ({ values, positionals }) => {
    const to = values.to;
    if (typeof to !== 'string' || !/^\d+$/.test(to) || !Number.isSafeInteger(Number(to))) {
      throw new UsageError(
        `--to needs the seq of a checkpoint (a whole number), not ${JSON.stringify(to ?? '')}`,
        rollbackSpec.usage,
      );
    }
    return { id: positionals[0]!, to: Number(to), ...storeFlags.read(values, rollbackSpec.usage) };
  });
}

/** `thresher rollback ID --to SEQ`: step over a head that cannot be opened, back to a good checkpoint. */
export const rollbackCommand = defineCommand(rollbackSpec, parseRollbackArgs, async (args, { io, out }) => {
  const options = { store: args.store, handlers: undefined, create: false, usage: rollbackSpec.usage };
  return withSession(io, out, options, async (session) => {
    const result = await session.engine.rollback(args.id, { to: args.to });
    out.print(
      `instance ${result.instanceId}: checkpoint ${result.to} is the head again, as seq ${result.seq} (seq ${result.from} and those before it stay as history); resume it with thresher resume ${result.instanceId}`,
    );
    out.document({ status: 'ok', ...result });
    return ExitCode.Ok;
  });
});
