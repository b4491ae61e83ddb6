/**
 * The DMN decisions an engine can evaluate: every DMN deployment of the store, parsed once per digest, and
 * each decision's versions (its place among the deployments that hold its id, oldest first, as Zeebe counts).
 * Business rule tasks look decisions up here synchronously, inside a step; the loop makes sure the book is
 * read (`ready`) before a step of a process that calls decisions.
 *
 * @module
 */
import type { Deployment, Repository } from '@thresher/checkpoint';
import { type DmnDefinitions, isDmn, parseDmn } from '@thresher/dmn';
import type { DecisionLookup, FoundDecision } from '../../core/step/context.js';
import type { Binding } from '../../model/node-types.js';
import type { ProcessDef } from '../../model/process-types.js';
import { deletedDigests } from './deletions.js';
import { isManifest, Together } from './deployed-together.js';

/** How old the book may be before a step re-reads the store: deployments made by other engines show up by then. */
const FRESH_MS = 5_000;

/** The prefix of a DMN deployment's definition id, which no BPMN definitions id (an XML id) can carry. */
export const DMN_DEFINITION = 'dmn:';

interface Version {
  deployment: Deployment;
  definitions: DmnDefinitions;
}

export class DecisionBook {
  /** Parsed definitions by deployment digest. */
  private readonly parsed = new Map<string, DmnDefinitions>();
  /** Each decision id's versions, oldest first. */
  private versions = new Map<string, Version[]>();
  /** Deployments made by this engine: kept across re-reads, as one may have been stored after a read began. */
  private readonly added: Version[] = [];
  /** Files deployed together, for `bindingType="deployment"`; manifests made here are kept across re-reads too. */
  private together = new Together();
  private readonly addedManifests: Deployment[] = [];
  private readAt = Number.NEGATIVE_INFINITY;
  private reading: Promise<void> | undefined;
  /** The DMN files deleted (`engine.deleteDeployment`): they keep their versions' places but are never chosen. */
  private deleted = new Set<string>();

  constructor(
    private readonly repository: Repository,
    /** Real time: how fresh the book is has nothing to do with the engine's (possibly virtual) clock. */
    private readonly elapsed: () => number = () => performance.now(),
  ) {}

  /** Read the store's deployments again when the book is older than a few seconds (reads are shared). */
  ready(): Promise<void> {
    if (this.elapsed() - this.readAt < FRESH_MS) return Promise.resolve();
    this.reading ??= this.read().finally(() => {
      this.reading = undefined;
    });
    return this.reading;
  }

  /** A DMN deployment made by this engine: known at once, before any read. */
  add(deployment: Deployment, definitions: DmnDefinitions): void {
    this.parsed.set(deployment.digest, definitions);
    this.added.push({ deployment, definitions });
    this.index(deployment, definitions);
  }

  /** Read the store again before the next step that calls a decision: a file was deleted or deployed again. */
  forget(): void {
    this.readAt = Number.NEGATIVE_INFINITY;
  }

  /** A manifest of files deployed together, stored by this engine: known at once. */
  addManifest(manifest: Deployment): void {
    this.addedManifests.push(manifest);
    this.together.add(manifest);
  }

  /**
   * The decision `decisionId` as `binding` takes it for a process of the deployment `processDigest`, or why
   * there is none (an incident's message).
   */
  find(decisionId: string, binding: Binding, processDigest: string): FoundDecision | string {
    const found = this.choose(decisionId, binding, processDigest);
    // Not deployed as far as this book knows: the next step (a retry) reads the store again first.
    if (typeof found === 'string') this.readAt = Number.NEGATIVE_INFINITY;
    return found;
  }

