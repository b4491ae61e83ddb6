// Walks one feel-scala test suite (an AnyFlatSpec class) and turns each evaluation it asserts on into a case of
// the data set, or into a counted skip with the reason. Every call of the harness's evaluation helpers inside a
// test is one candidate: extracted + skipped = candidates, so nothing is dropped without a count.

import { lex } from './scala-lexer.mjs';
import { parseClasses } from './scala-parser.mjs';
import {
  describe,
  dottedName,
  Scope,
  scalaMapEntries,
  scalaString,
  scalaValue,
  Untranslatable,
} from './scala-values.mjs';

/** The two harnesses of feel-scala's tests, by the trait a suite mixes in. */
const HARNESSES = {
  // impl/FeelEngineTest.scala: FeelEngineApi, results mapped to Scala/Java values by the default value mapper.
  FeelEngineTest: {
    harness: 'api',
    calls: {
      evaluateExpression: { kind: 'expression', params: ['expression', 'variables', 'functions'] },
      evaluateUnaryTests: { kind: 'unaryTests', params: ['expression', 'inputValue', 'variables', 'functions'] },
    },
  },
  // impl/FeelIntegrationTest.scala: parser + interpreter directly, results compared as feel-scala Val values.
  FeelIntegrationTest: {
    harness: 'interpreter',
    calls: {
      eval: { kind: 'expression', params: ['expression', 'variables', 'functions'] },
      evalUnaryTests: { kind: 'unaryTests', params: ['inputValue', 'expression', 'variables'] },
    },
  },
};

const VERBS = new Set(['should', 'must', 'can', 'when']);
const ASSERTIONS = new Set(['should', 'shouldBe', 'shouldEqual', 'must', 'mustBe']);

/** Finds the harness a suite mixes in, from its `extends … with …` header tokens. */
function harnessOf(tokens) {
  for (const token of tokens) {
    if (token.type === 'id' && token.value in HARNESSES) return { name: token.value, ...HARNESSES[token.value] };
    if (token.type === 'punct' && token.value === '{') break;
  }
  return undefined;
}

/** All harness evaluation calls inside an AST node (the candidates it holds). */
function evaluationCalls(node, calls, found = []) {
  if (!node || typeof node !== 'object') return found;
  if (Array.isArray(node)) {
    for (const item of node) evaluationCalls(item, calls, found);
    return found;
  }
  if (node.t === 'app' && node.fn.t === 'id' && node.fn.name in calls) found.push(node);
  for (const [key, value] of Object.entries(node)) {
    if (key !== 'line' && value && typeof value === 'object') evaluationCalls(value, calls, found);
  }
  return found;
}

/** Evaluation calls in a statement that did not parse, found in its raw tokens. */
function evaluationCallsInTokens(tokens, start, end, calls) {
  const found = [];
  for (let k = start; k < end; k++) {
    const token = tokens[k];
    const before = tokens[k - 1];
    if (
      token.type === 'id' &&
      token.value in calls &&
      tokens[k + 1]?.value === '(' &&
      before?.value !== '.' &&
      before?.value !== 'def'
    ) {
      found.push({ line: token.line });
    }
  }
  return found;
}

/** Binds a call's arguments to its parameter names (positional, then named). */
function bindArguments(call, spec) {
  const bound = {};
  call.args.forEach((arg, index) => {
    const name = arg.name ?? spec.params[index];
    if (!name) throw new Untranslatable(`an extra argument to ${call.fn.name}`);
    bound[name] = arg.value;
  });
  return bound;
}

/** Whether a node is a Context value (`Context.StaticContext(…)`, `new SomeContext(…)`), not variables. */
function contextArgument(node) {
  if (node.t === 'new') return { custom: node.cls };
  if (dottedName(node) === 'Context.EmptyContext') return { static: { args: [] } };
  if (node.t === 'app' && /(^|\.)StaticContext$/.test(dottedName(node.fn) ?? '')) return { static: node };
  return undefined;
}

/**
 * The variables of a call, from its `variables` Map or a `context` that is a `Context.StaticContext(variables)` /
 * `Context.EmptyContext`. Any other argument (custom contexts, Scala functions) makes the case untranslatable.
 */
