import { CheckpointError, CheckpointErrorCode, type Deployment, type Repository } from '@thresher/checkpoint';
import { InvalidStateError, NotFoundError, RestoreError } from '../../common/errors.js';
import type { InstanceState } from '../../core/step/state.js';
import type { ProcessDef, ProcessModel } from '../../model/process-types.js';
import { compileShared } from '../../model/shared-models.js';
import { isDecisionDeployment } from './decisions.js';
import { isDeletion, liveDeployments } from './deletions.js';
import { isManifest, Together } from './deployed-together.js';
import { isFormDeployment } from './forms.js';

/** Whether a new instance's first put was refused because it chose among deployments read before another one. */
export function isStaleDeployments(error: unknown): boolean {
  return CheckpointError.is(error) && error.code === CheckpointErrorCode.StaleDeployments;
}

/** The process a new instance runs, its deployment, and how many deployments it was chosen among (if checked). */
export interface StartChoice {
  deployment: Deployment;
  process: ProcessDef;
  deploymentsSeen?: number;
}

function noProcesses(deployment: Deployment): ProcessModel {
  return { definitionId: deployment.definitionId, digest: deployment.digest, processes: new Map(), warnings: [] };
}

/** A deployment and its compiled model. */
export interface LoadedDefinition {
  deployment: Deployment;
  model: ProcessModel;
}

/**
 * The deployments an engine has compiled, by digest: each model is compiled once per engine, whether it
 * was deployed here or is read back for an instance pinned to it.
 */
export class Definitions {
  private readonly loaded = new Map<string, Promise<LoadedDefinition>>();
  /** The deployments read under way, and the one queued after it for the callers that came since. */
  private reading: Promise<Deployment[]> | undefined;
  private queued: Promise<Deployment[]> | undefined;
  /**
   * The deployments `start` chose among last, kept while the store checks a new instance's first put against
   * their number (`checksDeploymentsSeen`): one deployed since makes that put refused, and `forget` them.
   */
  private known: Promise<Deployment[]> | undefined;

  constructor(private readonly repository: Repository) {}

  /** Remember a model this engine has just compiled and stored. */
  add(deployment: Deployment, model: ProcessModel): void {
    this.loaded.set(model.digest, Promise.resolve({ deployment, model }));
    this.known = undefined;
  }

  /** Read the deployments again at the next `start`: the store holds more than those kept. */
  forget(): void {
    this.known = undefined;
  }

  /** The compiled model of a deployment, compiled on first use. */
  from(deployment: Deployment): Promise<LoadedDefinition> {
    let loaded = this.loaded.get(deployment.digest);
    if (!loaded) {
      // A DMN deployment holds decisions (`decisions.ts`), a manifest lists files (`deployed-together.ts`), a form
      // is a form (`forms.ts`): none holds a process, so every search for one passes them by.
      const model =
        isDecisionDeployment(deployment) ||
        isManifest(deployment) ||
        isFormDeployment(deployment) ||
        isDeletion(deployment)
          ? Promise.resolve(noProcesses(deployment))
          : compileShared(deployment.xml);
      loaded = model.then((compiled) => ({ deployment, model: compiled }));
      this.loaded.set(deployment.digest, loaded);
    }
    return loaded;
  }

  /** The deployment an instance runs on, when this engine has it compiled. */
  async deploymentOf(state: InstanceState): Promise<Deployment | undefined> {
    return (await this.loaded.get(state.instance.definition.digest))?.deployment;
  }

  /** A process, as the store holds it now: of the deployment `digest`, else of the latest deployment that has it. */
  async findProcess(processId: string, digest?: string): Promise<{ deployment: Deployment; process: ProcessDef }> {
    if (digest === undefined)
      return this.findIn(processId, digest, liveDeployments(await this.latestDeployments()).reverse());
    // A digest's deployment never changes: one compiled here is not read again (every logged step asks for its plan).
    const known = this.loaded.get(digest);
    const deployment = known ? (await known).deployment : await this.repository.getDeployment(digest);
    return this.findIn(processId, digest, deployment === undefined ? [] : [deployment]);
  }

  /**
   * A process of the deployment `digest`, or of a file deployed together with it (`deployTogether`), as a
   * call activity's `bindingType="deployment"` takes it in Zeebe: the resources of one deployment.
   */
  async findDeployedWith(processId: string, digest: string): Promise<{ deployment: Deployment; process: ProcessDef }> {
    const own = await this.repository.getDeployment(digest);
    const ownProcess = own && (await this.from(own)).model.processes.get(processId);
    if (own && ownProcess) return this.findIn(processId, digest, [own]);
    const deployments = await this.latestDeployments();
    const together = new Together();
    for (const deployment of deployments) if (isManifest(deployment)) together.add(deployment);
    const withIt = together.of(digest);
    const candidates = liveDeployments(deployments)
      .reverse()
      .filter((d) => d.digest !== digest && withIt.has(d.digest));
    return this.findIn(processId, digest, candidates);
  }