  private choose(decisionId: string, binding: Binding, processDigest: string): FoundDecision | string {
    const versions = this.versions.get(decisionId) ?? [];
    // A deleted file keeps its versions' places (their numbers) but is never chosen.
    const live = (known: Version) => !this.deleted.has(known.deployment.digest);
    let chosen: Version | undefined;
    let version = 0;
    if (binding.kind === 'deployment') {
      const together = this.together.of(processDigest);
      const index = versions.findLastIndex((known) => live(known) && together.has(known.deployment.digest));
      if (index < 0) {
        return `Expected to evaluate decision '${decisionId}' with binding type 'deployment', but no file deployed together with the process holds it`;
      }
      chosen = versions[index]!;
      version = index + 1;
    } else if (binding.kind === 'versionTag') {
      for (let index = versions.length - 1; index >= 0; index--) {
        if (!live(versions[index]!)) continue;
        const decision = versions[index]!.definitions.decisions.get(decisionId);
        if (decision?.versionTag === binding.versionTag) {
          chosen = versions[index];
          version = index + 1;
          break;
        }
      }
      if (!chosen) {
        return `Expected to evaluate decision '${decisionId}' with version tag '${binding.versionTag}', but no such decision is deployed`;
      }
    } else {
      const index = versions.findLastIndex(live);
      chosen = versions[index];
      version = index + 1;
      if (!chosen) return `Expected to evaluate decision '${decisionId}', but no decision with this id is deployed`;
    }
    return foundIn(chosen, decisionId, version);
  }

  /** Decision `decisionId` as the DMN deployment `digest` holds it, or why there is none. */
  findIn(decisionId: string, digest: string): FoundDecision | string {
    const versions = this.versions.get(decisionId) ?? [];
    const index = versions.findIndex((known) => known.deployment.digest === digest);
    if (index < 0) {
      this.readAt = Number.NEGATIVE_INFINITY;
      return `Expected to evaluate decision '${decisionId}' of deployment ${digest}, but it holds no such decision`;
    }
    return foundIn(versions[index]!, decisionId, index + 1);
  }

  /** The version the deployment `digest` gives decision `decisionId` (0 when it does not hold it). */
  versionOf(decisionId: string, digest: string): number {
    return (this.versions.get(decisionId) ?? []).findIndex((known) => known.deployment.digest === digest) + 1;
  }

  /** `find`, as the steps' context takes it. */
  readonly lookup: DecisionLookup = (decisionId, binding, processDigest) =>
    this.find(decisionId, binding, processDigest);

  private async read(): Promise<void> {
    const startedAt = this.elapsed();
    const deployments = await this.repository.deployments();
    this.deleted = deletedDigests(deployments);
    const versions = new Map<string, Version[]>();
    this.versions = versions;
    const together = new Together();
    this.together = together;
    for (const deployment of deployments) {
      if (isManifest(deployment)) together.add(deployment);
      if (!isDecisionDeployment(deployment)) continue;
      let definitions = this.parsed.get(deployment.digest);
      if (!definitions) {
        definitions = parseDmn(deployment.xml);
        this.parsed.set(deployment.digest, definitions);
      }
      this.index(deployment, definitions);
    }
    for (const { deployment, definitions } of this.added) this.index(deployment, definitions);
    for (const manifest of this.addedManifests) together.add(manifest);
    this.readAt = startedAt;
  }

  private index(deployment: Deployment, definitions: DmnDefinitions): void {
    for (const id of definitions.decisions.keys()) {
      const list = this.versions.get(id) ?? [];
      if (list.some((known) => known.deployment.digest === deployment.digest)) continue;
      list.push({ deployment, definitions });
      this.versions.set(id, list);
    }
  }
}

const calling = new WeakMap<ProcessDef, boolean>();

/** Whether a process has business rule tasks that call decisions: its steps need the book read. */
export function callsDecisions(process: ProcessDef): boolean {
  let calls = calling.get(process);
  if (calls === undefined) {
    calls = [...process.nodes.values()].some((node) => node.type === 'businessRuleTask' && 'decisionId' in node);
    calling.set(process, calls);
  }
  return calls;
}

/** Whether a stored deployment is a DMN file (its definition id carries the DMN prefix). */
export function isDecisionDeployment(deployment: Deployment): boolean {
  return deployment.definitionId.startsWith(DMN_DEFINITION) && isDmn(deployment.xml);
}

/** Decision `decisionId` as the deployment `chosen` holds it, the `version`-th of its id. */
function foundIn(chosen: Version, decisionId: string, version: number): FoundDecision {
  const decision = chosen.definitions.decisions.get(decisionId)!;
  return {
    definitions: chosen.definitions,
    decisionId,
    version,
    ...(decision.versionTag === undefined ? {} : { versionTag: decision.versionTag }),
    definitionId: chosen.deployment.definitionId.slice(DMN_DEFINITION.length),
    digest: chosen.deployment.digest,
  };
}
