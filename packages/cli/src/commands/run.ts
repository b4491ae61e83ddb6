import type { Variables } from '@thresher/checkpoint';
import { compile, timerStartInstancePrefix } from '@thresher/engine';
import { commandSpec, type Parsed, parseWith, text } from '../args.js';
import { defineCommand } from '../command.js';
import { drive, exitCodeOf } from '../drive.js';
import { type AnswerArgs, answerFlags, variablesFlag } from '../drive-options.js';
import { FailedError, UsageError } from '../errors.js';
import { ExitCode } from '../exit-code.js';
import { formatModelError, isModelError, modelErrorDocument, readBpmn } from '../model-report.js';
import { formatOutcome } from '../report.js';
import { type Session, withSession } from '../session.js';

const variables = variablesFlag();

export const runSpec = commandSpec({
  name: 'run',
  usage:
    'thresher run FILE.bpmn [--process ID] [--var k=v]... [--business-key KEY] [--handlers MODULE] [--store URL] [--yes] [--wait-timers DURATION] [--json]',
  summary: 'deploy a BPMN file, start an instance and drive it until it ends or parks',
  positionals: [{ name: 'FILE.bpmn', required: true, description: 'the BPMN 2.0 file to deploy and start' }],
  options: {
    process: { type: 'string', placeholder: 'ID', description: 'the process to start when the file has several' },
    ...variables.options,
    'business-key': { type: 'string', placeholder: 'KEY', description: 'the business key of the new instance' },
    ...answerFlags.options,
  },
  examples: [
    'thresher run order.bpmn --handlers handlers.mjs --var total=120 --var express=true',
    `echo '{"approved":true}' | thresher run order.bpmn --handlers handlers.mjs --json`,
    'thresher run order.bpmn --handlers handlers.mjs --yes --store memory:',
  ],
});

const usage = runSpec.usage;

/** `thresher run`, parsed; `variables` already read from `--var`. */
export interface RunArgs extends AnswerArgs {
  file: string;
  process: string | undefined;
  variables: Variables;
  businessKey: string | undefined;
}

/** Parses `thresher run` arguments (after the command name). */
export function parseRunArgs(argv: readonly string[]): Parsed<RunArgs> {
  return parseWith(runSpec, argv, ({ values, positionals }) => ({
    file: positionals[0]!,
    process: text(values, 'process'),
    ...variables.read(values, usage),
    businessKey: text(values, 'business-key'),
    ...answerFlags.read(values, usage),
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
async function scheduledByTimer(
  session: Session,
  xml: string,
  processId: string,
  digest: string,
): Promise<string | undefined> {
  const process = (await compile(xml)).processes.get(processId);
  if (!process || process.startNodes.length > 0) return undefined;
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

/** `thresher run FILE.bpmn …`: deploy, start, drive until the instance ends or parks. */
export const runCommand = defineCommand(runSpec, parseRunArgs, async (args, { io, out }) => {
  const xml = await readBpmn(args.file, io.cwd, usage);
  return withSession(io, out, { store: args.store, handlers: args.handlers, create: true, usage }, async (session) => {
    const { engine } = session;
    let deployment: Awaited<ReturnType<typeof engine.deploy>>;
    try {
      deployment = await engine.deploy(xml);
    } catch (error) {
      if (!isModelError(error)) throw error;
      out.error(formatModelError(error, args.file));
      out.document(modelErrorDocument(error, args.file));
      return ExitCode.Failed;
    }
    out.progress(
      `deployed ${deployment.definitionId} version ${deployment.version} (${deployment.digest.slice(0, 12)})`,
    );
    const processId = pickProcess(deployment.processes, args.process, args.file);
    const instanceId =
      (await scheduledByTimer(session, xml, processId, deployment.digest)) ??
      (await engine.start(processId, {
        variables: args.variables,
        digest: deployment.digest,
        ...(args.businessKey !== undefined ? { businessKey: args.businessKey } : {}),
      }));
    // --yes wins over a terminal: asking for it means "do not ask me".
    const outcome = await drive(session, instanceId, args.yes ? 'yes' : io.isTTY ? 'prompt' : 'stdin', {
      waitTimers: args.waitTimers,
    });
    out.print(formatOutcome(outcome, session));
    out.document({ ...outcome, deployment });
    return exitCodeOf(outcome);
  });
});
