/**
 * The DMN model of an element tree: DRG elements, item definitions and boxed expressions, read by name
 * whatever the DMN version. What is read but not run is listed in `unread` for a warning.
 *
 * @module
 */
import { type DmnIssue, DmnModelError } from './errors.js';
import type {
  BindingDef,
  BkmDef,
  ContextEntryDef,
  DecisionDef,
  DmnModel,
  Expr,
  FunctionDef,
  ItemDef,
  Place,
  Ref,
  RuleDef,
  ServiceDef,
  TableDef,
} from './model.js';
import { childNamed, childrenNamed, childText, type XmlElement } from './xml.js';

const EXPRESSION_KINDS = new Set([
  'literalExpression',
  'decisionTable',
  'context',
  'relation',
  'list',
  'invocation',
  'functionDefinition',
  'conditional',
  'for',
  'some',
  'every',
  'filter',
]);

/** A type reference as FEEL names it: DMN 1.1's `feel:number` is `number`. */
export function typeRefOf(element: XmlElement | undefined, attribute = 'typeRef'): string | undefined {
  const raw = element?.attrs[attribute] ?? (element ? childText(element, 'dmn:typeRef') : undefined);
  if (raw === undefined || raw.trim() === '') return undefined;
  const text = raw.trim();
  const colon = text.indexOf(':');
  if (colon > 0 && !text.includes(' ') && element?.prefixes[text.slice(0, colon)]?.includes('/FEEL/')) {
    return text.slice(colon + 1);
  }
  return text;
}

class Reader {
  readonly issues: DmnIssue[] = [];
  private generated = 0;

  place(element: XmlElement, owner: string): Place {
    const local = element.name.replace(/^dmn:/, '');
    const id = element.attrs.id ?? `${owner}/${local}${++this.generated}`;
    return { id, type: `dmn:${local}`, line: element.line };
  }

  issue(element: XmlElement, owner: string, message: string): void {
    const place = this.place(element, owner);
    this.issues.push({ elementId: element.attrs.id ?? owner, elementType: place.type, message, line: element.line });
  }

  /** The one boxed expression inside `holder`, or null (an issue when `required`). */
  exprIn(holder: XmlElement, owner: string, required: boolean): Expr | null {
    const element = holder.children.find((child) => EXPRESSION_KINDS.has(child.name.replace(/^dmn:/, '')));
    if (!element) {
      if (required) this.issue(holder, owner, `${holder.name} holds no expression`);
      return null;
    }
    return this.expr(element, holder.attrs.id ?? owner);
  }

