/**
 * Where names resolve: nested frames of variables and functions (innermost first), over the plain
 * variables an evaluation was given, over the built-ins. Variables and functions are apart, as in
 * feel-scala: a context literal's function entry can be called by name, never read as a variable.
 *
 * @module
 */
import { FeelFunction, type FeelValue, lazyConversion } from '../values.js';

/** @internal */
export class Scope {
  private constructor(
    private readonly parent: Scope | null,
    private readonly vars: ReadonlyMap<string, FeelValue> | null,
    private readonly funcs: ReadonlyMap<string, FeelFunction> | null,
    private readonly root: Readonly<Record<string, unknown>> | null,
  ) {}

  /** The outermost scope: plain variables, read (and converted) only when a name is looked up. */
  static root(variables: Readonly<Record<string, unknown>>): Scope {
    return new Scope(null, null, null, variables);
  }

  /** A frame of variables (and functions) over this scope. */
  with(vars: ReadonlyMap<string, FeelValue> | null, funcs: ReadonlyMap<string, FeelFunction> | null = null): Scope {
    return new Scope(this, vars, funcs, null);
  }

  /** One variable over this scope. */
  withVariable(name: string, value: FeelValue): Scope {
    return new Scope(this, new Map([[name, value]]), null, null);
  }

  /** The variable's value, or undefined when no frame has it. */
  variable(name: string): FeelValue | undefined {
    for (let scope: Scope | null = this; scope; scope = scope.parent) {
      if (scope.vars) {
        const value = scope.vars.get(name);
        if (value !== undefined || scope.vars.has(name)) return value;
      } else if (scope.root && Object.hasOwn(scope.root, name)) {
        const raw = scope.root[name];
        if (raw !== undefined) return lazyConversion.toFeel(raw, name);
      }
    }
    return undefined;
  }

  /**
   * The functions named `name` the frames define, innermost first; a variable whose value is a function
   * (a parameter `f` of `function(f) f(1)`, a DMN knowledge model) is one too.
   */
  functions(name: string): FeelFunction[] {
    const found: FeelFunction[] = [];
    for (let scope: Scope | null = this; scope; scope = scope.parent) {
      const fn = scope.funcs?.get(name);
      if (fn) found.push(fn);
      const held = scope.vars ? scope.vars.get(name) : scope.root?.[name];
      if (held instanceof FeelFunction && (scope.vars !== null || Object.hasOwn(scope.root!, name))) found.push(held);
    }
    return found;
  }
}
