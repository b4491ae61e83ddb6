/**
 * Function calls as feel-scala resolves and invokes them: by name and argument count (or parameter
 * names), innermost definition first, then the built-ins; variadic built-ins collect the remaining
 * positional arguments; a named parameter not given is null.
 *
 * @module
 */
import { BUILTINS } from '../builtins/registry.js';
import { FeelContext, FeelErrorValue, FeelFunction, type FeelValue, type Val } from '../values.js';
import { type Code, isError, orNull } from './code.js';
import type { Scope } from './scope.js';
import { show } from './show.js';
import { type EvalState, FeelWarningType } from './state.js';

/** Compiled call arguments. */
export type CompiledArgs =
  | { kind: 'positional'; items: Code[] }
  | { kind: 'named'; items: { name: string; value: Code }[] };

/** feel-scala's `EvalContext.function(name, count)`: the exact count, or fewer parameters and variadic. */
export function findByArity(candidates: readonly FeelFunction[], count: number): FeelFunction | undefined {
  return candidates.find((fn) => fn.params.length === count || (fn.params.length < count && fn.varArgs));
}

/** feel-scala's `EvalContext.function(name, names)`: the given names are (a subset of) the parameters. */
export function findByNames(candidates: readonly FeelFunction[], names: readonly string[]): FeelFunction | undefined {
  return candidates.find((fn) => names.every((name) => fn.params.includes(name)));
}

function resolve(candidates: readonly FeelFunction[], name: string, args: CompiledArgs, state: EvalState) {
  if (args.kind === 'positional') {
    const fn = findByArity(candidates, args.items.length);
    if (fn) return fn;
    return state.error(
      FeelWarningType.NoFunctionFound,
      `No function found with name '${name}' and ${args.items.length} parameters`,
    );
  }
  const names = args.items.map((item) => item.name);
  const fn = findByNames(candidates, names);
  if (fn) return fn;
  return state.error(
    FeelWarningType.NoFunctionFound,
    `No function found with name '${name}' and parameters: ${names.join(',')}`,
  );
}

/** feel-scala's `invokeFunction`: evaluates the arguments, stops at an error among them, then invokes. */
export function invoke(fn: FeelFunction, args: CompiledArgs, scope: Scope, state: EvalState): Val {
  let values: Val[];
  if (args.kind === 'named') {
    values = fn.params.map((param) => {
      const arg = args.items.find((item) => item.name === param);
      return arg ? arg.value(scope, state) : null;
    });
  } else if (fn.varArgs && fn.params.length > 0) {
    const fixed = fn.params.length - 1;
    values = args.items.slice(0, fixed).map((item) => item(scope, state));
    const rest = args.items.slice(fixed).map((item) => item(scope, state));
    const failed = rest.find(isError);
    // A single list passed alone is the list itself: `sum([1, 2])` as `sum(1, 2)`.
    if (failed) values.push(failed);
    else values.push(rest.length === 1 && fixed === 0 && Array.isArray(rest[0]) ? rest[0] : (rest as FeelValue[]));
  } else {
    values = args.items.map((item) => item(scope, state));
  }
  const fatal = values.find((value) => value instanceof FeelErrorValue && value.fatal);
  if (fatal) return fatal;
  const error = values.find(isError);
  if (error) return error;
  return fn.invoke(values as FeelValue[], state);
}

/** `f(…)`: a failure of the function is null with a warning; a failed `assert` fails the evaluation. */
export function compileCall(name: string, args: CompiledArgs): Code {
  const builtins = BUILTINS.get(name) ?? [];
  return (scope, state) => {
    const own = scope.functions(name);
    const candidates = own.length === 0 ? builtins : [...own, ...builtins];
    const fn = resolve(candidates, name, args, state);
    if (isError(fn)) return orNull(fn);
    const result = invoke(fn, args, scope, state);
    if (!isError(result) || result.fatal) return result;
    if (name === 'assert') {
      state.warn(FeelWarningType.AssertFailure, result.message);
      return null;
    }
    state.warn(FeelWarningType.FunctionInvocationFailure, `Failed to invoke function '${name}': ${result.message}`);
    return null;
  };
}

/** `a.b.f(…)`: a function defined by a context literal; its errors propagate (feel-scala's `QualifiedFunctionInvocation`). */
export function compileQualifiedCall(target: Code, name: string, args: CompiledArgs): Code {
  return (scope, state) => {
    const context = target(scope, state);
    if (isError(context)) return context;
    if (!(context instanceof FeelContext)) {
      return state.error(FeelWarningType.InvalidType, `Expected context but found '${show(context)}'`);
    }
    // A context built outside FEEL (a DMN boxed context) holds its functions as entries.
    const entry = context.get(name);
    const defined = context.functions?.get(name) ?? (entry instanceof FeelFunction ? entry : undefined);
    const fn = resolve(defined ? [defined] : [], name, args, state);
    if (isError(fn)) return fn;
    return invoke(fn, args, scope, state);
  };
}

/** `function(a, b) body`: closes over the scope where it is defined; its parameters are variables. */
export function compileFunctionDefinition(params: readonly string[], body: Code): Code {
  return (scope) =>
    new FeelFunction(params, (values, state) => {
      const vars = new Map<string, FeelValue>();
      for (let i = 0; i < params.length; i++) vars.set(params[i]!, values[i] ?? null);
      return body(scope.with(vars), state as EvalState);
    });
}
