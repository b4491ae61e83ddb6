/**
 * `parseDmn`: a DMN file read, checked and compiled once — what deploy stores and every evaluation reuses.
 *
 * @module
 */
import { createHash } from 'node:crypto';
import type { FeelUnaryTests, KnownNames } from '@thresher/feel';
import { parseUnaryTests } from '@thresher/feel';
import { Compiler } from './compile.js';
import { DmnEvaluationError, type DmnIssue, DmnModelError } from './errors.js';
import type { DmnModel, Expr, ItemDef, Ref } from './model.js';
import { readModel } from './read-model.js';
import type { Evaluator } from './run.js';
import { compileTable, type TableEvaluator } from './table.js';
import { type DmnType, TypeResolver } from './types.js';
import { readXml } from './xml.js';

/** A decision as a reader of the model sees it (`thresher inspect`). */
export interface DecisionInfo {
  readonly id: string;
  readonly name: string;
  /** Camunda 8's `zeebe:versionTag` of the decision. */
  readonly versionTag?: string;
  /** Its boxed expression: `decisionTable`, `literalExpression`, `context`, `invocation`… */
  readonly decisionType: string;
  /** The ids of the decisions it requires, in document order. */
  readonly requires: readonly string[];
  /** Its decision table, when it is one. */
  readonly table?: {
    readonly hitPolicy: string;
    readonly aggregation?: string;
    readonly inputs: readonly { id: string; label: string; expression: string; typeRef?: string }[];
    readonly outputs: readonly { id: string; name: string; label: string; typeRef?: string }[];
    readonly rules: number;
  };
}

/** A decision service or a business knowledge model: something invoked with parameters. */
export interface InvocableInfo {
  readonly id: string;
  readonly name: string;
  readonly parameters: readonly string[];
}

const COMPILED = Symbol('thresher.dmn.compiled');

/** A parsed and compiled DMN file. */
export interface DmnDefinitions {
  readonly id: string;
  readonly name: string;
  readonly namespace: string;
  /** sha256 (hex) of the XML as given: the same file twice is the same deployment. */
  readonly digest: string;
  readonly decisions: ReadonlyMap<string, DecisionInfo>;
  readonly decisionServices: ReadonlyMap<string, InvocableInfo>;
  readonly knowledgeModels: ReadonlyMap<string, InvocableInfo>;
  /** What is read but not run as written, said by name. */
  readonly warnings: DmnIssue[];
  /** @internal What compiling built: typed `unknown` here, read through `compiledOf`. */
  readonly [COMPILED]: unknown;
}

/** @internal */
export interface CompiledDecision {
  readonly evaluate: Evaluator | null;
  /** Set when the decision is a decision table, to record its inputs and matched rules. */
  readonly table: TableEvaluator | null;
  readonly type: DmnType;
}

/** @internal */
export interface CompiledModel {
  readonly model: DmnModel;
  readonly decisions: ReadonlyMap<string, CompiledDecision>;
  readonly inputTypes: ReadonlyMap<string, DmnType>;
  readonly knowledge: ReadonlyMap<string, Evaluator | null>;
  readonly knowledgeTypes: ReadonlyMap<string, DmnType>;
  /** Imported models by namespace, with the name the import gives them. */
  readonly imports: ReadonlyMap<string, { name: string; compiled: CompiledModel }>;
}

/** @internal */
export function compiledOf(definitions: DmnDefinitions): CompiledModel {
  return definitions[COMPILED] as CompiledModel;
}

/**
 * Reads, checks and compiles a DMN file (DMN 1.1 to 1.5). Every FEEL text is parsed here.
 *
 * @throws DmnModelError with every issue, each naming its element.
 */
export interface ParseOptions {
  /** Parsed definitions that this file's `<import>`s name, matched by namespace. */
  imports?: readonly DmnDefinitions[];
  /**
   * A decision or knowledge model whose expressions do not parse fails when it is evaluated, with the
   * issue as its message, instead of refusing the file: for runners that test one decision at a time
   * (the TCK). Deploying never sets it.
   */
  lenient?: boolean;
}

