import type { Variables } from '@thresher/checkpoint';
import type { AdHocView } from '@thresher/engine';
import { commandSpec, type Parsed, parseWith } from '../args.js';
import { defineCommand } from '../command.js';
import { drive, exitCodeOf } from '../drive.js';
import { type DriveArgs, driveFlags, variablesFlag } from '../drive-options.js';
import { FailedError } from '../errors.js';
import { formatOutcome } from '../report.js';
import { withSession } from '../session.js';

const variables = variablesFlag();

export const activateSpec = commandSpec({
  name: 'activate',
  usage:
    'thresher activate ID AD_HOC ELEMENT... [--var k=v]... [--handlers MODULE] [--store URL] [--wait-timers DURATION] [--json]',
  summary: 'activate elements of a running ad-hoc sub-process, then drive the instance until it ends or parks again',
  positionals: [
    { name: 'ID', required: true, description: 'the instance id' },
    { name: 'AD_HOC', required: true, description: 'the ad-hoc sub-process: its element id, or its id (ID/t4)' },
    {
      name: 'ELEMENT',
      required: true,
      variadic: true,
      description: 'an element to activate (one without incoming flows); each runs in an activation of its own',
    },
  ],
  options: { ...variables.options, ...driveFlags.options },
  examples: ['thresher activate 3f0c… respond fix status-update --var attempt=1 --handlers handlers.mjs'],
});

const usage = activateSpec.usage;

/** `thresher activate`, parsed. */
export interface ActivateArgs extends DriveArgs {
  id: string;
  adHoc: string;
  elements: string[];
  /** Each activation's local variables. */
  variables: Variables;
}

/** Parses `thresher activate` arguments. */
export function parseActivateArgs(argv: readonly string[]): Parsed<ActivateArgs> {
  return parseWith(activateSpec, argv, ({ values, positionals }) => ({
    id: positionals[0]!,
    adHoc: positionals[1]!,
    elements: positionals.slice(2),
    ...variables.read(values, usage),
    ...driveFlags.read(values, usage),
  }));
}

/** The running ad-hoc sub-process AD_HOC names: its id (full or local) or its element id, when one runs. */
function resolveAdHoc(instanceId: string, running: readonly AdHocView[], adHoc: string): AdHocView {
  const byId = running.find((each) => each.id === adHoc || each.id === `${instanceId}/${adHoc}`);
  if (byId) return byId;
  const byElement = running.filter((each) => each.elementId === adHoc);
  if (byElement.length === 1) return byElement[0]!;
  const list = running.map((each) => `${each.elementId} [${each.id}]`).join(', ') || 'none';
  if (byElement.length > 1) {
    throw new FailedError(`${byElement.length} ad-hoc sub-processes ${adHoc} run; name one by id: ${list}`);
  }
  throw new FailedError(`instance ${instanceId} has no running ad-hoc sub-process "${adHoc}"; running: ${list}`);
}

/** `thresher activate ID AD_HOC ELEMENT...`: activate the elements, then drive the instance without prompting. */
export const activateCommand = defineCommand(activateSpec, parseActivateArgs, async (args, { io, out }) => {
  const options = { store: args.store, handlers: args.handlers, create: false, usage };
  return withSession(io, out, options, async (session) => {
    const { engine } = session;
    const view = await engine.instance(args.id);
    if (!view) throw new FailedError(`no instance ${args.id}`);
    const adHoc = resolveAdHoc(args.id, view.adHocSubProcesses, args.adHoc);
    await engine.activateAdHocElements(
      adHoc.id,
      args.elements.map((elementId) => ({ elementId, variables: args.variables })),
    );
    out.progress(`[${args.id.slice(0, 8)}] ${adHoc.elementId}: activated ${args.elements.join(', ')}`);
    const outcome = await drive(session, args.id, io.isTTY ? 'prompt' : 'park', {
      waitTimers: args.waitTimers,
      brief: true,
    });
    out.print(formatOutcome(outcome, session));
    out.document({ ...outcome, activated: args.elements });
    return exitCodeOf(outcome);
  });
});
