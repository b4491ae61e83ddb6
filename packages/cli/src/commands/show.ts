import { CheckpointErrorCode } from '@thresher/checkpoint';
import type { Engine, InstanceView, UserTaskView } from '@thresher/engine';
import { commandSpec, flag, type Parsed, parseWith, text } from '../args.js';
import { defineCommand } from '../command.js';
import { formatDecisionViews } from '../decisions-report.js';
import type { TaskInfo } from '../drive.js';
import { type StoreArgs, storeFlags } from '../drive-options.js';
import { FailedError, UsageError } from '../errors.js';
import { ExitCode } from '../exit-code.js';
import { formatTable, formatVariables } from '../output.js';
import { withSession } from '../session.js';

export const showSpec = commandSpec({
  name: 'show',
  usage: 'thresher show ID [--history] [--loop-warning N] [--store URL] [--json]',
  summary:
    'show one instance: status, variables, scopes, active elements, incidents, open user tasks and the decisions it evaluated',
  positionals: [{ name: 'ID', required: true, description: 'the instance id' }],
  options: {
    history: {
      type: 'boolean',
      description: 'also list the completed elements (and, with --json, the flows taken) in order',
    },
    'loop-warning': {
      type: 'string',
      placeholder: 'N',
      description:
        'warn of an element entered more than N times in one activation of its scope (default 1000, as the engine)',
    },
    ...storeFlags.options,
  },
  examples: ['thresher show 3f0c…', 'thresher show 3f0c… --history --json'],
});

/** `thresher show`, parsed. */
export interface ShowArgs extends StoreArgs {
  id: string;
  history: boolean;
  /** The engine's `loopWarning` for this look; undefined: the engine's default. */
  loopWarning: number | undefined;
}

/** Parses `thresher show` arguments. */
export function parseShowArgs(argv: readonly string[]): Parsed<ShowArgs> {
  return parseWith(showSpec, argv, ({ values, positionals }) => {
    const loopWarning = text(values, 'loop-warning');
    if (loopWarning !== undefined && !/^[1-9]\d{0,8}$/.test(loopWarning)) {
      throw new UsageError(
        `option --loop-warning: expected a whole number of at least 1, got ${JSON.stringify(loopWarning)}`,
        showSpec.usage,
      );
    }
    return {
      id: positionals[0]!,
      history: flag(values, 'history'),
      loopWarning: loopWarning === undefined ? undefined : Number(loopWarning),
      ...storeFlags.read(values, showSpec.usage),
    };
  });
}

/**
 * The open user tasks as the instance view lists them. Not `engine.userTasks()`: that restores the
 * instance, which re-dispatches its in-flight jobs; `show` must not change what it shows.
 */
function openUserTasks(view: InstanceView): TaskInfo[] {
  return view.userTasks.map((task) => ({
    id: task.id,
    localId: task.id.slice(task.id.lastIndexOf('/') + 1),
    elementId: task.elementId,
    name: task.name,
  }));
}

