import { EngineError, EngineErrorCode, type InstanceView } from '@thresher/engine';
import { commandSpec, type Parsed, parseWith } from '../args.js';
import { defineCommand } from '../command.js';
import { drive, exitCodeOf } from '../drive.js';
import { type DriveArgs, driveFlags, variablesFlag } from '../drive-options.js';
import { FailedError, UsageError } from '../errors.js';
import { formatOutcome } from '../report.js';
import { withSession } from '../session.js';

const variables = variablesFlag('variables set in the instance’s root scope before the activations (JSON or text)');

export const modifySpec = commandSpec({
  name: 'modify',
  usage:
    'thresher modify ID [--activate ELEMENT[@ANCESTOR]]... [--terminate ELEMENT|ELEMENT_INSTANCE]... [--var k=v]... [--handlers MODULE] [--store URL] [--wait-timers DURATION] [--json]',
  summary: 'repair a running instance: activate elements and terminate element instances in one step, then drive it',
  positionals: [{ name: 'ID', required: true, description: 'the instance id' }],
  options: {
    activate: {
      type: 'string',
      multiple: true,
      placeholder: 'ELEMENT[@ANCESTOR]',
      description:
        'activate ELEMENT in its flow scope (created when missing); @ANCESTOR names the container’s element instance (thresher show lists them) when several are active',
    },
    terminate: {
      type: 'string',
      multiple: true,
      placeholder: 'ELEMENT|ELEMENT_INSTANCE',
      description: 'terminate an element instance (<scope>:<element>:<attempt>), or every active instance of ELEMENT',
    },
    ...variables.options,
    ...driveFlags.options,
  },
  examples: [
    'thresher modify 3f0c… --terminate await-carrier --activate label',
    'thresher modify 3f0c… --activate review@/:sub:1 --var fixed=true',
  ],
});

const usage = modifySpec.usage;

/** `thresher modify`, parsed. */
export interface ModifyArgs extends DriveArgs {
  id: string;
  activate: { elementId: string; ancestor: string | undefined }[];
  terminate: string[];
  variables: Record<string, unknown>;
}

export function parseModifyArgs(argv: readonly string[]): Parsed<ModifyArgs> {
  return parseWith(modifySpec, argv, ({ values, positionals }) => {
    const activate = ((values.activate as string[] | undefined) ?? []).map((text) => {
      const at = text.indexOf('@');
      const elementId = at < 0 ? text : text.slice(0, at);
      if (elementId === '' || at === text.length - 1) {
        throw new UsageError(`--activate ${JSON.stringify(text)}: expected ELEMENT or ELEMENT@ANCESTOR`, usage);
      }
      return { elementId, ancestor: at < 0 ? undefined : text.slice(at + 1) };
    });
    const terminate = (values.terminate as string[] | undefined) ?? [];
    if (activate.length === 0 && terminate.length === 0) {
      throw new UsageError('give --activate ELEMENT or --terminate ELEMENT (or both)', usage);
    }
    return {
      id: positionals[0]!,
      activate,
      terminate,
      ...variables.read(values, usage),
      ...driveFlags.read(values, usage),
    };
  });
}

/** The element instances `--terminate` names: an activation's id, or every live one of an element. */
export function terminations(view: InstanceView, named: readonly string[]): string[] {
  return named.flatMap((name) => {
    const found = view.elementInstances.filter((one) => one.id === name || one.elementId === name);
    if (found.length > 0) return found.map((one) => one.id);
    const live = view.elementInstances.map((one) => `${one.elementId} [${one.id}]`).join(', ');
    throw new FailedError(`instance ${view.id} has no active "${name}" to terminate; active: ${live || 'nothing'}`);
  });
}

/** `thresher modify ID`: one modification, then drive the instance as `complete` does. */
export const modifyCommand = defineCommand(modifySpec, parseModifyArgs, async (args, { io, out }) => {
  const options = { store: args.store, handlers: args.handlers, create: false, usage };
  return withSession(io, out, options, async (session) => {
    const { engine } = session;
    const view = await engine.instance(args.id);
    if (view === undefined) throw new FailedError(`no instance ${args.id}`);
    if (view.status !== 'running') throw new FailedError(`instance ${args.id} has ${view.status}: nothing to modify`);
    const terminate = terminations(view, args.terminate);
    const rooted = Object.keys(args.variables).length > 0 ? [{ variables: args.variables }] : [];
    const activate = args.activate.map(({ elementId, ancestor }, n) => ({
      elementId,
      ...(ancestor === undefined ? {} : { ancestorElementInstanceId: ancestor }),
      variables: n === 0 ? rooted : [],
    }));
    try {
      await engine.modifyInstance(args.id, { activate, terminate });
    } catch (error) {
      if (EngineError.is(error) && error.code === EngineErrorCode.InvalidArgument) {
        throw new FailedError(error.message.replace(/^THRESHER_INVALID_ARGUMENT: /, ''), { cause: error });
      }
      throw error;
    }
    const said = [...terminate.map((id) => `terminated ${id}`), ...activate.map((one) => `activated ${one.elementId}`)];
    out.progress(`[${args.id.slice(0, 8)}] modified: ${said.join(', ')}`);
    const outcome = await drive(session, args.id, io.isTTY ? 'prompt' : 'park', {
      waitTimers: args.waitTimers,
      brief: true,
    });
    out.print(formatOutcome(outcome, session));
    out.document({ ...outcome, modified: { activated: activate.map((one) => one.elementId), terminated: terminate } });
    return exitCodeOf(outcome);
  });
});
