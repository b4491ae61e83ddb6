import type { Variables } from '@thresher/checkpoint';
import { type DeployResult, type Handlers, type LiveTouchpoint, timerStartInstancePrefix } from '@thresher/engine';
import type { ProcessDef } from '@thresher/engine/model';
import { commandSpec, flag, type Parsed, parseWith, text } from '../args.js';
import { defineCommand } from '../command.js';
import { drive, exitCodeOf } from '../drive.js';
import { type AnswerArgs, answerFlags, otelOption, variablesFlag } from '../drive-options.js';
import { FailedError, UsageError } from '../errors.js';
import { ExitCode } from '../exit-code.js';
import { missingHandlers, missingHandlersRefusal, missingHandlersWarning } from '../handler-check.js';
import { deployOrder, readModelFiles } from '../model-files.js';
import { formatModelError, modelErrorDocument } from '../model-report.js';
import { createTerminalOperator, type TerminalOperator } from '../operator/terminal-operator.js';
import { formatOutcome } from '../report.js';
import { type Session, withSession } from '../session.js';

const variables = variablesFlag();

export const runSpec = commandSpec({
  name: 'run',
  usage:
    'thresher run FILE.bpmn [MORE.bpmn|RULES.dmn]... [--process ID] [--var k=v]... [--business-key KEY] [--handlers MODULE] [--allow-missing-handlers] [--store URL] [--yes] [--choose ELEMENT=OPTION]... [--wait-timers DURATION] [--otel] [--json]',
  summary:
    'deploy a BPMN file (with the BPMN and DMN files it uses), start an instance and drive it until it ends or parks',
  positionals: [
    {
      name: 'FILE',
      required: true,
      variadic: true,
      description:
        'the BPMN 2.0 file whose process starts, then any files it needs: BPMN files of the processes it calls, DMN files of the decisions its business rule tasks evaluate (all deployed first)',
    },
  ],
  options: {
    process: {
      type: 'string',
      placeholder: 'ID',
      description: 'the process to start when the first BPMN file has several',
    },
    ...variables.options,
    'business-key': { type: 'string', placeholder: 'KEY', description: 'the business key of the new instance' },
    // Listed right after --handlers, as in the usage line; the spread below keeps that order.
    handlers: answerFlags.options.handlers!,
    'allow-missing-handlers': {
      type: 'boolean',
      description:
        'start even when MODULE has no handler for some task type of the process (refused otherwise, exit 2); a warning names them',
    },
    ...answerFlags.options,
    otel: otelOption,
  },
  examples: [
    'thresher run order.bpmn --handlers handlers.mjs --var total=120 --var express=true',
    `echo '{"approved":true}' | thresher run order.bpmn --handlers handlers.mjs --json`,
    'thresher run order.bpmn --handlers handlers.mjs --yes --store memory:',
    'thresher run order.bpmn --handlers handlers.mjs --choose approve=yes --choose ship=2',
    'thresher run order.bpmn rules.dmn shipping.bpmn --handlers handlers.mjs --var total=120',
  ],
});

const usage = runSpec.usage;

/** `thresher run`, parsed; `variables` already read from `--var`. */
export interface RunArgs extends AnswerArgs {
  /** The BPMN file whose process starts. */
  file: string;
  /** Every file named, in order: the first BPMN file and the BPMN and DMN files it needs. */
  files: string[];
  process: string | undefined;
  variables: Variables;
  businessKey: string | undefined;
  /** `--allow-missing-handlers`: start although a task type of the process has no handler. */
  allowMissingHandlers: boolean;
  /** `--otel`: export traces and metrics over OTLP. */
  otel: boolean;
}

/** Parses `thresher run` arguments (after the command name). */
export function parseRunArgs(argv: readonly string[]): Parsed<RunArgs> {
  return parseWith(runSpec, argv, ({ values, positionals }) => ({
    file: positionals[0]!,
    files: positionals,
    process: text(values, 'process'),
    ...variables.read(values, usage),
    businessKey: text(values, 'business-key'),
    ...answerFlags.read(values, usage),
    allowMissingHandlers: flag(values, 'allow-missing-handlers'),
    otel: flag(values, 'otel'),
  }));
}