function formatInstance(view: InstanceView, userTasks: TaskInfo[], history: boolean): string {
  const lines = [
    `Instance ${view.id}`,
    `  process:      ${view.processId} (${view.definitionId} version ${view.version}, ${view.digest.slice(0, 12)})`,
    `  status:       ${view.status}`,
    `  business key: ${view.businessKey ?? '(none)'}`,
    ...(view.parentId === null ? [] : [`  called by:    ${view.parentId} at ${view.callNodeId}`]),
    `  started:      ${new Date(view.startedAt).toISOString()}`,
  ];
  if (view.endedAt !== null) lines.push(`  ended:        ${new Date(view.endedAt).toISOString()}`);
  lines.push(`  checkpoint:   ${view.seq}`, 'Variables:', formatVariables(view.variables));
  const inner = Object.entries(view.scopes).filter(([path]) => path !== '/');
  for (const [path, variables] of inner) lines.push(`Scope ${path}:`, formatVariables(variables));
  if (view.activeElements.length > 0) lines.push(`Active elements: ${view.activeElements.join(', ')}`);
  if (view.calls.length > 0) {
    lines.push('Waiting on called instances:');
    for (const call of view.calls) lines.push(`  ${call.elementId} → ${call.instanceId}`);
  }
  if (userTasks.length > 0) {
    lines.push('Open user tasks:');
    for (const task of userTasks) {
      lines.push(`  ${task.elementId}${task.name ? ` "${task.name}"` : ''} [task ${task.id}]`);
      const full = view.userTasks.find((each) => each.id === task.id);
      if (full) lines.push(`    ${taskFields(full)}`);
    }
  }
  if (view.adHocSubProcesses.length > 0) {
    lines.push('Ad-hoc sub-processes:');
    for (const adHoc of view.adHocSubProcesses) {
      const can = adHoc.activatable.map((element) => element.elementId).join(', ');
      const running = adHoc.active.length > 0 ? adHoc.active.join(', ') : '(nothing)';
      lines.push(
        `  ${adHoc.elementId} [${adHoc.id}]${adHoc.done ? ' completing' : ''}: running ${running}; can activate ${can}`,
      );
    }
  }
  if (view.incidents.length > 0) {
    lines.push('Incidents:');
    for (const incident of view.incidents) {
      lines.push(`  ${incident.nodeId}: ${incident.message} [incident ${incident.id}, ${incident.kind}]`);
    }
  }
  if (view.looping.length > 0) {
    lines.push('Loop warnings (not incidents: a loop that waits each turn may be meant to run on):');
    for (const { elementId, scope, turns, threshold } of view.looping) {
      lines.push(`  ${elementId} entered ${turns} times in scope ${scope} (the warning is at ${threshold})`);
    }
  }
  lines.push(...formatDecisionViews(view.decisions));
  if (view.touchpoints && view.touchpoints.length > 0) {
    lines.push('Touchpoints:');
    const rows = view.touchpoints.map((t) => [
      String(t.index + 1),
      t.position,
      t.direction,
      t.state,
      String(t.attempts),
      t.responseS === null ? '' : `${t.responseS}s`,
    ]);
    lines.push(indent(formatTable(['#', 'POSITION', 'DIRECTION', 'STATE', 'ASKED', 'RESPONSE'], rows)));
  }
  if (history) {
    lines.push('History:');
    const rows = view.history.map((entry, index) => [String(index + 1), entry.node, entry.scope, entry.track]);
    lines.push(rows.length === 0 ? '  (none)' : indent(formatTable(['#', 'ELEMENT', 'SCOPE', 'TRACK'], rows)));
  }
  return lines.join('\n');
}

/** A user task's fields as `show` prints them: its state, assignee, candidates, dates and priority. */
function taskFields(task: UserTaskView): string {
  const parts = [`state ${task.state}`, `assignee ${task.assignee ?? '(none)'}`, `priority ${task.priority}`];
  if (task.candidateGroups.length > 0) parts.push(`groups ${task.candidateGroups.join(', ')}`);
  if (task.candidateUsers.length > 0) parts.push(`users ${task.candidateUsers.join(', ')}`);
  if (task.dueDate) parts.push(`due ${task.dueDate}`);
  if (task.followUpDate) parts.push(`follow-up ${task.followUpDate}`);
  return parts.join('; ');
}

function indent(table: string): string {
  return table
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n');
}

/** A head that does not open, named, with the checkpoint an operator can roll back to; other errors as they are. */
async function unreadableHead(engine: Engine, id: string, error: unknown): Promise<unknown> {
  const code = (error as { code?: unknown } | null)?.code;
  const unreadable: unknown[] = [
    CheckpointErrorCode.Corrupt,
    CheckpointErrorCode.CorruptLog,
    CheckpointErrorCode.FutureSchema,
  ];
  if (!unreadable.includes(code)) return error;
  const good = await engine.latestGoodSeq(id);
  const way =
    good === undefined
      ? 'no checkpoint of it opens'
      : `the latest checkpoint that opens is seq ${good}: thresher rollback ${id} --to ${good}`;
  return new FailedError(`${(error as Error).message}; ${way}`, { cause: error });
}

/** `thresher show ID`: one instance as its latest checkpoint says. */
export const showCommand = defineCommand(showSpec, parseShowArgs, async (args, { io, out }) => {
  const options = {
    store: args.store,
    handlers: undefined,
    create: false,
    usage: showSpec.usage,
    ...(args.loopWarning === undefined ? {} : { loopWarning: args.loopWarning }),
  };
  return withSession(io, out, options, async (session) => {
    const view = await session.engine.instance(args.id).catch(async (error: unknown) => {
      throw await unreadableHead(session.engine, args.id, error);
    });
    if (!view) throw new FailedError(`no instance ${args.id}`);
    const userTasks = openUserTasks(view);
    const { history, flows, ...rest } = view;
    out.document({ ...rest, userTasks, ...(args.history ? { history, flows } : {}) });
    out.print(formatInstance(view, userTasks, args.history));
    return ExitCode.Ok;
  });
});