  expr(element: XmlElement, owner: string): Expr {
    const place = this.place(element, owner);
    const at = place.id;
    const typeRef = typeRefOf(element);
    const typed = typeRef === undefined ? {} : { typeRef };
    const need = (holder: XmlElement | undefined, name: string): Expr => {
      const found = holder ? this.exprIn(holder, at, true) : null;
      if (!holder) this.issue(element, at, `${element.name} needs a ${name}`);
      return found ?? { ...this.place(element, at), kind: 'literalExpression', text: 'null' };
    };
    switch (element.name) {
      case 'dmn:literalExpression': {
        const text = childText(element, 'dmn:text');
        if (element.attrs.expressionLanguage && !/feel/i.test(element.attrs.expressionLanguage)) {
          this.issue(element, at, `expression language "${element.attrs.expressionLanguage}" is not run: only FEEL`);
        }
        return { ...place, ...typed, kind: 'literalExpression', text: text ?? 'null' };
      }
      case 'dmn:decisionTable':
        return { ...place, ...typed, kind: 'decisionTable', table: this.table(element, at) };
      case 'dmn:context':
        return {
          ...place,
          ...typed,
          kind: 'context',
          entries: childrenNamed(element, 'dmn:contextEntry').map((entry): ContextEntryDef => {
            const variable = childNamed(entry, 'dmn:variable');
            const expr = this.exprIn(entry, at, true) ?? {
              ...this.place(entry, at),
              kind: 'literalExpression',
              text: 'null',
            };
            const entryType = typeRefOf(variable);
            return {
              variable: variable?.attrs.name ?? null,
              ...(entryType === undefined ? {} : { typeRef: entryType }),
              expr,
            };
          }),
        };
      case 'dmn:relation':
        return {
          ...place,
          ...typed,
          kind: 'relation',
          columns: childrenNamed(element, 'dmn:column').map((column) => column.attrs.name ?? ''),
          rows: childrenNamed(element, 'dmn:row').map((row) =>
            row.children
              .filter((child) => EXPRESSION_KINDS.has(child.name.replace(/^dmn:/, '')))
              .map((child) => this.expr(child, at)),
          ),
        };
      case 'dmn:list':
        return {
          ...place,
          ...typed,
          kind: 'list',
          items: element.children
            .filter((child) => EXPRESSION_KINDS.has(child.name.replace(/^dmn:/, '')))
            .map((child) => this.expr(child, at)),
        };
      case 'dmn:invocation': {
        const callee = this.exprIn(element, at, true) ?? { ...place, kind: 'literalExpression', text: 'null' };
        const bindings = childrenNamed(element, 'dmn:binding').map(
          (binding): BindingDef => ({
            name: childNamed(binding, 'dmn:parameter')?.attrs.name ?? '',
            expr: this.exprIn(binding, at, false),
          }),
        );
        return { ...place, ...typed, kind: 'invocation', callee, bindings };
      }
      case 'dmn:functionDefinition':
        return { ...place, ...typed, kind: 'functionDefinition', fn: this.fn(element, at) };
      case 'dmn:conditional':
        return {
          ...place,
          ...typed,
          kind: 'conditional',
          condition: need(childNamed(element, 'dmn:if'), 'if'),
          whenTrue: need(childNamed(element, 'dmn:then'), 'then'),
          whenFalse: need(childNamed(element, 'dmn:else'), 'else'),
        };
      case 'dmn:for':
      case 'dmn:some':
      case 'dmn:every': {
        const kind = element.name.slice(4) as 'for' | 'some' | 'every';
        const body = childNamed(element, kind === 'for' ? 'dmn:return' : 'dmn:satisfies');
        return {
          ...place,
          ...typed,
          kind,
          variable: element.attrs.iteratorVariable ?? '',
          in: need(childNamed(element, 'dmn:in'), 'in'),
          body: need(body, kind === 'for' ? 'return' : 'satisfies'),
        };
      }
      default:
        return {
          ...place,
          ...typed,
          kind: 'filter',
          in: need(childNamed(element, 'dmn:in'), 'in'),
          match: need(childNamed(element, 'dmn:match'), 'match'),
        };
    }
  }

  fn(element: XmlElement, owner: string): FunctionDef {
    return {
      kind: element.attrs.kind ?? 'FEEL',
      params: childrenNamed(element, 'dmn:formalParameter').map((param) => {
        const typeRef = typeRefOf(param);
        return { name: param.attrs.name ?? '', ...(typeRef === undefined ? {} : { typeRef }) };
      }),
      body: this.exprIn(element, owner, false),
    };
  }

