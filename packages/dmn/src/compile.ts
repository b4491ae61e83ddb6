/**
 * Boxed expressions compiled once into evaluators: every FEEL text parsed at deploy (a syntax error is an
 * issue naming the element), each evaluation then only runs closures.
 *
 * @module
 */
import { FeelContext, FeelErrorValue, FeelFunction, type FeelValue } from '@thresher/feel';
import { DmnEvaluationError } from './errors.js';
import { evaluateFeel, FeelTexts } from './feel-texts.js';
import type { Expr, FunctionDef, Place } from './model.js';
import type { Env, Evaluator } from './run.js';
import { compileTable } from './table.js';
import { coerce } from './types.js';

const NULL_EVALUATOR: Evaluator = () => null;

/** Compiles a definitions' boxed expressions (and, through `table.ts`, its decision tables) into evaluators. */
export class Compiler extends FeelTexts {
  compile(expr: Expr): Evaluator {
    const evaluator = this.compileUntyped(expr);
    if (expr.typeRef === undefined) return evaluator;
    const type = this.types.resolve(expr.typeRef);
    return (env, run) => coerce(evaluator(env, run), type);
  }

  private compileUntyped(expr: Expr): Evaluator {
    switch (expr.kind) {
      case 'literalExpression': {
        if (expr.text.trim() === '') return NULL_EVALUATOR;
        const parsed = this.expression(expr.text, expr);
        if (!parsed) return NULL_EVALUATOR;
        return (env, run) => evaluateFeel(parsed, env, run, expr.id);
      }
      case 'decisionTable': {
        const table = compileTable(this, expr.table, expr);
        return (env, run) => table(env, run).value;
      }
      case 'context':
        return this.context(expr);
      case 'relation': {
        const rows = expr.rows.map((row) => row.map((cell) => this.compile(cell)));
        const columns = expr.columns;
        return (env, run) =>
          rows.map((row) => FeelContext.of(new Map(columns.map((column, i) => [column, row[i]?.(env, run) ?? null]))));
      }
      case 'list': {
        const items = expr.items.map((item) => this.compile(item));
        return (env, run) => items.map((item) => item(env, run));
      }
      case 'invocation':
        return this.invocation(expr);
      case 'functionDefinition':
        return this.functionDefinition(expr.fn, expr);
      case 'conditional': {
        const condition = this.compile(expr.condition);
        const then = this.compile(expr.whenTrue);
        const otherwise = this.compile(expr.whenFalse);
        // DMN 1.5 §10.3.2.14: a condition that is neither a boolean nor null makes the result null.
        return (env, run) => {
          const value = condition(env, run);
          if (value === true) return then(env, run);
          return value === false || value === null ? otherwise(env, run) : null;
        };
      }
      case 'for':
      case 'some':
      case 'every':
        return this.iterator(expr);
      case 'filter': {
        const list = this.compile(expr.in);
        const match = this.compile(expr.match);
        return (env, run) => {
          const value = list(env, run);
          if (value === null) return null;
          const items = Array.isArray(value) ? value : [value];
          const kept = items.map((item) => match(withItem(env, item), run));
          if (!kept.every(isBooleanOrNull)) return null;
          return items.filter((_, i) => kept[i] === true);
        };
      }
    }
  }

  private context(expr: Extract<Expr, { kind: 'context' }>): Evaluator {
    const entries = expr.entries.map((entry) => ({
      variable: entry.variable,
      evaluate: entry.typeRef === undefined ? this.compile(entry.expr) : this.typed(entry.expr, entry.typeRef),
    }));
    return (env, run) => {
      const scope: Env = { ...env };
      const values = new Map<string, FeelValue>();
      for (const entry of entries) {
        const value = entry.evaluate(scope, run);
        if (entry.variable === null) return value;
        scope[entry.variable] = value;
        values.set(entry.variable, value);
      }
      return FeelContext.of(values);
    };
  }