function variablesOf(bound, scope) {
  let variablesNode;
  for (const [key, node] of Object.entries(bound)) {
    if (key === 'expression' || node === undefined) continue;
    const resolved = resolveNode(node, scope);
    const ctx = resolved && contextArgument(resolved.node);
    if (key === 'context' || ((key === 'inputValue' || key === 'variables') && ctx)) {
      if (!ctx) throw new Untranslatable(`a context built in Scala (${describe(node)})`);
      if (ctx.custom) throw new Untranslatable(`a custom Context implementation (${ctx.custom})`);
      const [first, ...rest] = ctx.static.args;
      if (rest.length > 0 || (first?.name && first.name !== 'variables')) {
        throw new Untranslatable('a StaticContext with functions');
      }
      variablesNode = first?.value;
      bound[key] = undefined;
      continue;
    }
    if (key === 'variables') variablesNode = node;
    else if (key === 'functions') {
      if (scalaMapEntries(node, scope).length > 0) {
        throw new Untranslatable('functions written in Scala passed to the evaluation');
      }
    } else if (key !== 'inputValue') throw new Untranslatable(`the argument ${key}`);
  }
  if (!variablesNode) return undefined;
  const variables = {};
  for (const [name, node, s] of scalaMapEntries(variablesNode, scope)) variables[name] = scalaValue(node, s);
  return variables;
}

/** Follows `val` bindings from an identifier to the node it names (undefined for opaque bindings). */
function resolveNode(node, scope) {
  let n = node;
  let s = scope;
  while (n.t === 'id' || n.t === 'paren') {
    if (n.t === 'paren') {
      n = n.e;
      continue;
    }
    const binding = s.lookup(n.name);
    if (!binding) return { node: n, scope: s };
    if (!binding.ast) return undefined;
    n = binding.ast;
    s = binding.scope;
  }
  return { node: n, scope: s };
}

/** The name of a failure type argument (`EvaluationFailureType.NO_VARIABLE_FOUND` → `NO_VARIABLE_FOUND`). */
function failureTypeName(node) {
  const name = dottedName(node);
  if (!name) throw new Untranslatable(`the failure type ${describe(node)}`);
  return name.split('.').pop();
}

/**
 * Translates the matcher side of `call should <matcher>` into the case's `expect`. The api harness returns an
 * EvaluationResult, asserted only through EvaluationResultMatchers; the interpreter harness returns a Val,
 * asserted with `be(…)` / `shouldBe …`.
 */
function expectation(harness, op, matcher, scope) {
  let m = matcher;
  while (m.t === 'paren') m = m.e;
  const valueMatcher =
    op === 'shouldBe' || op === 'shouldEqual' || op === 'mustBe' || isCall(m, 'be') || isCall(m, 'equal');
  if (valueMatcher !== (harness === 'interpreter')) {
    throw new Untranslatable(`the matcher ${describe(m)} on the ${harness} harness's result`);
  }
  if (op === 'shouldBe' || op === 'shouldEqual' || op === 'mustBe') return valueExpectation(m, scope);
  if (m.t === 'app' && m.fn.t === 'id') {
    const args = m.args;
    switch (m.fn.name) {
      case 'returnResult':
        return scalaValue(args[0].value, scope);
      case 'returnNull':
        return null;
      case 'failWith':
        return { $failure: scalaString(args[0].value, scope) };
      case 'failToParse':
        return { $failure: 'failed to parse' };
      case 'be':
      case 'equal':
        return valueExpectation(args[0].value, scope);
      default:
        break;
    }
  }
  if (isCall(m, 'reportFailure')) return { $anyResult: true, suppressed: [suppressedFailure(m, scope)] };
  if (m.t === 'infix' && m.op === 'and') {
    // (returnNull() | returnResult(x)) and reportFailure(…) [and reportFailure(…) …], left-nested.
    const parts = [];
    const flatten = (node) => {
      const n = node.t === 'paren' ? node.e : node;
      if (n.t === 'infix' && n.op === 'and') {
        flatten(n.l);
        flatten(n.r);
      } else parts.push(n);
    };
    flatten(m);
    const reports = parts.filter((p) => isCall(p, 'reportFailure'));
    const others = parts.filter((p) => !isCall(p, 'reportFailure'));
    if (reports.length > 0 && others.length === 1) {
      const suppressed = reports.map((r) => suppressedFailure(r, scope));
      if (isCall(others[0], 'returnNull')) return { $null: true, suppressed };
      if (isCall(others[0], 'returnResult')) return { $result: scalaValue(others[0].args[0].value, scope), suppressed };
    }
  }
  throw new Untranslatable(`the matcher ${describe(m)}`);
}

