/**
 * The deploy-time check that keeps a broken call from being a silent null at run time: every call of a
 * function that does not exist, with a number of arguments no signature takes, or with a parameter
 * name no signature has. feel-scala evaluates such a call to null (with a warning) — a model that
 * Thresher refuses at deploy instead.
 *
 * Names the expression defines count: a context literal's function entry (`{f: function(x) x, r:
 * f(1)}`). Variables never hold functions callable by name — not outside ones (data), and not those an
 * expression binds (`for`, `some`, parameters), which feel-scala keeps as variables.
 *
 * @module
 */

import { _treeOf, type FeelExpression, type FeelUnaryTests } from './api.js';
import type { Arguments, Node, Span } from './ast.js';
import { BUILTINS } from './builtins/registry.js';

/** What is wrong with a call. */
export const FunctionIssueKind = {
  UnknownFunction: 'unknown-function',
  WrongArity: 'wrong-arity',
  UnknownParameter: 'unknown-parameter',
  NotCallable: 'not-callable',
} as const;
/** One of {@link FunctionIssueKind}. */
export type FunctionIssueKind = (typeof FunctionIssueKind)[keyof typeof FunctionIssueKind];

/** A call that cannot be evaluated: the function's name, where the call is, what is wrong. */
export interface FunctionIssue {
  kind: FunctionIssueKind;
  /** The function's name as written. */
  name: string;
  /** The call's span in the source (0-based, `to` exclusive). */
  from: number;
  to: number;
  /** Says what is wrong and what would be right: `string join() takes 1, 2 or 4 arguments, not 3`. */
  message: string;
}

interface Signature {
  params: readonly string[];
  varArgs: boolean;
}

/** Context keys whose value is a function definition, anywhere in the tree, with their parameters. */
function definedFunctions(node: Node, into: Map<string, Signature[]>): void {
  visit(node, (child) => {
    if (child.kind !== 'context') return;
    for (const entry of child.entries) {
      if (entry.value.kind === 'function') {
        const list = into.get(entry.key) ?? [];
        list.push({ params: entry.value.params, varArgs: false });
        into.set(entry.key, list);
      } else if (mayBeFunction(entry.value)) {
        // An entry whose value is only known at run time might be a function: do not judge its calls.
        into.set(entry.key, [...(into.get(entry.key) ?? []), { params: [], varArgs: true }]);
      }
    }
  });
}

/** Whether a value could be a function at run time (only expressions bound to functions can). */
function mayBeFunction(node: Node): boolean {
  return ![
    'const',
    'temporal',
    'list',
    'context',
    'arith',
    'compare',
    'not',
    'or',
    'and',
    'range',
    'iteration',
  ].includes(node.kind);
}

/** Calls every node of the tree. */
function visit(node: Node, each: (node: Node) => void): void {
  each(node);
  for (const child of children(node)) visit(child, each);
}

function argNodes(args: Arguments): Node[] {
  return args.kind === 'positional' ? args.items : args.items.map((item) => item.value);
}

function children(node: Node): Node[] {
  switch (node.kind) {
    case 'const':
    case 'temporal':
    case 'input':
    case 'ref':
      return [];
    case 'list':
    case 'atLeastOne':
      return node.items;
    case 'context':
      return node.entries.map((entry) => entry.value);
    case 'range':
    case 'inputInRange':
      return [node.start.node, node.end.node];
    case 'inputCompare':
      return [node.value];
    case 'unaryTestExpression':
      return [node.node];
    case 'arith':
    case 'compare':
    case 'or':
    case 'and':
      return [node.left, node.right];
    case 'negate':
    case 'not':
      return [node.operand];
    case 'if':
      return [node.condition, node.whenTrue, node.whenFalse];
    case 'in':
      return [node.value, node.test];
    case 'instanceOf':
      return [node.value];
    case 'path':
      return [node.target];
    case 'for':
    case 'some':
    case 'every':
      return [...node.iterators.map((iterator) => iterator.source), node.body];
    case 'filter':
      return [node.list, node.filter];
    case 'iteration':
      return [node.start, node.end];
    case 'call':
      return argNodes(node.args);
    case 'qualifiedCall':
      return [node.target, ...argNodes(node.args)];
    case 'function':
      return [node.body];
  }
}

