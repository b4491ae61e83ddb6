import type { InstanceQuery } from '@thresher/checkpoint';
import { commandSpec, flag, type Parsed, parseWith, text } from '../args.js';
import { defineCommand } from '../command.js';
import { type StoreArgs, storeFlags } from '../drive-options.js';
import { UsageError } from '../errors.js';
import { ExitCode } from '../exit-code.js';
import { formatTable } from '../output.js';
import { withSession } from '../session.js';

export const instancesSpec = commandSpec({
  name: 'instances',
  usage: 'thresher instances [--roots | --children] [--status S] [--store URL] [--json]',
  summary: 'list the instances in the store',
  positionals: [],
  options: {
    roots: { type: 'boolean', description: 'only instances with no parent' },
    children: { type: 'boolean', description: 'only called children' },
    status: { type: 'string', placeholder: 'S', description: 'running, completed or terminated' },
    ...storeFlags.options,
  },
  examples: ['thresher instances', 'thresher instances --status running --json'],
});

const usage = instancesSpec.usage;

const STATUSES = ['running', 'completed', 'terminated'] as const;

/** `thresher instances`, parsed. */
export interface InstancesArgs extends StoreArgs {
  roots: boolean;
  children: boolean;
  status: (typeof STATUSES)[number] | undefined;
}

/** Parses `thresher instances` arguments; `--roots` with `--children` and an unknown `--status` are usage errors. */
export function parseInstancesArgs(argv: readonly string[]): Parsed<InstancesArgs> {
  return parseWith(instancesSpec, argv, ({ values }) => {
    if (flag(values, 'roots') && flag(values, 'children')) {
      throw new UsageError('options --roots and --children exclude each other', usage);
    }
    const status = text(values, 'status');
    if (status !== undefined && !(STATUSES as readonly string[]).includes(status)) {
      throw new UsageError(`option --status ${JSON.stringify(status)}: expected one of ${STATUSES.join(', ')}`, usage);
    }
    return {
      roots: flag(values, 'roots'),
      children: flag(values, 'children'),
      status: status as InstancesArgs['status'],
      ...storeFlags.read(values, usage),
    };
  });
}

/** `thresher instances`: the store's instances as a table (or `{ "instances": […] }`). */
export const instancesCommand = defineCommand(instancesSpec, parseInstancesArgs, async (args, { io, out }) => {
  const query: InstanceQuery = {
    ...(args.roots ? { roots: true } : {}),
    ...(args.children ? { children: true } : {}),
    ...(args.status ? { status: args.status } : {}),
  };
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
});