function isCall(node, name) {
  return node?.t === 'app' && node.fn.t === 'id' && node.fn.name === name;
}

/** `reportFailure(failureType, failureMessage)`: the suppressed failure the evaluation must report. */
function suppressedFailure(report, scope) {
  const named = Object.fromEntries(report.args.filter((a) => a.name).map((a) => [a.name, a.value]));
  const typeNode = named.failureType ?? report.args[0].value;
  const messageNode = named.failureMessage ?? report.args[1].value;
  return { type: failureTypeName(typeNode), message: scalaString(messageNode, scope) };
}

/** An expected value given as a value (`be(ValNumber(1))`, `shouldBe true`), where ValError means a failure. */
function valueExpectation(node, scope) {
  if (node.t === 'app' && dottedName(node.fn) === 'ValError') {
    return { $failure: scalaString(node.args[0].value, scope) };
  }
  if (node.t === 'tapp' || (node.t === 'id' && ['a', 'an', 'empty'].includes(node.name))) {
    throw new Untranslatable(`a type or shape check (${describe(node)}) instead of a value`);
  }
  return scalaValue(node, scope);
}

/**
 * Extracts the cases of one suite.
 * @param {string} source the Scala file's text
 * @param {string} path its path inside the feel-scala checkout (for `source`)
 * @returns {{ suite: string, harness?: string, outOfScope?: string, cases: object[], skipped: object[] }}
 */