  table(element: XmlElement, owner: string): TableDef {
    const inputs = childrenNamed(element, 'dmn:input').map((input, i) => {
      const expression = childNamed(input, 'dmn:inputExpression');
      const inputValues = childNamed(input, 'dmn:inputValues');
      const typeRef = typeRefOf(expression);
      const id = input.attrs.id ?? `${owner}/input${i + 1}`;
      return {
        id,
        label: input.attrs.label ?? childText(expression ?? input, 'dmn:text') ?? '',
        expression: expression ? (childText(expression, 'dmn:text') ?? 'null') : 'null',
        expressionId: expression?.attrs.id ?? id,
        ...(typeRef === undefined ? {} : { typeRef }),
        ...(inputValues ? { inputValues: childText(inputValues, 'dmn:text') ?? '' } : {}),
      };
    });
    const outputs = childrenNamed(element, 'dmn:output').map((output, i) => {
      const outputValues = childNamed(output, 'dmn:outputValues');
      const defaultOutput = childNamed(output, 'dmn:defaultOutputEntry');
      const typeRef = typeRefOf(output);
      const id = output.attrs.id ?? `${owner}/output${i + 1}`;
      return {
        id,
        name: output.attrs.name ?? '',
        label: output.attrs.label ?? output.attrs.name ?? '',
        ...(typeRef === undefined ? {} : { typeRef }),
        ...(outputValues ? { outputValues: childText(outputValues, 'dmn:text') ?? '' } : {}),
        ...(defaultOutput
          ? {
              defaultOutput: { id: defaultOutput.attrs.id ?? id, text: childText(defaultOutput, 'dmn:text') ?? 'null' },
            }
          : {}),
      };
    });
    if (outputs.length === 0) this.issue(element, owner, 'a decision table needs at least one output');
    const rules = childrenNamed(element, 'dmn:rule').map((rule, r): RuleDef => {
      const id = rule.attrs.id ?? `${owner}/rule${r + 1}`;
      const cells = (name: string) =>
        childrenNamed(rule, name).map((entry, c) => ({
          id: entry.attrs.id ?? `${id}/${name.slice(4)}${c + 1}`,
          text: childText(entry, 'dmn:text') ?? '',
        }));
      const inputEntries = cells('dmn:inputEntry');
      const outputEntries = cells('dmn:outputEntry');
      if (inputEntries.length !== inputs.length || outputEntries.length !== outputs.length) {
        this.issue(
          rule,
          id,
          `rule ${r + 1} has ${inputEntries.length} input and ${outputEntries.length} output entries; the table has ${inputs.length} inputs and ${outputs.length} outputs`,
        );
      }
      return { id, line: rule.line, inputEntries, outputEntries };
    });
    const hitPolicy = (element.attrs.hitPolicy ?? 'UNIQUE').toUpperCase();
    const aggregation = element.attrs.aggregation?.toUpperCase();
    if (!HIT_POLICIES.has(hitPolicy)) this.issue(element, owner, `unknown hit policy "${hitPolicy}"`);
    if (aggregation !== undefined && !AGGREGATIONS.has(aggregation)) {
      this.issue(element, owner, `unknown aggregation "${aggregation}"`);
    }
    if (aggregation !== undefined && hitPolicy !== 'COLLECT') {
      this.issue(element, owner, `aggregation ${aggregation} needs the hit policy COLLECT, not ${hitPolicy}`);
    }
    return { hitPolicy, ...(aggregation === undefined ? {} : { aggregation }), inputs, outputs, rules };
  }

  item(element: XmlElement): ItemDef {
    const allowed = childNamed(element, 'dmn:allowedValues');
    const constraint = childNamed(element, 'dmn:typeConstraint');
    const functionItem = childNamed(element, 'dmn:functionItem');
    const typeRef = typeRefOf(element);
    return {
      name: element.attrs.name ?? '',
      ...(typeRef === undefined ? {} : { typeRef }),
      isCollection: element.attrs.isCollection === 'true',
      components: childrenNamed(element, 'dmn:itemComponent').map((component) => this.item(component)),
      ...(allowed ? { allowedValues: childText(allowed, 'dmn:text') ?? '' } : {}),
      ...(constraint ? { typeConstraint: childText(constraint, 'dmn:text') ?? '' } : {}),
      ...(functionItem
        ? {
            functionItem: {
              params: childrenNamed(functionItem, 'dmn:parameters').map((param) => {
                const paramType = typeRefOf(param);
                return { name: param.attrs.name ?? '', ...(paramType === undefined ? {} : { typeRef: paramType }) };
              }),
              ...(functionItem.attrs.outputTypeRef ? { outputTypeRef: functionItem.attrs.outputTypeRef } : {}),
            },
          }
        : {}),
    };
  }
}

const HIT_POLICIES = new Set(['UNIQUE', 'ANY', 'PRIORITY', 'FIRST', 'RULE ORDER', 'OUTPUT ORDER', 'COLLECT']);
const AGGREGATIONS = new Set(['SUM', 'MIN', 'MAX', 'COUNT']);

/** `#id` (this model) or `namespace#id` (an imported one). */
function refOf(element: XmlElement | undefined): Ref | null {
  const href = element?.attrs.href;
  if (href === undefined) return null;
  const hash = href.indexOf('#');
  if (hash < 0) return { namespace: null, id: href };
  return { namespace: hash === 0 ? null : href.slice(0, hash), id: href.slice(hash + 1) };
}

