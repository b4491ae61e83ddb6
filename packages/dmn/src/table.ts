/**
 * Decision tables: inputs evaluated once, each rule's input entries tested against them (FEEL unary tests,
 * `?` the input), the matched rules' outputs combined by the hit policy, and the result shaped as Camunda 8
 * shapes it: one output column is its value, several are a context; COLLECT, RULE ORDER and OUTPUT ORDER
 * give lists; an aggregation gives a number.
 *
 * @module
 */
import {
  evaluate,
  evaluateUnaryTests,
  FeelContext,
  type FeelExpression,
  type FeelUnaryTests,
  type FeelValue,
  feelEquals,
  order,
  parseExpression,
} from '@thresher/feel';
import { DmnEvaluationError } from './errors.js';
import { evaluateFeel, type FeelTexts } from './feel-texts.js';
import type { Place, TableDef } from './model.js';
import type { Env, EvaluatedDecision, Run } from './run.js';
import { coerce, type DmnType } from './types.js';

/** A table's evaluation with what an instance records of it. */
export interface TableOutcome {
  value: FeelValue;
  inputs: EvaluatedDecision['inputs'];
  matchedRules: EvaluatedDecision['matchedRules'];
}

export type TableEvaluator = (env: Env, run: Run) => TableOutcome;

interface CompiledInput {
  id: string;
  label: string;
  expression: FeelExpression | null;
  type: DmnType;
  inputValues: FeelUnaryTests | null;
}

interface CompiledOutput {
  id: string;
  name: string;
  type: DmnType;
  /** The output values in priority order (for PRIORITY and OUTPUT ORDER), empty when none are given. */
  priorities: FeelValue[];
  defaultOutput: FeelExpression | null;
}

interface CompiledRule {
  id: string;
  index: number;
  /** Null for `-` (any input). */
  tests: (FeelUnaryTests | null)[];
  outputs: (FeelExpression | null)[];
}

export function compileTable(compiler: FeelTexts, table: TableDef, at: Place): TableEvaluator {
  const inputs: CompiledInput[] = table.inputs.map((input) => {
    const place = { id: input.id, type: 'dmn:inputExpression', line: at.line };
    return {
      id: input.id,
      label: input.label,
      expression: compiler.expression(input.expression, place),
      type: compiler.types.resolve(input.typeRef),
      inputValues: input.inputValues?.trim() ? compiler.unaryTests(input.inputValues, place) : null,
    };
  });
  const outputs: CompiledOutput[] = table.outputs.map((output) => {
    const place = { id: output.id, type: 'dmn:output', line: at.line };
    const listed = output.outputValues?.trim() ? compiler.expression(`[${output.outputValues}]`, place) : null;
    const priorities = listed ? evaluatePriorities(listed) : [];
    return {
      id: output.id,
      name: output.name,
      type: compiler.types.resolve(output.typeRef),
      priorities,
      defaultOutput: output.defaultOutput
        ? compiler.expression(output.defaultOutput.text, { ...place, id: output.defaultOutput.id })
        : null,
    };
  });
  const rules: CompiledRule[] = table.rules.map((rule, r) => ({
    id: rule.id,
    index: r + 1,
    tests: rule.inputEntries.map((entry) => {
      const text = entry.text.trim();
      if (text === '' || text === '-') return null;
      return compiler.unaryTests(entry.text, { id: entry.id, type: 'dmn:inputEntry', line: rule.line });
    }),
    outputs: rule.outputEntries.map((entry) =>
      entry.text.trim() === ''
        ? null
        : compiler.expression(entry.text, { id: entry.id, type: 'dmn:outputEntry', line: rule.line }),
    ),
  }));
  const policy = new HitPolicy(table.hitPolicy, table.aggregation, at.id, outputs);
  return (env, run) => {
    const values = inputs.map((input) => evaluateInput(input, env, run, at.id));
    const matched: { rule: CompiledRule; values: FeelValue[] }[] = [];
    for (const rule of rules) {
      if (!matches(rule, values, env, run, at.id)) continue;
      matched.push({
        rule,
        values: outputs.map((output, i) => {
          const expression = rule.outputs[i];
          const raw = expression ? evaluateFeel(expression, env, run, rule.id) : null;
          return coerce(raw, output.type);
        }),
      });
      if (policy.firstOnly) break;
    }
    const chosen = policy.choose(matched);
    return {
      value: chosen.length === 0 ? policy.none(defaults(outputs, env, run)) : policy.shape(chosen),
      inputs: inputs.map((input, i) => ({ id: input.id, name: input.label, value: values[i] ?? null })),
      matchedRules: chosen.map(({ rule, values: outputValues }) => ({
        ruleId: rule.id,
        ruleIndex: rule.index,
        outputs: outputs.map((output, i) => ({ id: output.id, name: output.name, value: outputValues[i] ?? null })),
      })),
    };
  };
}

/** Output values are literals: evaluated once, with no variables. */
function evaluatePriorities(listed: FeelExpression): FeelValue[] {
  const result = evaluate(listed, {});
  return result.ok && Array.isArray(result.value) ? result.value : [];
}

function evaluateInput(input: CompiledInput, env: Env, run: Run, tableId: string): FeelValue {
  const raw = input.expression ? evaluateFeel(input.expression, env, run, input.id) : null;
  const value = coerce(raw, input.type);
  if (input.inputValues && value !== null) {
    const allowed = evaluateUnaryTests(input.inputValues, value, env, run.options);
    if (!allowed.ok || allowed.value !== true) {
      throw new DmnEvaluationError(
        `decision table '${tableId}': input '${input.label || input.id}' is ${show(value)}, not one of its input values`,
      );
    }
  }
  return value;
}