function describeCounts(signatures: readonly Signature[]): string {
  const counts = [...new Set(signatures.map((s) => s.params.length))].sort((a, b) => a - b);
  const text =
    counts.length === 1 ? String(counts[0]) : `${counts.slice(0, -1).join(', ')} or ${counts[counts.length - 1]}`;
  return signatures.some((s) => s.varArgs) ? `${text} or more` : text;
}

function check(name: string, args: Arguments, span: Span, signatures: readonly Signature[]): FunctionIssue | null {
  if (args.kind === 'positional') {
    const count = args.items.length;
    if (signatures.some((s) => s.params.length === count || (s.params.length < count && s.varArgs))) return null;
    const plural = count === 1 ? 'argument' : 'arguments';
    return {
      kind: FunctionIssueKind.WrongArity,
      name,
      ...span,
      message: `${name}() takes ${describeCounts(signatures)} arguments, not ${count} ${plural}`,
    };
  }
  const names = args.items.map((item) => item.name);
  if (signatures.some((s) => s.varArgs && s.params.length === 0)) return null;
  if (signatures.some((s) => names.every((n) => s.params.includes(n)))) return null;
  const known = new Set(signatures.flatMap((s) => s.params));
  const unknown = names.filter((n) => !known.has(n));
  const options = signatures.map((s) => `(${s.params.join(', ')})`).join(' or ');
  return {
    kind: FunctionIssueKind.UnknownParameter,
    name,
    ...span,
    message:
      unknown.length > 0
        ? `${name}() has no parameter ${unknown.map((n) => `"${n}"`).join(', ')}: its parameters are ${options}`
        : `${name}() takes no signature with the parameters ${names.join(', ')}: its parameters are ${options}`,
  };
}

/**
 * Every call in a parsed expression (or unary tests) that no function can answer: an unknown name,
 * a wrong number of arguments, an unknown parameter name, or `a.f()` on something that cannot hold
 * functions. Evaluating such a call would be null with a warning (or a failure); refuse the model.
 *
 * @returns the issues in source order; empty when every call resolves.
 * @example
 * ```ts
 * functionIssues(parseExpression('string join(items, ",", "[")'));
 * // [{ kind: 'wrong-arity', name: 'string join', from: 0, to: 28, message: 'string join() takes 1, 2 or 4 arguments, not 3 arguments' }]
 * ```
 */
export function functionIssues(parsed: FeelExpression | FeelUnaryTests): FunctionIssue[] {
  const tree = _treeOf(parsed);
  const defined = new Map<string, Signature[]>();
  definedFunctions(tree, defined);
  const issues: FunctionIssue[] = [];
  const bound = boundNames(tree);
  visit(tree, (node) => {
    if (node.kind === 'call') {
      const signatures: Signature[] = [
        ...(defined.get(node.name) ?? []),
        ...(BUILTINS.get(node.name) ?? []).map((fn) => ({ params: fn.params, varArgs: fn.varArgs })),
      ];
      const span = { from: node.from, to: node.to };
      if (signatures.length === 0) {
        issues.push({
          kind: FunctionIssueKind.UnknownFunction,
          name: node.name,
          ...span,
          message: `there is no function "${node.name}"`,
        });
        return;
      }
      const issue = check(node.name, node.args, span, signatures);
      if (issue) issues.push(issue);
    } else if (node.kind === 'qualifiedCall') {
      let root: Node = node.target;
      while (root.kind === 'path') root = root.target;
      // Only a context literal holds callable functions; data from outside never does.
      if (root.kind === 'ref' && !bound.has(root.name)) {
        issues.push({
          kind: FunctionIssueKind.NotCallable,
          name: node.name,
          from: node.from,
          to: node.to,
          message: `${node.name}() is called on "${root.name}", a variable from outside, which holds no functions: only a function entry of a context literal can be called as a.f()`,
        });
      }
    }
  });
  return issues.sort((a, b) => a.from - b.from);
}

/** Names the expression binds itself: context keys, iteration variables, parameters, `item`, `partial`. */
function boundNames(tree: Node): Set<string> {
  const names = new Set<string>(['item', 'partial']);
  visit(tree, (node) => {
    if (node.kind === 'context') for (const entry of node.entries) names.add(entry.key);
    if (node.kind === 'for' || node.kind === 'some' || node.kind === 'every') {
      for (const iterator of node.iterators) names.add(iterator.name);
    }
    if (node.kind === 'function') for (const param of node.params) names.add(param);
  });
  return names;
}
