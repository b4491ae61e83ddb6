/**
 * Evaluating a decision with its requirement graph: required decisions first, each once per evaluation,
 * their results bound by name; input data from the variables; knowledge models and decision services as
 * functions. A failure anywhere is the evaluation's failure, naming the decision and why.
 *
 * @module
 */
import { FeelContext, FeelErrorValue, FeelFunction, type FeelValue, toFeel } from '@thresher/feel';
import { type CompiledModel, compiledOf, type DmnDefinitions, serviceParameters } from './definitions.js';
import { DmnEvaluationError } from './errors.js';
import type { Ref } from './model.js';
import { type Env, type EvaluatedDecision, type EvaluateOptions, Run } from './run.js';
import { coerce } from './types.js';

/** The outcome of an evaluation: the value, or why it failed; and each decision evaluated, in order. */
export type DecisionOutcome =
  | { ok: true; value: FeelValue; evaluated: EvaluatedDecision[] }
  | { ok: false; failure: { message: string; decisionId: string }; evaluated: EvaluatedDecision[] };

/**
 * Evaluates a decision and the decisions it requires. `variables` are plain data or FEEL values; every
 * variable is visible to the decision's expressions (as Zeebe gives a decision the process's variables),
 * input data are read from them by name. Never throws for a model or data problem.
 */
export function evaluateDecision(
  definitions: DmnDefinitions,
  decisionId: string,
  variables: Readonly<Record<string, unknown>>,
  options: EvaluateOptions = {},
): DecisionOutcome {
  const compiled = compiledOf(definitions);
  const run = new Run(options, variables);
  if (!compiled.decisions.has(decisionId)) {
    return fail(run, decisionId, `no decision '${decisionId}' in the DMN definitions '${definitions.id}'`);
  }
  return attempt(run, decisionId, () => decisionValue(compiled, decisionId, run));
}

/**
 * Invokes a decision service (its parameters — input decisions and input data — by name from `variables`)
 * or a business knowledge model (its parameters by name), by id.
 */
export function evaluateInvocable(
  definitions: DmnDefinitions,
  id: string,
  variables: Readonly<Record<string, unknown>>,
  options: EvaluateOptions = {},
): DecisionOutcome {
  const compiled = compiledOf(definitions);
  const run = new Run(options, variables);
  const params = definitions.decisionServices.get(id)?.parameters ?? definitions.knowledgeModels.get(id)?.parameters;
  if (params === undefined) {
    return fail(run, id, `no decision service or knowledge model '${id}' in the DMN definitions '${definitions.id}'`);
  }
  return attempt(run, id, () => {
    const fn = knowledgeFunction(compiled, { namespace: null, id }, run);
    const args = params.map((param) => (param in variables ? toFeel(variables[param]) : null));
    return unwrapCall(fn.invoke(args, run.state), id);
  });
}

function attempt(run: Run, id: string, evaluate: () => FeelValue): DecisionOutcome {
  try {
    return { ok: true, value: evaluate(), evaluated: run.evaluated };
  } catch (error) {
    if (error instanceof DmnEvaluationError) return fail(run, error.decisionId ?? id, error.message);
    throw error;
  }
}

function fail(run: Run, decisionId: string, message: string): DecisionOutcome {
  return { ok: false, failure: { message, decisionId }, evaluated: run.evaluated };
}

function unwrapCall(value: FeelValue | FeelErrorValue, id: string): FeelValue {
  if (value instanceof FeelErrorValue) throw new DmnEvaluationError(value.message, id);
  return value;
}

/** The model a reference points into: this one, or the imported one of its namespace. */
function target(compiled: CompiledModel, ref: Ref): { model: CompiledModel; prefix: string | null } {
  if (ref.namespace === null || ref.namespace === compiled.model.namespace) return { model: compiled, prefix: null };
  const imported = compiled.imports.get(ref.namespace);
  if (!imported) throw new DmnEvaluationError(`the namespace ${ref.namespace} is not imported`);
  return { model: imported.compiled, prefix: imported.name };
}

/** Binds `value` under `name`, or under `prefix.name` (a context entry of the import's name). */
function bind(env: Env, prefix: string | null, name: string, value: FeelValue): void {
  if (prefix === null) {
    env[name] = value;
    return;
  }
  const existing = env[prefix];
  const entries = existing instanceof FeelContext ? new Map(existing.entries()) : new Map<string, FeelValue>();
  entries.set(name, value);
  env[prefix] = FeelContext.of(entries);
}

/** The value of a decision in this evaluation: evaluated once, its requirements first. */
function decisionValue(compiled: CompiledModel, id: string, run: Run): FeelValue {
  const key = `${compiled.model.namespace}#${id}`;
  if (run.results.has(key)) return run.results.get(key)!;
  const decision = compiled.model.decisions.find((candidate) => candidate.id === id)!;
  const own = compiled.decisions.get(id)!;
  const env: Env = { ...(run.variables as Env) };
  for (const ref of decision.requiredInputs) {
    const { model, prefix } = target(compiled, ref);
    const input = model.model.inputData.find((candidate) => candidate.id === ref.id)!;
    bind(env, prefix, input.name, inputValue(run, prefix, input.name, model.inputTypes.get(input.id)));
  }
  for (const ref of decision.requiredDecisions) {
    const { model, prefix } = target(compiled, ref);
    const required = model.model.decisions.find((candidate) => candidate.id === ref.id)!;
    bind(env, prefix, required.name, decisionValue(model, ref.id, run));
  }
  bindKnowledge(compiled, decision.requiredKnowledge, env, run);
  let value: FeelValue;
  let record: Pick<EvaluatedDecision, 'inputs' | 'matchedRules'> = { inputs: [], matchedRules: [] };
  try {
    if (own.table) {
      const outcome = own.table(env, run);
      value = outcome.value;
      record = outcome;
    } else {
      value = own.evaluate ? own.evaluate(env, run) : null;
    }
  } catch (error) {
    if (error instanceof DmnEvaluationError && error.decisionId === null) {
      throw new DmnEvaluationError(`decision '${id}': ${error.message}`, id);
    }
    throw error;
  }
  value = coerce(value, own.type);
  run.results.set(key, value);
  run.evaluated.push({
    decisionId: id,
    decisionName: decision.name,
    decisionType: decision.expr?.kind ?? 'none',
    inputs: record.inputs,
    matchedRules: record.matchedRules,
    output: value,
  });
  return value;
}

