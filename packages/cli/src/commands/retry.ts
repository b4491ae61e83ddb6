import type { IncidentRecord } from '@thresher/checkpoint';
import { EngineError, EngineErrorCode, type SettledState } from '@thresher/engine';
import { commandSpec, type Parsed, parseWith } from '../args.js';
import { defineCommand } from '../command.js';
import { drive, exitCodeOf } from '../drive.js';
import { type AnswerArgs, answerFlags } from '../drive-options.js';
import { FailedError } from '../errors.js';
import { formatOutcome } from '../report.js';
import { withSession } from '../session.js';

export const retrySpec = commandSpec({
  name: 'retry',
  usage:
    'thresher retry ID [INCIDENT] [--handlers MODULE] [--store URL] [--yes] [--choose ELEMENT=OPTION]... [--wait-timers DURATION] [--json]',
  summary: 'resolve an instance’s incidents (or one) and drive it again; failed jobs get fresh retries',
  positionals: [
    { name: 'ID', required: true, description: 'the instance id' },
    {
      name: 'INCIDENT',
      required: false,
      description: 'one incident: its id (ID/i4 or i4) or its element id; default every incident',
    },
  ],
  options: answerFlags.options,
  examples: ['thresher retry 3f0c… --handlers handlers.mjs'],
});

/** `thresher retry`, parsed. */
export interface RetryArgs extends AnswerArgs {
  id: string;
  incident: string | undefined;
}

/** Parses `thresher retry` arguments. */
export function parseRetryArgs(argv: readonly string[]): Parsed<RetryArgs> {
  return parseWith(retrySpec, argv, ({ values, positionals }) => ({
    id: positionals[0]!,
    incident: positionals[1],
    ...answerFlags.read(values, retrySpec.usage),
  }));
}

/** The incidents INCIDENT names: its full id, its local id or its element; all when it is undefined. */
export function selectIncidents(
  instanceId: string,
  incidents: readonly IncidentRecord[],
  incident: string | undefined,
): IncidentRecord[] {
  if (incident === undefined) return [...incidents];
  const chosen = incidents.filter(
    (candidate) =>
      candidate.id === incident || candidate.id === `${instanceId}/${incident}` || candidate.nodeId === incident,
  );
  if (chosen.length === 0) {
    const list = incidents.map((candidate) => `${candidate.nodeId} [${candidate.id}]`).join(', ');
    throw new FailedError(`instance ${instanceId} has no incident "${incident}"; its incidents: ${list || 'none'}`);
  }
  return chosen;
}

/** `thresher retry ID [INCIDENT]`: resolve incidents (failed jobs get fresh retries) and drive on. */
export const retryCommand = defineCommand(retrySpec, parseRetryArgs, async (args, { io, out }) => {
  const options = { store: args.store, handlers: args.handlers, create: false, usage: retrySpec.usage };
  return withSession(io, out, options, async (session) => {
    const { engine } = session;
    let state: SettledState;
    try {
      state = await engine.settled(args.id, { retries: 'wait' });
    } catch (error) {
      if (EngineError.is(error) && error.code === EngineErrorCode.NotFound) {
        throw new FailedError(`no instance ${args.id}`, { cause: error });
      }
      throw error;
    }
    const incidents = state.status === 'waiting' ? selectIncidents(args.id, state.incidents, args.incident) : [];
    if (incidents.length === 0) out.progress(`[${args.id.slice(0, 8)}] no incidents to retry`);
    for (const incident of incidents) {
      await engine.retryIncident(incident.id);
      out.progress(`[${args.id.slice(0, 8)}] ${incident.nodeId}: retrying incident ${incident.id}`);
    }
    const outcome = await drive(session, args.id, args.yes ? 'yes' : io.isTTY ? 'prompt' : 'park', {
      waitTimers: args.waitTimers,
      choose: args.choose,
    });
    out.print(formatOutcome(outcome, session));
    out.document({ ...outcome, retried: incidents.map((incident) => incident.id) });
    return exitCodeOf(outcome);
  });
});