  /**
   * The process a new instance of `start` runs: of the latest deployment that has it. On a store that checks
   * a first put against the deployments it was chosen among (`checksDeploymentsSeen`), chosen among those read
   * last, and read again only when they do not have it; `deploymentsSeen` is then their number, for the
   * instance's first put. Anything else that needs the latest (a call activity, a plan) asks `findProcess`.
   */
  async chooseToStart(processId: string): Promise<StartChoice> {
    if (this.repository.checksDeploymentsSeen !== true) return this.findProcess(processId);
    const kept = this.known !== undefined;
    const deployments = await this.keptDeployments();
    try {
      return {
        ...(await this.findIn(processId, undefined, liveDeployments(deployments).reverse())),
        deploymentsSeen: deployments.length,
      };
    } catch (error) {
      if (!kept) throw error;
      // Kept from an earlier start: one deployed since may have the process, or an executable version of it.
      this.forget();
      return this.chooseToStart(processId);
    }
  }

  private keptDeployments(): Promise<Deployment[]> {
    if (this.known) return this.known;
    const read = this.latestDeployments();
    this.known = read;
    read.catch(() => {
      if (this.known === read) this.known = undefined;
    });
    return read;
  }

  private async findIn(
    processId: string,
    digest: string | undefined,
    candidates: readonly Deployment[],
  ): Promise<{ deployment: Deployment; process: ProcessDef }> {
    for (const deployment of candidates) {
      const { model } = await this.from(deployment);
      const process = model.processes.get(processId);
      if (process) {
        if (!process.executable)
          throw new InvalidStateError(`process ${processId} is not executable (isExecutable="false")`);
        return { deployment, process };
      }
    }
    throw new NotFoundError('process', digest ? `${processId}@${digest}` : processId);
  }

  /** The latest deployed version of a process tagged `versionTag` (`zeebe:versionTag`). */
  async findTagged(processId: string, versionTag: string): Promise<{ deployment: Deployment; process: ProcessDef }> {
    for (const deployment of liveDeployments(await this.latestDeployments()).reverse()) {
      const process = (await this.from(deployment)).model.processes.get(processId);
      if (process?.versionTag === versionTag) return { deployment, process };
    }
    throw new NotFoundError('process', `${processId} with version tag "${versionTag}"`);
  }

  /**
   * Every deployment, oldest first, as read by a read that began after this call: callers that come while a
   * read is under way share the next one, so a thousand starts at once read the store twice, not a thousand
   * times, and none misses a deployment stored before it asked.
   */
  private latestDeployments(): Promise<Deployment[]> {
    if (this.queued) return this.queued;
    const after = this.reading?.then(
      () => {},
      () => {},
    );
    const read = (after ?? Promise.resolve()).then(() => {
      // From here on, a new caller must wait for a read that begins after it.
      if (this.queued === read) this.queued = undefined;
      const reading = this.repository.deployments();
      this.reading = reading;
      const done = () => {
        if (this.reading === reading) this.reading = undefined;
      };
      reading.then(done, done);
      return reading;
    });
    this.queued = read;
    return read;
  }

  /**
   * The process an instance is pinned to. A changed model deployed since never takes over an instance
   * started on another: without its own deployment the instance is refused, naming what is deployed.
   */
  async pinnedProcess(state: Pick<InstanceState, 'instance'>): Promise<ProcessDef> {
    const { id, processId, definition } = state.instance;
    const known = this.loaded.get(definition.digest);
    const deployment = known ? (await known).deployment : await this.repository.getDeployment(definition.digest);
    if (!deployment) {
      const others = (await this.repository.deployments(definition.id)).map(
        (d) => `version ${d.version} (${d.digest.slice(0, 12)})`,
      );
      throw new RestoreError(
        id,
        `it runs on ${definition.id} version ${definition.version} (${definition.digest.slice(0, 12)}), which is not deployed here; ` +
          `it will not be resumed on another version of process ${processId}` +
          (others.length > 0 ? ` (deployed: ${others.join(', ')})` : '') +
          '; deploy its original model to resume it',
      );
    }
    const process = (await this.from(deployment)).model.processes.get(processId);
    if (!process) throw new RestoreError(id, `process ${processId} is not in deployment ${definition.digest}`);
    return process;
  }
}

/** What a stored deployment holds: a BPMN file's processes, a DMN file's decisions, a list of files deployed together, or a file's deletion. */
export function deploymentKind(deployment: Deployment): 'bpmn' | 'dmn' | 'form' | 'manifest' | 'deletion' {
  if (isDecisionDeployment(deployment)) return 'dmn';
  if (isFormDeployment(deployment)) return 'form';
  if (isDeletion(deployment)) return 'deletion';
  return isManifest(deployment) ? 'manifest' : 'bpmn';
}