  private typed(expr: Expr, typeRef: string): Evaluator {
    const evaluator = this.compile(expr);
    const type = this.types.resolve(typeRef);
    return (env, run) => coerce(evaluator(env, run), type);
  }

  private invocation(expr: Extract<Expr, { kind: 'invocation' }>): Evaluator {
    const callee = this.compile(expr.callee);
    const bindings = expr.bindings.map((binding) => ({
      name: binding.name,
      evaluate: binding.expr ? this.compile(binding.expr) : NULL_EVALUATOR,
    }));
    const name = expr.callee.kind === 'literalExpression' ? expr.callee.text.trim() : expr.callee.id;
    return (env, run) => {
      const fn = callee(env, run);
      if (!(fn instanceof FeelFunction)) {
        throw new DmnEvaluationError(`${expr.id} invokes '${name}', which is not a function`);
      }
      const unknown = bindings.find((binding) => !fn.params.includes(binding.name));
      if (unknown) {
        throw new DmnEvaluationError(`${expr.id} binds '${unknown.name}', which '${name}' has no parameter of`);
      }
      const args = fn.params.map(
        (param) => bindings.find((binding) => binding.name === param)?.evaluate(env, run) ?? null,
      );
      return unwrap(fn.invoke(args, run.state), `${expr.id} invoking '${name}'`);
    };
  }

  /** A function definition: FEEL bodies run; Java and PMML functions fail when called, named. */
  functionDefinition(fn: FunctionDef, at: Place): Evaluator {
    const params = fn.params.map((param) => ({ name: param.name, type: this.types.resolve(param.typeRef) }));
    if (fn.kind !== 'FEEL') {
      this.warnings.push({
        elementId: at.id,
        elementType: at.type,
        message: `a ${fn.kind} function is not run: calling it fails`,
        line: at.line,
      });
      const reason = `${at.id} is a ${fn.kind} function, which Thresher does not run`;
      return () =>
        new FeelFunction(
          params.map((param) => param.name),
          () => new FeelErrorValue(reason),
        );
    }
    const body = fn.body ? this.compile(fn.body) : NULL_EVALUATOR;
    return (env, run) =>
      new FeelFunction(
        params.map((param) => param.name),
        (args) => {
          const scope: Env = { ...env };
          params.forEach((param, i) => {
            scope[param.name] = coerce(args[i] ?? null, param.type);
          });
          try {
            return body(scope, run);
          } catch (error) {
            if (error instanceof DmnEvaluationError) return new FeelErrorValue(error.message);
            throw error;
          }
        },
      );
  }

  private iterator(expr: Extract<Expr, { kind: 'for' | 'some' | 'every' }>): Evaluator {
    const list = this.compile(expr.in);
    const body = this.compile(expr.body);
    const { variable, kind } = expr;
    return (env, run) => {
      const value = list(env, run);
      if (value === null) return null;
      const items = Array.isArray(value) ? value : [value];
      const results = items.map((item) => body({ ...env, [variable]: item }, run));
      if (kind === 'for') return results;
      if (!results.every(isBooleanOrNull)) return null;
      if (kind === 'some') return results.some((result) => result === true);
      return results.every((result) => result === true);
    };
  }
}

/** A filter's match or a quantifier's test that is neither boolean nor null makes the result null. */
function isBooleanOrNull(value: FeelValue): boolean {
  return value === null || typeof value === 'boolean';
}

/** The scope of a filter's match: `item`, and the item's entries when it is a context. */
function withItem(env: Env, item: FeelValue): Env {
  const scope: Env = { ...env, item };
  if (item instanceof FeelContext) for (const key of item.keys()) scope[key] = item.get(key) ?? null;
  return scope;
}

/** A function's result, or its error as a failure naming the call. */
export function unwrap(value: FeelValue | FeelErrorValue, at: string): FeelValue {
  if (value instanceof FeelErrorValue) throw new DmnEvaluationError(`${at}: ${value.message}`);
  return value;
}