export function extractSuite(source, path) {
  const tokens = lex(source);
  const classes = parseClasses(tokens);
  const suite = path
    .split('/')
    .pop()
    .replace(/\.scala$/, '');
  const cls = classes.find((c) => c.name === suite) ?? classes[0];
  if (!cls) return { suite, outOfScope: 'holds no test class (a harness trait)', cases: [], skipped: [] };
  const classAt = tokens.findIndex((t, k) => t.value === 'class' && tokens[k + 1]?.value === cls.name);
  // Start after the class's own name: api/FeelEngineTest.scala's class shares the name of the harness trait.
  const harness = harnessOf(tokens.slice(classAt + 2));
  if (!harness) {
    return {
      suite,
      outOfScope: 'uses neither FeelEngineTest nor FeelIntegrationTest: it tests the Java/Scala API, not FEEL',
      cases: [],
      skipped: [],
    };
  }
  const cases = [];
  const skipped = [];
  const usedIds = new Set();
  const classScope = new Scope();
  let subject = '';

  /** Counts each of `calls` (nodes or `{ line }`) as a skipped candidate, at its own line. */
  const skipAll = (calls, reason) => {
    for (const call of calls) skipped.push({ line: call.line, reason });
  };
  const skip = (line, reason) => skipped.push({ line, reason });

  const makeId = (line, row) => {
    const base = `${suite}:${line}${row ? `:row${row}` : ''}`;
    let id = base;
    for (let n = 2; usedIds.has(id); n++) id = `${base}#${n}`;
    usedIds.add(id);
    return id;
  };

  const assertion = (node, scope, test, row) => {
    const calls = evaluationCalls(node, candidates);
    if (calls.length === 0) return;
    let e = node;
    while (e.t === 'paren') e = e.e;
    const call = e.t === 'infix' || e.t === 'postfix' ? (e.l ?? e.e) : undefined;
    const isDirect =
      (e.t === 'infix' || e.t === 'postfix') &&
      ASSERTIONS.has(e.op) &&
      call?.t === 'app' &&
      call.fn.t === 'id' &&
      call.fn.name in harness.calls &&
      calls.length === 1;
    const helperCall = calls.find((c) => c.fn.name in helpers);
    if (helperCall) {
      skipAll(calls, `evaluated through the suite's helper ${helperCall.fn.name} (a context built in Scala)`);
      return;
    }
    if (!isDirect) {
      // forEvery(table) { (a, b) => … }: one set of cases per table row.
      if (e.t === 'app' && e.fn.t === 'app' && ['forEvery', 'forAll'].includes(dottedName(e.fn.fn))) {
        tableCases(e, scope, test);
        return;
      }
      skipAll(calls, `the result is inspected in Scala (${describeAssertion(e)})`);
      return;
    }
    const line = call.line;
    try {
      if (e.t === 'postfix') throw new Untranslatable(`the postfix assertion ${e.op}`);
      const spec = harness.calls[call.fn.name];
      const bound = bindArguments(call, spec);
      const variables = variablesOf(bound, scope);
      const testCase = {
        id: makeId(line, row),
        source: `${path}:${line}`,
        test,
        harness: harness.harness,
        kind: spec.kind,
        expression: scalaString(bound.expression, scope),
      };
      // Unary tests evaluated with a context and no input value leave `input` out (not the same as null).
      if (spec.kind === 'unaryTests' && bound.inputValue !== undefined) {
        testCase.input = scalaValue(bound.inputValue, scope);
      }
      if (variables && Object.keys(variables).length > 0) testCase.variables = variables;
      testCase.expect = expectation(harness.harness, e.op, e.r, scope);
      cases.push(testCase);
    } catch (error) {
      if (!(error instanceof Untranslatable)) throw error;
      skip(line, error.reason);
    }
  };

  const tableCases = (e, scope, test) => {
    const lambda = e.args[0]?.value;
    const tableNode = e.fn.args[0]?.value;
    const calls = evaluationCalls(lambda, candidates);
    try {
      const rows = tableRows(tableNode, scope);
      if (lambda?.t !== 'lambda') throw new Untranslatable('forEvery without a lambda');
      rows.forEach((row, index) => {
        const rowScope = new Scope(scope);
        lambda.params.forEach((param, k) => {
          if (param !== '_') rowScope.bindAst(param, row[k]);
        });
        body(lambda.body, rowScope, test, index + 1);
      });
    } catch (error) {
      if (!(error instanceof Untranslatable)) throw error;
      skipAll(calls, error.reason);
    }
  };

  const tableRows = (node, scope) => {
    let n = node;
    let s = scope;
    while (n.t === 'id') {
      const binding = s.lookup(n.name);
      if (!binding?.ast) throw new Untranslatable(`the table ${n.name}`);
      n = binding.ast;
      s = binding.scope;
    }
    if (n.t !== 'app' || dottedName(n.fn) !== 'Table') throw new Untranslatable(`a table built as ${describe(n)}`);
    // The first tuple is the heading; each further tuple (or single value) is a row.
    return n.args.slice(1).map(({ value }) => (value.t === 'tuple' ? value.items : [value]));
  };

  const body = (node, scope, test, row) => {
    if (node.t === 'block') {
      const blockScope = new Scope(scope);
      for (const stmt of node.stmts) statement(stmt, blockScope, test, row);
      return;
    }
    if (node.t === 'paren') return body(node.e, scope, test, row);
    assertion(node, scope, test, row);
  };

  const statement = (stmt, scope, test, row) => {
    if (stmt.t === 'val') {
      if (stmt.names.length === 1) scope.bindAst(stmt.names[0], stmt.expr);
      else for (const name of stmt.names) scope.bindOpaque(name, `the destructured val ${name}`);
      const calls = evaluationCalls(stmt.expr, candidates);
      if (calls.length > 0) skipAll(calls, 'the evaluation result is kept in a val and inspected in Scala');
      return;
    }
    if (stmt.t === 'declaration') {
      if (stmt.name) scope.bindOpaque(stmt.name, `${stmt.name}, a ${stmt.keyword} written in Scala`);
      const found = evaluationCallsInTokens(cls.tokens, stmt.start, stmt.end, candidates);
      if (stmt.keyword !== 'def' && found.length > 0) skipAll(found, `inside a local ${stmt.keyword}`);
      return;
    }
    if (stmt.t === 'unparsed') {
      for (const name of stmt.names)
        scope.bindOpaque(name, `the val ${name}, built by Scala code the script does not read`);
      const found = evaluationCallsInTokens(cls.tokens, stmt.start, stmt.end, candidates);
      if (found.length > 0) skipAll(found, `a Scala construct the script does not read (${stmt.reason})`);
      return;
    }
    const e = stmt.expr;
    if (e.t === 'app' && e.fn.t === 'app' && ['forEvery', 'forAll'].includes(dottedName(e.fn.fn))) {
      tableCases(e, scope, test);
      return;
    }
    if (e.t === 'block') return body(e, scope, test, row);
    assertion(e, scope, test, row);
  };

  // The suite's own helper defs that evaluate (SpecExampleTest.evalWithContext): their calls are candidates too,
  // skipped, since what they evaluate against is built in Scala.
  const helpers = {};
  for (const stmt of cls.stmts) {
    if (stmt.t === 'declaration' && stmt.keyword === 'def' && stmt.name) {
      if (evaluationCallsInTokens(cls.tokens, stmt.start + 1, stmt.end, harness.calls).length > 0) {
        helpers[stmt.name] = { helper: true };
      }
    }
  }
  const candidates = { ...harness.calls, ...helpers };

  const registrations = (stmts, scope, row) => {
    for (const stmt of stmts) {
      if (stmt.t === 'val') {
        if (stmt.names.length === 1) scope.bindAst(stmt.names[0], stmt.expr);
        continue;
      }
      if (stmt.t === 'declaration') {
        if (stmt.name && stmt.keyword !== 'import') {
          scope.bindOpaque(stmt.name, `${stmt.name}, a ${stmt.keyword} written in Scala`);
        }
        continue;
      }
      if (stmt.t === 'unparsed') {
        for (const name of stmt.names)
          scope.bindOpaque(name, `the val ${name}, built by Scala code the script does not read`);
        const found = evaluationCallsInTokens(cls.tokens, stmt.start, stmt.end, candidates);
        if (found.length > 0) skipAll(found, `a Scala construct the script does not read (${stmt.reason})`);
        continue;
      }
      register(stmt.expr, scope, row);
    }
  };

  const register = (e, scope, row) => {
    // List(a, b, …).foreach { x => it should s"… $x" in { … } }: one registration per item.
    if (e.t === 'app' && e.fn.t === 'sel' && e.fn.name === 'foreach' && e.args[0]?.value.t === 'lambda') {
      const lambda = e.args[0].value;
      const calls = evaluationCalls(lambda, candidates);
      const items = e.fn.obj;
      if (items.t !== 'app' || !['List', 'Seq'].includes(dottedName(items.fn)) || lambda.params.length !== 1) {
        if (calls.length > 0) skipAll(calls, `tests registered in a loop over ${describe(items)}`);
        return;
      }
      items.args.forEach((item, index) => {
        const itemScope = new Scope(scope);
        itemScope.bindAst(lambda.params[0], item.value);
        const lambdaBody = lambda.body.t === 'block' ? lambda.body.stmts : [{ t: 'expr', expr: lambda.body }];
        registrations(lambdaBody, itemScope, index + 1);
      });
      return;
    }
    const calls = evaluationCalls(e, candidates);
    let registration;
    try {
      registration = testRegistration(e, scope);
    } catch (error) {
      if (!(error instanceof Untranslatable)) throw error;
      if (calls.length > 0) skipAll(calls, error.reason);
      return;
    }
    if (!registration) {
      if (calls.length > 0) skipAll(calls, 'outside a test registration');
      return;
    }
    if (registration.subject !== undefined) subject = registration.subject;
    const test = `${subject} ${registration.verb} ${registration.description}`;
    if (registration.ignored) {
      if (calls.length > 0) skipAll(calls, 'the test is ignored in feel-scala');
      return;
    }
    let testBody = registration.body;
    if (testBody.t === 'app' && dottedName(testBody.fn) === 'withClock') {
      if (calls.length > 0) skipAll(calls, "depends on the test's clock (now/today)");
      return;
    }
    while (testBody.t === 'paren') testBody = testBody.e;
    body(testBody, scope, test, row);
  };

  registrations(cls.stmts, classScope, undefined);

  return { suite, harness: harness.harness, cases, skipped };
}

/** `"X" should "do y" in { … }` / `it should … in …` / `… ignore …`, or undefined for other statements. */
function testRegistration(e, scope) {
  if (e.t !== 'infix' || (e.op !== 'in' && e.op !== 'ignore')) return undefined;
  const head = e.l;
  if (head.t !== 'infix' || !VERBS.has(head.op) || !['str', 'interp'].includes(head.r.t)) return undefined;
  let subject;
  if (head.l.t === 'str') subject = head.l.v;
  else if (head.l.t === 'id' && ['it', 'they', 'ignore'].includes(head.l.name)) subject = undefined;
  else return undefined;
  return {
    subject,
    verb: head.op,
    description: scalaString(head.r, scope),
    body: e.r,
    ignored: e.op === 'ignore' || (head.l.t === 'id' && head.l.name === 'ignore'),
  };
}

function describeAssertion(e) {
  if (e.t === 'infix') return `${describe(e.l)} ${e.op} ${describe(e.r)}`;
  return describe(e);
}