function refs(elements: readonly XmlElement[], name: string): Ref[] {
  return elements.map((element) => refOf(childNamed(element, name))).filter((ref): ref is Ref => ref !== null);
}

function hrefs(elements: readonly XmlElement[]): Ref[] {
  return elements.map(refOf).filter((ref): ref is Ref => ref !== null);
}

/** Reads the model of a `definitions` element; the problems found are thrown together. */
export function readModel(root: XmlElement): DmnModel {
  if (root.name !== 'dmn:definitions') {
    throw new DmnModelError([{ message: `the root element is ${root.name}, not a DMN definitions`, line: root.line }]);
  }
  const reader = new Reader();
  const decisions = childrenNamed(root, 'dmn:decision').map((element): DecisionDef => {
    const place = reader.place(element, 'decision');
    const information = childrenNamed(element, 'dmn:informationRequirement');
    const versionTag = childNamed(element, 'dmn:extensionElements')?.children.find(
      (child) => child.name === 'zeebe:versionTag',
    )?.attrs.value;
    const typeRef = typeRefOf(childNamed(element, 'dmn:variable'));
    return {
      ...place,
      name: element.attrs.name ?? place.id,
      ...(typeRef === undefined ? {} : { typeRef }),
      ...(versionTag === undefined ? {} : { versionTag }),
      requiredDecisions: refs(information, 'dmn:requiredDecision'),
      requiredInputs: refs(information, 'dmn:requiredInput'),
      requiredKnowledge: refs(childrenNamed(element, 'dmn:knowledgeRequirement'), 'dmn:requiredKnowledge'),
      expr: reader.exprIn(element, place.id, false),
    };
  });
  const knowledgeModels = childrenNamed(root, 'dmn:businessKnowledgeModel').map((element): BkmDef => {
    const place = reader.place(element, 'bkm');
    const logic = childNamed(element, 'dmn:encapsulatedLogic');
    const typeRef = typeRefOf(childNamed(element, 'dmn:variable'));
    return {
      ...place,
      name: element.attrs.name ?? place.id,
      ...(typeRef === undefined ? {} : { typeRef }),
      requiredKnowledge: refs(childrenNamed(element, 'dmn:knowledgeRequirement'), 'dmn:requiredKnowledge'),
      logic: logic ? reader.fn(logic, place.id) : null,
    };
  });
  const services = childrenNamed(root, 'dmn:decisionService').map((element): ServiceDef => {
    const place = reader.place(element, 'service');
    return {
      ...place,
      name: element.attrs.name ?? place.id,
      outputDecisions: hrefs(childrenNamed(element, 'dmn:outputDecision')),
      encapsulatedDecisions: hrefs(childrenNamed(element, 'dmn:encapsulatedDecision')),
      inputDecisions: hrefs(childrenNamed(element, 'dmn:inputDecision')),
      inputData: hrefs(childrenNamed(element, 'dmn:inputData')),
    };
  });
  const inputData = childrenNamed(root, 'dmn:inputData').map((element) => {
    const place = reader.place(element, 'input');
    const typeRef = typeRefOf(childNamed(element, 'dmn:variable'));
    return { ...place, name: element.attrs.name ?? place.id, ...(typeRef === undefined ? {} : { typeRef }) };
  });
  const model: DmnModel = {
    id: root.attrs.id ?? root.attrs.name ?? 'definitions',
    name: root.attrs.name ?? root.attrs.id ?? '',
    namespace: root.attrs.namespace ?? '',
    imports: childrenNamed(root, 'dmn:import').map((element) => ({
      name: element.attrs.name ?? '',
      namespace: element.attrs.namespace ?? '',
      importType: element.attrs.importType ?? '',
    })),
    itemDefinitions: childrenNamed(root, 'dmn:itemDefinition').map((element) => reader.item(element)),
    decisions,
    inputData,
    knowledgeModels,
    services,
  };
  if (reader.issues.length > 0) throw new DmnModelError(reader.issues);
  return model;
}