export function parseDmn(xml: string, options: ParseOptions = {}): DmnDefinitions {
  const model = readModel(readXml(xml));
  const issues: DmnIssue[] = [];
  const imports = new Map<string, { name: string; compiled: CompiledModel }>();
  for (const declared of model.imports) {
    if (!/DMN/i.test(declared.importType) && declared.importType !== '') continue;
    const found = options.imports?.find((definitions) => definitions.namespace === declared.namespace);
    if (!found) {
      issues.push({
        elementType: 'dmn:import',
        elementId: declared.name,
        message: `imports the namespace ${declared.namespace}, which no model given beside it has`,
      });
      continue;
    }
    imports.set(declared.namespace, { name: declared.name, compiled: compiledOf(found) });
  }
  const items = new Map<string, ItemDef>(model.itemDefinitions.map((item) => [item.name, item]));
  for (const { name, compiled } of imports.values()) {
    for (const item of compiled.model.itemDefinitions) items.set(`${name}.${item.name}`, item);
  }
  const names = knownNames(model, items, imports);
  const types = new TypeResolver(items, (source) => tests(source));
  const compiler = new Compiler(names, types);
  const decisions = new Map<string, CompiledDecision>();
  // Lenient: the issues an element's compilation raised become its failure when evaluated.
  const brokenSince = (before: number): Evaluator | null => {
    if (!options.lenient || compiler.issues.length === before) return null;
    const message = new DmnModelError(compiler.issues.splice(before)).message;
    return () => {
      throw new DmnEvaluationError(message);
    };
  };
  for (const decision of model.decisions) {
    const expr = decision.expr;
    const before = compiler.issues.length;
    const table = expr?.kind === 'decisionTable' ? compileTable(compiler, expr.table, expr) : null;
    const evaluate = expr && !table ? compiler.compile(expr) : null;
    const broken = brokenSince(before);
    decisions.set(decision.id, {
      evaluate: broken ?? evaluate,
      table: broken ? null : table,
      type: types.resolve(decision.typeRef),
    });
  }
  const knowledge = new Map<string, Evaluator | null>();
  for (const bkm of model.knowledgeModels) {
    const before = compiler.issues.length;
    const logic = bkm.logic ? compiler.functionDefinition(bkm.logic, bkm) : null;
    knowledge.set(bkm.id, brokenSince(before) ?? logic);
  }
  issues.push(...compiler.issues, ...danglingReferences(model, imports));
  if (issues.length > 0) throw new DmnModelError(issues);
  const compiled: CompiledModel = {
    model,
    decisions,
    inputTypes: new Map(model.inputData.map((input) => [input.id, types.resolve(input.typeRef)])),
    knowledge,
    knowledgeTypes: new Map(model.knowledgeModels.map((bkm) => [bkm.id, types.resolve(bkm.typeRef)])),
    imports,
  };
  return {
    id: model.id,
    name: model.name,
    namespace: model.namespace,
    digest: createHash('sha256').update(xml).digest('hex'),
    decisions: new Map(model.decisions.map((decision) => [decision.id, decisionInfo(decision)])),
    decisionServices: new Map(
      model.services.map((service) => [
        service.id,
        { id: service.id, name: service.name, parameters: serviceParameters(compiled, service.id) },
      ]),
    ),
    knowledgeModels: new Map(
      model.knowledgeModels.map((bkm) => [
        bkm.id,
        { id: bkm.id, name: bkm.name, parameters: bkm.logic?.params.map((param) => param.name) ?? [] },
      ]),
    ),
    warnings: compiler.warnings,
    [COMPILED]: compiled,
  };
}

function tests(source: string): FeelUnaryTests | null {
  try {
    return parseUnaryTests(source);
  } catch {
    return null;
  }
}

function decisionInfo(decision: DmnModel['decisions'][number]): DecisionInfo {
  const expr = decision.expr;
  return {
    id: decision.id,
    name: decision.name,
    ...(decision.versionTag === undefined ? {} : { versionTag: decision.versionTag }),
    decisionType: expr?.kind ?? 'none',
    requires: decision.requiredDecisions.map((ref) => ref.id),
    ...(expr?.kind === 'decisionTable'
      ? {
          table: {
            hitPolicy: expr.table.hitPolicy,
            ...(expr.table.aggregation === undefined ? {} : { aggregation: expr.table.aggregation }),
            inputs: expr.table.inputs.map(({ id, label, expression, typeRef }) => ({
              id,
              label,
              expression,
              ...(typeRef === undefined ? {} : { typeRef }),
            })),
            outputs: expr.table.outputs.map(({ id, name, label, typeRef }) => ({
              id,
              name,
              label,
              ...(typeRef === undefined ? {} : { typeRef }),
            })),
            rules: expr.table.rules.length,
          },
        }
      : {}),
  };
}

/** A decision service's parameters: its input data's names, then its input decisions' (as the TCK's 0085 reads DMN 10.4). */
export function serviceParameters(compiled: CompiledModel, serviceId: string): string[] {
  const service = compiled.model.services.find((candidate) => candidate.id === serviceId);
  if (!service) return [];
  const nameOf = (ref: Ref, kind: 'decisions' | 'inputData') => {
    const owner = ref.namespace === null ? compiled : compiled.imports.get(ref.namespace)?.compiled;
    const list = kind === 'decisions' ? owner?.model.decisions : owner?.model.inputData;
    return list?.find((element) => element.id === ref.id)?.name ?? ref.id;
  };
  return [
    ...service.inputData.map((ref) => nameOf(ref, 'inputData')),
    ...service.inputDecisions.map((ref) => nameOf(ref, 'decisions')),
  ];
}

