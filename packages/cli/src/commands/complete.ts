import type { Variables } from '@thresher/checkpoint';
import { EngineError, EngineErrorCode, type UserTaskView } from '@thresher/engine';
import { commandSpec, type Parsed, parseWith } from '../args.js';
import { defineCommand } from '../command.js';
import { drive, exitCodeOf } from '../drive.js';
import { type DriveArgs, driveFlags, variablesFlag } from '../drive-options.js';
import { FailedError, UsageError } from '../errors.js';
import { formatOutcome } from '../report.js';
import { withSession } from '../session.js';

const variables = variablesFlag();

export const completeSpec = commandSpec({
  name: 'complete',
  usage: 'thresher complete ID TASK [--var k=v]... [--handlers MODULE] [--store URL] [--wait-timers DURATION] [--json]',
  summary: 'complete an open user task, then drive the instance until it ends or parks again',
  positionals: [
    { name: 'ID', required: true, description: 'the instance id' },
    {
      name: 'TASK',
      required: true,
      description: 'the user task: its id (ID/u7 or u7) or its element id (approve-order)',
    },
  ],
  options: { ...variables.options, ...driveFlags.options },
  examples: ['thresher complete 3f0c… approve-order --var approved=true --handlers handlers.mjs'],
});

const usage = completeSpec.usage;

/** `thresher complete`, parsed. */
export interface CompleteArgs extends DriveArgs {
  id: string;
  task: string;
  variables: Variables;
}

/** Parses `thresher complete` arguments. */
export function parseCompleteArgs(argv: readonly string[]): Parsed<CompleteArgs> {
  return parseWith(completeSpec, argv, ({ values, positionals }) => ({
    id: positionals[0]!,
    task: positionals[1]!,
    ...variables.read(values, usage),
    ...driveFlags.read(values, usage),
  }));
}

/**
 * Finds the task TASK names among an instance's open user tasks: its full id (`<instance>/u7`), its
 * local id (`u7`) or its element id (`approve-order`, when only one task of that element is open).
 */
export function resolveTask(instanceId: string, open: readonly UserTaskView[], task: string): UserTaskView {
  const byId = open.find((candidate) => candidate.id === task || candidate.id === `${instanceId}/${task}`);
  if (byId) return byId;
  const byElement = open.filter((candidate) => candidate.elementId === task);
  if (byElement.length === 1) return byElement[0]!;
  if (byElement.length > 1) {
    throw new UsageError(
      `${byElement.length} user tasks of element ${task} are open; name one by id: ${byElement.map((candidate) => candidate.id).join(', ')}`,
      usage,
    );
  }
  const list = open.map((candidate) => `${candidate.elementId} [${candidate.id}]`).join(', ');
  throw new FailedError(`instance ${instanceId} has no open user task "${task}"; open: ${list || 'none'}`);
}

const isNotFound = (error: unknown): boolean => EngineError.is(error) && error.code === EngineErrorCode.NotFound;

/** `thresher complete ID TASK`: complete a user task, then drive the instance without prompting. */
export const completeCommand = defineCommand(completeSpec, parseCompleteArgs, async (args, { io, out }) => {
  const options = { store: args.store, handlers: args.handlers, create: false, usage };
  return withSession(io, out, options, async (session) => {
    const { engine } = session;
    let open: UserTaskView[];
    try {
      open = await engine.userTasks({ instanceId: args.id });
    } catch (error) {
      if (isNotFound(error)) throw new FailedError(`no instance ${args.id}`, { cause: error });
      throw error;
    }
    if (open.length === 0) {
      const view = await engine.instance(args.id);
      throw new FailedError(`instance ${args.id} is ${view?.status ?? 'gone'} and has no open user task to complete`);
    }
    const task = resolveTask(args.id, open, args.task);
    await engine.completeUserTask(task.id, args.variables);
    out.progress(`[${args.id.slice(0, 8)}] ${task.elementId}: completed task ${task.id}`);
    const outcome = await drive(
      session,
      args.id,
      io.isTTY ? 'prompt' : 'park',
      // On a terminal the person is briefed on what is left and asked the next user tasks; else it parks.
      { waitTimers: args.waitTimers, brief: true },
    );
    out.print(formatOutcome(outcome, session));
    out.document({ ...outcome, completedTask: task.id });
    return exitCodeOf(outcome);
  });
});