/** An input data's value: the variable of its name (under the import's name for an imported one). */
function inputValue(
  run: Run,
  prefix: string | null,
  name: string,
  type: Parameters<typeof coerce>[1] | undefined,
): FeelValue {
  let raw: unknown = null;
  if (prefix === null) raw = run.variables[name] ?? null;
  else {
    const holder = toFeel(run.variables[prefix] ?? null);
    raw = holder instanceof FeelContext ? (holder.get(name) ?? null) : (run.variables[`${prefix}.${name}`] ?? null);
  }
  const value = toFeel(raw);
  return type ? coerce(value, type) : value;
}

function bindKnowledge(compiled: CompiledModel, refs: readonly Ref[], env: Env, run: Run): void {
  for (const ref of refs) {
    const { model, prefix } = target(compiled, ref);
    const name =
      model.model.knowledgeModels.find((bkm) => bkm.id === ref.id)?.name ??
      model.model.services.find((service) => service.id === ref.id)?.name ??
      ref.id;
    bind(env, prefix, name, knowledgeFunction(compiled, ref, run));
  }
}

/** A knowledge model or a decision service as a FEEL function. */
function knowledgeFunction(compiled: CompiledModel, ref: Ref, run: Run): FeelFunction {
  const { model } = target(compiled, ref);
  const bkm = model.model.knowledgeModels.find((candidate) => candidate.id === ref.id);
  if (bkm) {
    const env: Env = {};
    bindKnowledge(model, bkm.requiredKnowledge, env, run);
    const logic = model.knowledge.get(bkm.id);
    const fn = logic ? logic(env, run) : null;
    if (!(fn instanceof FeelFunction)) {
      return new FeelFunction([], () => new FeelErrorValue(`knowledge model '${bkm.id}' has no logic`));
    }
    const type = model.knowledgeTypes.get(bkm.id);
    return new FeelFunction(fn.params, (args, state) => {
      const result = fn.invoke(args, state);
      return result instanceof FeelErrorValue || !type ? result : coerce(result, type);
    });
  }
  const service = model.model.services.find((candidate) => candidate.id === ref.id);
  if (!service) throw new DmnEvaluationError(`no knowledge model or decision service '${ref.id}'`);
  const params = serviceParameters(model, service.id);
  // A parameter takes the type of its input data or input decision (DMN 10.3.2.9.4): an input data's value is
  // converted (a singleton list to its item, another type to null); an input decision of another type is
  // refused, as the TCK's 0085 holds: the service is not invoked.
  const dataTypes = service.inputData.map((inputRef) => target(model, inputRef).model.inputTypes.get(inputRef.id));
  const decisionTypes = service.inputDecisions.map(
    (decisionRef) => target(model, decisionRef).model.decisions.get(decisionRef.id)?.type,
  );
  return new FeelFunction(params, (given) => {
    const args = params.map((_, i) => {
      const type = i < dataTypes.length ? dataTypes[i] : decisionTypes[i - dataTypes.length];
      return type === undefined ? (given[i] ?? null) : coerce(given[i] ?? null, type);
    });
    const refused = decisionTypes.findIndex((_, i) => {
      const at = dataTypes.length + i;
      return (given[at] ?? null) !== null && args[at] === null;
    });
    if (refused >= 0) {
      const name = params[dataTypes.length + refused];
      return new FeelErrorValue(`decision service '${service.id}': parameter '${name}' is not of its decision's type`);
    }
    const variables: Record<string, unknown> = {};
    params.forEach((param, i) => {
      variables[param] = args[i] ?? null;
    });
    const inner = new Run(run.options, variables);
    // Input decisions are given, not evaluated: their values are the parameters of their names.
    const first = service.inputData.length;
    service.inputDecisions.forEach((decisionRef, i) => {
      const owner = target(model, decisionRef).model;
      inner.results.set(`${owner.model.namespace}#${decisionRef.id}`, args[first + i] ?? null);
    });
    try {
      const outputs = service.outputDecisions.map((decisionRef) => {
        const owner = target(model, decisionRef).model;
        const decision = owner.model.decisions.find((candidate) => candidate.id === decisionRef.id);
        return [decision?.name ?? decisionRef.id, decisionValue(owner, decisionRef.id, inner)] as const;
      });
      if (outputs.length === 1) return outputs[0]![1];
      return FeelContext.of(new Map(outputs));
    } catch (error) {
      if (error instanceof DmnEvaluationError) return new FeelErrorValue(error.message);
      throw error;
    }
  });
}
