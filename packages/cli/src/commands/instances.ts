import type { InstanceQuery, InstanceSummary } from '@thresher/checkpoint';
import { commandSpec, flag, type Parsed, parseWith, text } from '../args.js';
import { defineCommand } from '../command.js';
import { type StoreArgs, storeFlags } from '../drive-options.js';
import { UsageError } from '../errors.js';
import { ExitCode } from '../exit-code.js';
import { formatTable } from '../output.js';
import { withSession } from '../session.js';

export const instancesSpec = commandSpec({
  name: 'instances',
  usage: 'thresher instances [--roots | --children | --tree ID] [--status S] [--store URL] [--json]',
  summary: 'list the instances in the store',
  positionals: [],
  options: {
    roots: { type: 'boolean', description: 'only instances with no parent' },
    children: { type: 'boolean', description: 'only called children' },
    tree: { type: 'string', placeholder: 'ID', description: 'only the call tree rooted at instance ID' },
    status: { type: 'string', placeholder: 'S', description: 'running, completed or terminated' },
    ...storeFlags.options,
  },
  examples: ['thresher instances', 'thresher instances --status running --json', 'thresher instances --tree ORDER-ID'],
});

const usage = instancesSpec.usage;

const STATUSES = ['running', 'completed', 'terminated'] as const;

/** `thresher instances`, parsed. */
export interface InstancesArgs extends StoreArgs {
  roots: boolean;
  children: boolean;
  status: (typeof STATUSES)[number] | undefined;
  tree: string | undefined;
}

/** Parses `thresher instances` arguments; `--roots` with `--children` and an unknown `--status` are usage errors. */
export function parseInstancesArgs(argv: readonly string[]): Parsed<InstancesArgs> {
  return parseWith(instancesSpec, argv, ({ values }) => {
    const tree = text(values, 'tree');
    const filters = [
      flag(values, 'roots') && '--roots',
      flag(values, 'children') && '--children',
      tree !== undefined && '--tree',
    ];
    const given = filters.filter((option): option is string => option !== false);
    if (given.length > 1) throw new UsageError(`options ${given.join(' and ')} exclude each other`, usage);
    const status = text(values, 'status');
    if (status !== undefined && !(STATUSES as readonly string[]).includes(status)) {
      throw new UsageError(`option --status ${JSON.stringify(status)}: expected one of ${STATUSES.join(', ')}`, usage);
    }
    return {
      roots: flag(values, 'roots'),
      children: flag(values, 'children'),
      status: status as InstancesArgs['status'],
      tree,
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
    ...(args.tree !== undefined ? { rootId: args.tree } : {}),
  };
  const options = { store: args.store, handlers: undefined, create: false, usage };
  return withSession(io, out, options, async ({ engine }) => {
    const instances = await engine.instances(query);
    out.document({ instances });
    if (instances.length === 0) {
      out.print('no instances');
      return ExitCode.Ok;
    }
    const rows = inTreeOrder(instances).map(({ instance, depth }) => [
      `${depth === 0 ? '' : `${'  '.repeat(depth - 1)}└ `}${instance.instanceId}`,
      instance.processId,
      instance.status,
      String(instance.latestSeq),
      instance.callNodeId ?? '',
      instance.businessKey ?? '',
    ]);
    out.print(formatTable(['ID', 'PROCESS', 'STATUS', 'SEQ', 'CALLED AT', 'BUSINESS KEY'], rows));
    return ExitCode.Ok;
  });
});

/**
 * The listed instances with each called child right under its parent, indented by its depth; a child whose
 * parent is not listed starts a tree of its own. Order within a level is the store's (by id).
 */
export function inTreeOrder(instances: InstanceSummary[]): { instance: InstanceSummary; depth: number }[] {
  const listed = new Set(instances.map((instance) => instance.instanceId));
  const children = new Map<string, InstanceSummary[]>();
  for (const instance of instances) {
    if (instance.parentId === null || !listed.has(instance.parentId)) continue;
    children.set(instance.parentId, [...(children.get(instance.parentId) ?? []), instance]);
  }
  const ordered: { instance: InstanceSummary; depth: number }[] = [];
  const visit = (instance: InstanceSummary, depth: number): void => {
    ordered.push({ instance, depth });
    for (const child of children.get(instance.instanceId) ?? []) visit(child, depth + 1);
  };
  for (const instance of instances) {
    if (instance.parentId === null || !listed.has(instance.parentId)) visit(instance, 0);
  }
  return ordered;
}