function danglingReferences(
  model: DmnModel,
  imports: ReadonlyMap<string, { name: string; compiled: CompiledModel }>,
): DmnIssue[] {
  const issues: DmnIssue[] = [];
  const has = (ref: Ref, kind: 'decision' | 'input' | 'knowledge'): boolean => {
    const target =
      ref.namespace === null || ref.namespace === model.namespace ? model : imports.get(ref.namespace)?.compiled.model;
    if (!target) return false;
    if (kind === 'decision') return target.decisions.some((d) => d.id === ref.id);
    if (kind === 'input') return target.inputData.some((d) => d.id === ref.id);
    return target.knowledgeModels.some((d) => d.id === ref.id) || target.services.some((d) => d.id === ref.id);
  };
  const check = (
    owner: { id: string; line: number },
    type: string,
    ref: Ref,
    kind: 'decision' | 'input' | 'knowledge',
  ) => {
    if (has(ref, kind)) return;
    const what =
      kind === 'decision' ? 'decision' : kind === 'input' ? 'input data' : 'knowledge model or decision service';
    issues.push({
      elementId: owner.id,
      elementType: type,
      line: owner.line,
      message: `requires the ${what} '${ref.namespace ? `${ref.namespace}#` : ''}${ref.id}', which does not exist`,
    });
  };
  for (const decision of model.decisions) {
    for (const ref of decision.requiredDecisions) check(decision, 'dmn:decision', ref, 'decision');
    for (const ref of decision.requiredInputs) check(decision, 'dmn:decision', ref, 'input');
    for (const ref of decision.requiredKnowledge) check(decision, 'dmn:decision', ref, 'knowledge');
  }
  for (const bkm of model.knowledgeModels) {
    for (const ref of bkm.requiredKnowledge) check(bkm, 'dmn:businessKnowledgeModel', ref, 'knowledge');
  }
  return issues;
}

/**
 * The names FEEL must know to read this model's expressions with their spaces: its DRG elements (with the
 * components of their types, so paths read), its imports, and every name its boxed expressions bind.
 */
function knownNames(
  model: DmnModel,
  items: ReadonlyMap<string, ItemDef>,
  imports: ReadonlyMap<string, { name: string; compiled: CompiledModel }>,
): KnownNames {
  const names: Record<string, unknown> = {};
  const seen = new Set<string>();
  const ofType = (typeRef: string | undefined, depth = 0): unknown => {
    const item = typeRef === undefined ? undefined : items.get(typeRef);
    if (!item || depth > 8 || seen.has(item.name)) return 1;
    return ofItem(item, depth);
  };
  const ofItem = (item: ItemDef, depth: number): unknown => {
    if (item.components.length === 0) return ofType(item.typeRef, depth + 1);
    seen.add(item.name);
    const nested: Record<string, unknown> = {};
    for (const component of item.components) {
      nested[component.name] = ofItem(component, depth + 1);
      names[component.name] ??= 1;
    }
    seen.delete(item.name);
    return nested;
  };
  const elementNames = (target: DmnModel): Record<string, unknown> => {
    const own: Record<string, unknown> = {};
    for (const input of target.inputData) own[input.name] = ofType(input.typeRef);
    for (const decision of target.decisions) own[decision.name] = ofType(decision.typeRef);
    for (const bkm of target.knowledgeModels) own[bkm.name] = 1;
    for (const service of target.services) own[service.name] = 1;
    return own;
  };
  Object.assign(names, elementNames(model));
  for (const { name, compiled } of imports.values()) names[name] = elementNames(compiled.model);
  for (const item of items.values()) ofItem(item, 0);
  const walk = (expr: Expr | null): void => {
    if (!expr) return;
    switch (expr.kind) {
      case 'context':
        for (const entry of expr.entries) {
          if (entry.variable) names[entry.variable] ??= ofType(entry.typeRef);
          walk(entry.expr);
        }
        return;
      case 'relation':
        for (const column of expr.columns) names[column] ??= 1;
        for (const row of expr.rows) row.forEach(walk);
        return;
      case 'list':
        expr.items.forEach(walk);
        return;
      case 'invocation':
        walk(expr.callee);
        for (const binding of expr.bindings) {
          names[binding.name] ??= 1;
          walk(binding.expr);
        }
        return;
      case 'functionDefinition':
        for (const param of expr.fn.params) names[param.name] ??= ofType(param.typeRef);
        walk(expr.fn.body);
        return;
      case 'conditional':
        walk(expr.condition);
        walk(expr.whenTrue);
        walk(expr.whenFalse);
        return;
      case 'for':
      case 'some':
      case 'every':
        names[expr.variable] ??= 1;
        walk(expr.in);
        walk(expr.body);
        return;
      case 'filter':
        walk(expr.in);
        walk(expr.match);
        return;
      default:
        return;
    }
  };
  for (const decision of model.decisions) walk(decision.expr);
  for (const bkm of model.knowledgeModels) {
    for (const param of bkm.logic?.params ?? []) names[param.name] ??= ofType(param.typeRef);
    walk(bkm.logic?.body ?? null);
  }
  return names;
}