/** The process to start: `--process`, else the file's only executable process. */
export function pickProcess(processes: readonly string[], requested: string | undefined, file: string): string {
  if (requested !== undefined) {
    if (processes.includes(requested)) return requested;
    throw new UsageError(
      `--process ${requested}: ${file} has no executable process "${requested}"; it has ${processes.join(', ') || 'none'}`,
      usage,
    );
  }
  const [only, ...others] = processes;
  if (only === undefined) {
    throw new FailedError(`${file} has no executable process; mark the process to run with isExecutable="true"`);
  }
  if (others.length > 0) {
    throw new UsageError(
      `${file} has several executable processes; choose one with --process: ${processes.join(', ')}`,
      usage,
    );
  }
  return only;
}

/**
 * A process with no none start event cannot be started by hand: one with a timer start event already
 * waits at it (the deploy scheduled it) and is the instance to drive; one started by a message or a
 * signal is a usage error saying which command starts it.
 */
async function scheduledByTimer(session: Session, process: ProcessDef, digest: string): Promise<string | undefined> {
  if (process.startNodes.length > 0) return undefined;
  const processId = process.id;
  const starts = (process.eventStartNodes ?? []).map((id) => process.nodes.get(id));
  const running = (await session.engine.instances({ status: 'running' })).map((summary) => summary.instanceId);
  for (const start of starts) {
    if (start?.type !== 'startEvent' || start.event?.kind !== 'timer') continue;
    const prefix = timerStartInstancePrefix(digest, start.id);
    const waiting = running.filter((id) => id.startsWith(prefix)).sort();
    if (waiting[0]) return waiting[0];
  }
  const how = starts
    .map((start) => {
      const event = start?.type === 'startEvent' ? start.event : undefined;
      if (event?.kind !== 'message' && event?.kind !== 'signal') return null;
      let name = event.name.source;
      try {
        const literal: unknown = JSON.parse(name);
        if (typeof literal === 'string') name = literal;
      } catch {
        // a FEEL name: shown as written
      }
      return event.kind === 'message' ? `thresher send ${name}` : `thresher signal ${name}`;
    })
    .filter((command): command is string => command !== null);
  throw new UsageError(
    `process ${processId} has no none start event; it starts by its events${how.length > 0 ? `: ${how.join(' or ')}` : ''}`,
    usage,
  );
}

/**
 * Refuses a `--handlers` module that misses a task type of the process (a usage error naming the types
 * and their elements), or with `--allow-missing-handlers` warns of them and lets the run start. Without
 * `--handlers` nothing is checked: each job stops at an incident naming its type.
 */
function handlerCheck(
  args: RunArgs,
  process: ProcessDef,
  processes: ReadonlyMap<string, ProcessDef>,
  warn: (line: string) => void,
): ((handlers: Handlers) => void) | undefined {
  const module = args.handlers;
  if (module === undefined) return undefined;
  return (handlers) => {
    const missing = missingHandlers(process, handlers, processes);
    if (missing.length === 0) return;
    if (!args.allowMissingHandlers) {
      throw new UsageError(missingHandlersRefusal(missing, process.id, module, handlers), usage);
    }
    warn(missingHandlersWarning(missing));
  };
}

/**
 * On a terminal, the briefing of the process's touchpoints before anything starts; true when approved or
 * when there is nothing to approve (no touchpoints: a run that needs nobody asks nothing).
 */
async function approvePlan(
  session: Session,
  operator: TerminalOperator,
  processId: string,
  digest: string,
): Promise<{ approved: boolean; touchpoints: LiveTouchpoint[] }> {
  const touchpoints = await session.engine.plannedTouchpoints(processId, digest);
  if (touchpoints.length === 0) return { approved: true, touchpoints };
  return { approved: (await operator.brief(touchpoints)) === 'approved', touchpoints };
}

/**
 * Refuses a `--choose` for an element that is no user task of the file (a typo would otherwise leave the
 * task to be asked, or parked, as if the flag were not there). Whether its value names an option is
 * known only once the task is asked.
 */
function checkChoose(
  choose: ReadonlyMap<string, string>,
  processes: ReadonlyMap<string, ProcessDef>,
  file: string,
): void {
  const userTasks = new Set(
    [...processes.values()].flatMap((process) =>
      [...process.nodes.values()].filter((node) => node.type === 'userTask').map((node) => node.id),
    ),
  );
  for (const element of choose.keys()) {
    if (userTasks.has(element)) continue;
    const known = [...userTasks].join(', ') || 'none';
    throw new UsageError(`--choose ${element}=…: ${file} has no user task ${element}; its user tasks: ${known}`, usage);
  }
}