function matches(rule: CompiledRule, values: FeelValue[], env: Env, run: Run, tableId: string): boolean {
  for (let i = 0; i < rule.tests.length; i++) {
    const tests = rule.tests[i];
    if (tests === null || tests === undefined) continue;
    const result = evaluateUnaryTests(tests, values[i] ?? null, env, run.options);
    if (!result.ok) {
      throw new DmnEvaluationError(`decision table '${tableId}', rule '${rule.id}': ${result.failure.message}`);
    }
    if (result.value !== true) return false;
  }
  return true;
}

/** The default outputs, or undefined when the table declares none. */
function defaults(outputs: CompiledOutput[], env: Env, run: Run): FeelValue | undefined {
  if (outputs.every((output) => output.defaultOutput === null)) return undefined;
  const values = outputs.map((output) =>
    output.defaultOutput ? coerce(evaluateFeel(output.defaultOutput, env, run, output.id), output.type) : null,
  );
  return outputs.length === 1 ? values[0]! : FeelContext.of(new Map(outputs.map((o, i) => [o.name, values[i]!])));
}

type Match = { rule: CompiledRule; values: FeelValue[] };

class HitPolicy {
  /** Single-hit policies: no match is null (or the default outputs). */
  readonly single: boolean;
  readonly firstOnly: boolean;

  constructor(
    private readonly policy: string,
    private readonly aggregation: string | undefined,
    private readonly tableId: string,
    private readonly outputs: CompiledOutput[],
  ) {
    this.single = ['UNIQUE', 'ANY', 'PRIORITY', 'FIRST'].includes(policy);
    this.firstOnly = policy === 'FIRST';
  }

  choose(matched: Match[]): Match[] {
    switch (this.policy) {
      case 'UNIQUE':
        if (matched.length > 1) {
          const ids = matched.map((match) => `'${match.rule.id}'`);
          throw new DmnEvaluationError(
            `decision table '${this.tableId}' has the hit policy UNIQUE, but rules ${ids.slice(0, -1).join(', ')} and ${ids.at(-1)} matched`,
          );
        }
        return matched;
      case 'ANY': {
        const [first, ...others] = matched;
        if (first && others.some((other) => !sameOutputs(first.values, other.values))) {
          const ids = matched.map((match) => `'${match.rule.id}'`).join(', ');
          throw new DmnEvaluationError(
            `decision table '${this.tableId}' has the hit policy ANY, but rules ${ids} matched with different outputs`,
          );
        }
        return first ? [first] : [];
      }
      case 'PRIORITY':
        return matched.length === 0 ? [] : [this.byPriority(matched)[0]!];
      case 'OUTPUT ORDER':
        return this.byPriority(matched);
      default:
        return matched;
    }
  }

  private byPriority(matched: Match[]): Match[] {
    const rank = (match: Match) =>
      this.outputs.map((output, i) => {
        const index = output.priorities.findIndex((value) => feelEquals(value, match.values[i] ?? null) === true);
        return index < 0 ? Number.MAX_SAFE_INTEGER : index;
      });
    return matched
      .map((match) => ({ match, rank: rank(match) }))
      .sort((a, b) => {
        for (let i = 0; i < a.rank.length; i++) if (a.rank[i] !== b.rank[i]) return a.rank[i]! - b.rank[i]!;
        return a.match.rule.index - b.match.rule.index;
      })
      .map(({ match }) => match);
  }

  /** No rule matched: the defaults, shaped as the policy's result (a list for a collecting policy). */
  none(defaults: FeelValue | undefined): FeelValue {
    if (defaults === undefined) return this.shape([]);
    return this.single || this.aggregation !== undefined ? defaults : [defaults];
  }

  shape(chosen: Match[]): FeelValue {
    const results = chosen.map((match) =>
      this.outputs.length === 1
        ? (match.values[0] ?? null)
        : FeelContext.of(new Map(this.outputs.map((output, i) => [output.name, match.values[i] ?? null]))),
    );
    if (this.single) return results[0] ?? null;
    if (this.aggregation === undefined) return results;
    if (this.outputs.length !== 1) {
      throw new DmnEvaluationError(
        `decision table '${this.tableId}' aggregates (${this.aggregation}) ${this.outputs.length} outputs; an aggregation takes one`,
      );
    }
    const values = results.filter((value) => value !== null);
    if (this.aggregation === 'COUNT') return values.length;
    if (values.length === 0) return null;
    try {
      if (this.aggregation === 'MIN') return values.reduce((a, b) => (order(b, a) < 0 ? b : a));
      if (this.aggregation === 'MAX') return values.reduce((a, b) => (order(b, a) > 0 ? b : a));
    } catch {
      throw new DmnEvaluationError(
        `decision table '${this.tableId}': ${this.aggregation} of values that do not compare`,
      );
    }
    return sum(values, this.tableId);
  }
}

const SUM = parseExpression('sum(values)');

function sum(values: FeelValue[], tableId: string): FeelValue {
  const total = evaluate(SUM, { values });
  if (!total.ok || total.value === null) {
    throw new DmnEvaluationError(`decision table '${tableId}': SUM of values that are not all numbers`);
  }
  return total.value;
}

function sameOutputs(a: FeelValue[], b: FeelValue[]): boolean {
  return a.length === b.length && a.every((value, i) => feelEquals(value, b[i] ?? null) === true);
}

function show(value: FeelValue): string {
  return typeof value === 'string' ? `"${value}"` : String(value);
}
