import { type Deployment, deletedDigests, deploymentKind, type Engine } from '@thresher/engine';
import { compile, type UserTaskForm } from '@thresher/engine/model';
import { resourceKey } from './keys.js';

/** A process definition as Camunda names it: by its BPMN id and a version of its own, with its key. */
export interface ProcessDefinition {
  processDefinitionId: string;
  /** 1 for the first deployment holding this BPMN id, then one more for each deployment after that holds it. */
  processDefinitionVersion: number;
  processDefinitionKey: string;
  name: string | null;
  versionTag: string | null;
  /** The file it was deployed in: Thresher keeps no file names, so its definitions id and the kind's extension. */
  resourceName: string;
  /** The Thresher deployment it is in. */
  digest: string;
  /** Its elements by id: name, Camunda's element type (`SERVICE_TASK`…), and a user task's form. */
  elements: ReadonlyMap<string, { name: string | null; type: string; form?: UserTaskForm }>;
  /** The form of its none start event (`zeebe:formDefinition`), when it has one. */
  startForm?: UserTaskForm;
}

/** Camunda's element type of a Thresher node type: `serviceTask` → `SERVICE_TASK`. */
function elementType(type: string): string {
  return type === 'terminateEndEvent' ? 'END_EVENT' : type.replace(/[A-Z]/g, (char) => `_${char}`).toUpperCase();
}

/**
 * The process definitions of the engine's store, as Camunda numbers them: read from the deployments in the
 * order they were made (each compiled once, when first seen), so every process sharing the store numbers them
 * alike. A definition's key is derived from its deployment's digest and its place in the file (`keys.ts`).
 */
export class Catalog {
  readonly #engine: Engine;
  readonly #seen = new Set<string>();
  readonly #byKey = new Map<string, ProcessDefinition>();
  readonly #byId = new Map<string, ProcessDefinition[]>();
  readonly #byDigest = new Map<string, ProcessDefinition[]>();
  /** The files deleted as of the last look: their definitions keep their keys and versions but are found by no search. */
  #deleted = new Set<string>();
  #reading: Promise<void> = Promise.resolve();

  constructor(engine: Engine) {
    this.#engine = engine;
  }

  /** Take in the deployments made since the last look (by any process sharing the store). */
  refresh(): Promise<void> {
    this.#reading = this.#reading.then(
      () => this.#readNew(),
      () => this.#readNew(),
    );
    return this.#reading;
  }

  /**
   * The definition of `key` unless its file is deleted, looking at the store again only when it is not known yet
   * (keys never change; a deletion by another process is seen at the next look).
   */
  async findKey(key: string): Promise<ProcessDefinition | undefined> {
    if (!this.#byKey.has(key)) await this.refresh();
    const found = this.#byKey.get(key);
    return found === undefined || this.#deleted.has(found.digest) ? undefined : found;
  }

  /** `inDeployment`, looking at the store again only when the deployment is not known yet. */
  async findInDeployment(digest: string, processId: string): Promise<ProcessDefinition | undefined> {
    if (!this.#byDigest.has(digest)) await this.refresh();
    return this.inDeployment(digest, processId);
  }

  /** The versions of a BPMN id not deleted, oldest first (each with its own version number). */
  versionsOf(processDefinitionId: string): readonly ProcessDefinition[] {
    return (this.#byId.get(processDefinitionId) ?? []).filter((definition) => !this.#deleted.has(definition.digest));
  }

  /** Every definition not deleted, after taking in what was deployed (or deleted) since the last look. */
  async all(): Promise<ProcessDefinition[]> {
    await this.refresh();
    return [...this.#byKey.values()].filter((definition) => !this.#deleted.has(definition.digest));
  }

  /** The definition of a process in a deployment: what an instance of it runs (deleted since or not). */
  inDeployment(digest: string, processId: string): ProcessDefinition | undefined {
    return this.#byDigest.get(digest)?.find((definition) => definition.processDefinitionId === processId);
  }

  /** The processes a deployment holds, in file order. */
  ofDeployment(digest: string): readonly ProcessDefinition[] {
    return this.#byDigest.get(digest) ?? [];
  }

  async #readNew(): Promise<void> {
    const deployments = await this.#engine.deployments();
    this.#deleted = deletedDigests(deployments);
    for (const deployment of deployments) {
      if (this.#seen.has(deployment.digest)) continue;
      if (deploymentKind(deployment) === 'bpmn') await this.#add(deployment);
      this.#seen.add(deployment.digest);
    }
  }

  async #add(deployment: Deployment): Promise<void> {
    const model = await compile(deployment.xml, { allowNonExecutable: true });
    const inFile: ProcessDefinition[] = [];
    let index = 0;
    for (const [processId, process] of model.processes) {
      index += 1;
      let startForm: UserTaskForm | undefined;
      for (const node of process.nodes.values()) if (node.type === 'startEvent' && node.form) startForm = node.form;
      const versions = this.#byId.get(processId) ?? [];
      const definition: ProcessDefinition = {
        processDefinitionId: processId,
        processDefinitionVersion: versions.length + 1,
        processDefinitionKey: resourceKey(deployment.digest, index),
        name: process.name,
        versionTag: process.versionTag ?? null,
        resourceName: `${deployment.definitionId}.bpmn`,
        digest: deployment.digest,
        ...(startForm ? { startForm } : {}),
        elements: new Map(
          [...process.nodes.values()].map((node) => [
            node.id,
            {
              name: node.name ?? null,
              type: elementType(node.type),
              ...(node.type === 'userTask' && node.form !== undefined ? { form: node.form } : {}),
            },
          ]),
        ),
      };
      versions.push(definition);
      this.#byId.set(processId, versions);
      this.#byKey.set(definition.processDefinitionKey, definition);
      inFile.push(definition);
    }
    this.#byDigest.set(deployment.digest, inFile);
  }
}
