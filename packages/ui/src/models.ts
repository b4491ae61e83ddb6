/**
 * The deployed models as the view shows them: each BPMN deployment's processes (compiled once per digest with
 * the engine's compiler) and its diagram, laid out by bpmn-auto-layout when the file carries no diagram.
 *
 * @module
 */
import type { Deployment } from '@thresher/engine';
import { deploymentKind, type Engine, liveDeployments } from '@thresher/engine';
import { compile, type ProcessModel, withFlowRefs } from '@thresher/engine/model';
import { layoutProcess } from 'bpmn-auto-layout';

/** One process of one deployed version; or, for a version this engine cannot compile, why (`processId` null). */
export interface DeployedProcess {
  processId: string | null;
  name: string | null;
  /** Why the deployment cannot be compiled here (it was deployed by another version of Thresher). */
  failure?: string;
  definitionId: string;
  version: number;
  digest: string;
  deployedAt: number;
}

/** What the page draws: the XML with a diagram, and whether Thresher laid it out; or why there is none. */
export type Diagram = { xml: string; laidOut: boolean } | { xml: null; why: string };

const HAS_DIAGRAM = /<(?:[\w.-]+:)?BPMNShape[\s>/]/;

function reason(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export class Models {
  readonly #compiled = new Map<string, Promise<ProcessModel>>();
  readonly #diagrams = new Map<string, Promise<Diagram>>();

  constructor(private readonly engine: Engine) {}

  /** The BPMN deployments not deleted, newest version first within a definition, definitions by id. */
  async deployments(): Promise<Deployment[]> {
    const all = liveDeployments(await this.engine.deployments()).filter((d) => deploymentKind(d) === 'bpmn');
    return all.sort((a, b) =>
      a.definitionId === b.definitionId ? b.version - a.version : a.definitionId < b.definitionId ? -1 : 1,
    );
  }

  /** The DMN deployments not deleted, newest version first within a definition, definitions by id. */
  async dmnFiles(): Promise<Deployment[]> {
    const all = liveDeployments(await this.engine.deployments()).filter((d) => deploymentKind(d) === 'dmn');
    return all.sort((a, b) =>
      a.definitionId === b.definitionId ? b.version - a.version : a.definitionId < b.definitionId ? -1 : 1,
    );
  }

  /** Every process of every BPMN deployment, in `deployments()`'s order. */
  async processes(): Promise<DeployedProcess[]> {
    const found: DeployedProcess[] = [];
    for (const deployment of await this.deployments()) {
      const { definitionId, version, digest, deployedAt } = deployment;
      const at = { definitionId, version, digest, deployedAt };
      try {
        for (const process of (await this.model(deployment)).processes.values()) {
          found.push({ processId: process.id, name: process.name, ...at });
        }
      } catch (error) {
        found.push({ processId: null, name: null, failure: reason(error), ...at });
      }
    }
    return found;
  }

  /** A deployment's compiled model (the engine's compiler, as the engine compiled it when it was deployed). */
  model(deployment: Deployment): Promise<ProcessModel> {
    let model = this.#compiled.get(deployment.digest);
    if (!model) {
      model = compile(deployment.xml);
      this.#compiled.set(deployment.digest, model);
    }
    return model;
  }

  /** The deployment's diagram: its own, else one laid out; when neither can be had, why. */
  diagram(deployment: Deployment): Promise<Diagram> {
    let diagram = this.#diagrams.get(deployment.digest);
    if (!diagram) {
      diagram = HAS_DIAGRAM.test(deployment.xml)
        ? Promise.resolve({ xml: deployment.xml, laidOut: false })
        : withFlowRefs(deployment.xml)
            .then(layoutProcess)
            .then(
              (xml): Diagram => ({ xml, laidOut: true }),
              (error: unknown): Diagram => ({
                xml: null,
                why: `it has no diagram and laying one out failed: ${reason(error)}`,
              }),
            );
      this.#diagrams.set(deployment.digest, diagram);
    }
    return diagram;
  }
}
