import { type Deployment, deploymentKind, type Engine, EngineError, EngineErrorCode } from '@thresher/engine';
import { compile } from '@thresher/engine/model';
import { commandSpec, type Parsed, parseWith } from '../args.js';
import { defineCommand } from '../command.js';
import { drive, exitCodeOf } from '../drive.js';
import { type DriveArgs, driveFlags } from '../drive-options.js';
import { FailedError, UsageError } from '../errors.js';
import { readPairs, readTarget } from '../repair-flags.js';
import { formatOutcome } from '../report.js';
import { withSession } from '../session.js';

export const migrateInstanceSpec = commandSpec({
  name: 'migrate-instance',
  usage:
    'thresher migrate-instance ID --to PROCESS[:VERSION] --map SOURCE=TARGET... [--handlers MODULE] [--store URL] [--wait-timers DURATION] [--json]',
  summary: 'move a running instance onto another version of its process, each active element mapped, then drive it',
  positionals: [{ name: 'ID', required: true, description: 'the instance id' }],
  options: {
    to: {
      type: 'string',
      placeholder: 'PROCESS[:VERSION]',
      description: 'the process to migrate onto, at the version of the file deployed (default: the latest)',
    },
    map: {
      type: 'string',
      multiple: true,
      placeholder: 'SOURCE=TARGET',
      description: 'an active element (or a boundary event to keep) mapped to its element in the target',
    },
    ...driveFlags.options,
  },
  examples: ['thresher migrate-instance 3f0c… --to order:2 --map review=review --map remind=remind'],
});

const usage = migrateInstanceSpec.usage;

/** `thresher migrate-instance`, parsed. */
export interface MigrateInstanceArgs extends DriveArgs {
  id: string;
  processId: string;
  version: number | undefined;
  mapping: { sourceElementId: string; targetElementId: string }[];
}

export function parseMigrateInstanceArgs(argv: readonly string[]): Parsed<MigrateInstanceArgs> {
  return parseWith(migrateInstanceSpec, argv, ({ values, positionals }) => {
    const to = readTarget(values.to as string | undefined, usage);
    if (to === undefined) throw new UsageError('--to is missing: expected PROCESS or PROCESS:VERSION', usage);
    const mapping = readPairs(values.map as string[] | undefined, '--map', usage);
    return {
      id: positionals[0]!,
      processId: to.processId,
      version: to.version,
      mapping,
      ...driveFlags.read(values, usage),
    };
  });
}

/** The deployment holding `processId` at `version` (the latest when undefined), or why there is none. */
export async function targetDeployment(engine: Engine, processId: string, version?: number): Promise<Deployment> {
  const holding: Deployment[] = [];
  for (const deployment of await engine.deployments()) {
    if (deploymentKind(deployment) !== 'bpmn') continue;
    if ((await compile(deployment.xml)).processes.has(processId)) holding.push(deployment);
  }
  const found = version === undefined ? holding.at(-1) : holding.find((deployment) => deployment.version === version);
  if (found !== undefined) return found;
  const versions = holding.map((deployment) => deployment.version).join(', ');
  throw new FailedError(
    `no deployed process ${processId}${version === undefined ? '' : ` at version ${version}`}; ${versions ? `its versions: ${versions}` : 'none is deployed'}`,
  );
}

/** `thresher migrate-instance ID --to PROCESS[:VERSION] --map A=B…`: one migration, then drive the instance on. */
export const migrateInstanceCommand = defineCommand(
  migrateInstanceSpec,
  parseMigrateInstanceArgs,
  async (args, { io, out }) => {
    const options = { store: args.store, handlers: args.handlers, create: false, usage };
    return withSession(io, out, options, async (session) => {
      const { engine } = session;
      const view = await engine.instance(args.id);
      if (view === undefined) throw new FailedError(`no instance ${args.id}`);
      if (view.status !== 'running')
        throw new FailedError(`instance ${args.id} has ${view.status}: nothing to migrate`);
      const target = await targetDeployment(engine, args.processId, args.version);
      try {
        await engine.migrateInstance(args.id, {
          processId: args.processId,
          digest: target.digest,
          mapping: args.mapping,
        });
      } catch (error) {
        if (EngineError.is(error) && error.code === EngineErrorCode.InvalidArgument) {
          throw new FailedError(error.message.replace(/^THRESHER_INVALID_ARGUMENT: /, ''), { cause: error });
        }
        throw error;
      }
      out.progress(`[${args.id.slice(0, 8)}] migrated onto ${args.processId} version ${target.version}`);
      const outcome = await drive(session, args.id, io.isTTY ? 'prompt' : 'park', {
        waitTimers: args.waitTimers,
        brief: true,
      });
      out.print(formatOutcome(outcome, session));
      out.document({
        ...outcome,
        migrated: { processId: args.processId, version: target.version, digest: target.digest },
      });
      return exitCodeOf(outcome);
    });
  },
);