/** What `run` says when the briefing was not approved: nothing started, and how to approve next time. */
const NOT_APPROVED =
  'Not approved: nothing was started. Run it again and answer y, or approve without asking with THRESHER_YES=1 ' +
  '(--yes approves too, and completes user tasks no --choose answers with no variables).';

/**
 * `thresher run FILE.bpmn [MORE.bpmn|RULES.dmn]… …`: read and check every file, check the handlers, deploy
 * them all, brief the operator (on a terminal),
 * start, drive until the instance ends or parks.
 */
export const runCommand = defineCommand(runSpec, parseRunArgs, async (args, { io, out }) => {
  // Read and checked before the store is opened: an invalid model, a wrong --process or a missing
  // handler touches nothing.
  const read = await readModelFiles(args.files, io.cwd, usage);
  if (!read.ok) {
    out.error(formatModelError(read.refused.error, read.refused.file));
    out.document(modelErrorDocument(read.refused.error, read.refused.file));
    return ExitCode.Failed;
  }
  const bpmn = read.files.filter((file) => file.kind === 'bpmn');
  const main = bpmn[0];
  if (main === undefined)
    throw new UsageError(`no BPMN file among ${args.files.join(', ')}: there is no process to start`, usage);
  const model = main.model;
  // What the models say that Thresher will not do is said before it runs, in both output modes.
  for (const warning of bpmn.flatMap((file) => file.model.warnings)) {
    out.warn(`warning: ${warning.elementId ? `${warning.elementId}: ` : ''}${warning.message}`, {
      elementId: warning.elementId ?? undefined,
    });
  }
  const processes = new Map(bpmn.flatMap((file) => [...file.model.processes]));
  const executable = [...model.processes.values()].filter((process) => process.executable).map((p) => p.id);
  const process = model.processes.get(pickProcess(executable, args.process, main.file))!;
  checkChoose(args.choose, processes, args.files.join(', '));
  const checkHandlers = handlerCheck(args, process, processes, (line) => out.error(line));
  const options = {
    store: args.store,
    handlers: args.handlers,
    create: true,
    usage,
    otel: args.otel,
    ...(checkHandlers ? { checkHandlers } : {}),
  };
  return withSession(io, out, options, async (session) => {
    const { engine } = session;
    // One deployment of every file, as Zeebe deploys resources together: bindingType="deployment" reads it.
    const deployments: DeployResult[] = await engine.deployTogether(deployOrder(read.files).map((file) => file.xml));
    for (const deployed of deployments) {
      out.progress(
        `deployed ${deployed.kind === 'dmn' ? 'decisions ' : ''}${deployed.definitionId} version ${deployed.version} (${deployed.digest.slice(0, 12)})`,
      );
    }
    // The first BPMN file is deployed last: the last deployment is the one whose process starts.
    const deployment = deployments.at(-1)!;
    const scheduled = await scheduledByTimer(session, process, deployment.digest);
    // Only a person at a terminal is briefed; without one, answers come from --yes, --choose or stdin.
    const operator = io.isTTY ? createTerminalOperator(session, args.yes) : undefined;
    if (operator) {
      const plan = await approvePlan(session, operator, process.id, deployment.digest);
      if (!plan.approved) {
        out.print(NOT_APPROVED);
        out.document({ status: 'declined', processId: process.id, touchpoints: plan.touchpoints, deployment });
        return ExitCode.NotApproved;
      }
    }
    const instanceId =
      scheduled ??
      (await engine.start(process.id, {
        variables: args.variables,
        digest: deployment.digest,
        ...(args.businessKey !== undefined ? { businessKey: args.businessKey } : {}),
      }));
    // --yes wins over a terminal: asking for it means "do not ask me" (a --choose still answers its task).
    const outcome = await drive(session, instanceId, args.yes ? 'yes' : io.isTTY ? 'prompt' : 'stdin', {
      waitTimers: args.waitTimers,
      choose: args.choose,
      ...(operator ? { operator } : {}),
    });
    out.print(formatOutcome(outcome, session));
    out.document({ ...outcome, deployment });
    return exitCodeOf(outcome);
  });
});
