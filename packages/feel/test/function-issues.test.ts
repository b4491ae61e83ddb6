import { describe, expect, test } from 'vitest';
import { FunctionIssueKind, functionIssues, parseExpression, parseUnaryTests } from '../src/index.js';

const kinds = (source: string) => functionIssues(parseExpression(source)).map((issue) => issue.kind);

describe('functionIssues finds each call that cannot be evaluated, before anything runs', () => {
  const cases: [string, FunctionIssueKind[]][] = [
    ['foo(1)', [FunctionIssueKind.UnknownFunction]],
    ['string join(items, ",", "[")', [FunctionIssueKind.WrongArity]],
    ['substring("abc")', [FunctionIssueKind.WrongArity]],
    ['substring(string: "abc", from: 1)', [FunctionIssueKind.UnknownParameter]],
    ['sum()', [FunctionIssueKind.WrongArity]],
    ['order.total(1)', [FunctionIssueKind.NotCallable]],
    ['upper case(name) + foo(x) + bar()', [FunctionIssueKind.UnknownFunction, FunctionIssueKind.UnknownFunction]],
    ['for f in [1] return f(1)', [FunctionIssueKind.UnknownFunction]],
    ['function(g) g(1)', [FunctionIssueKind.UnknownFunction]],
    ['{f: function(x) x + 1, r: f(1, 2)}.r', [FunctionIssueKind.WrongArity]],
  ];
  for (const [source, expected] of cases) {
    test(`${source} has ${expected.length ? expected.join(', ') : 'no issue'}`, () => {
      expect(kinds(source)).toEqual(expected);
    });
  }
});

describe('calls that resolve are not reported', () => {
  for (const source of [
    'sum(1, 2, 3)',
    'sum([1, 2])',
    'string join(list: items, delimiter: ",")',
    'substring(string: "abc", start position: 2)',
    'get or else(x, 0)',
    'is defined(x) and is empty([])',
    '{f: function(x) x + 1, r: f(1)}.r',
    '{a: {f: function() 1}, r: a.f()}.r',
    'date and time(date("2024-05-01"), time("10:00:00"))',
    'cycle(duration("PT1H"))',
    'fromAi(toolCall.amount, "the amount", "number")',
  ]) {
    test(`${source} has no issue`, () => {
      expect(functionIssues(parseExpression(source))).toEqual([]);
    });
  }
});

test('an issue names the function, the span of the call and what is wrong', () => {
  const [issue] = functionIssues(parseExpression('1 + string join(a, "-", "[")'));
  expect(issue).toEqual({
    kind: FunctionIssueKind.WrongArity,
    name: 'string join',
    from: 4,
    to: 28,
    message: 'string join() takes 1, 2 or 4 arguments, not 3 arguments',
  });
});

test('unary tests are checked too', () => {
  expect(functionIssues(parseUnaryTests('foo(?)')).map((issue) => issue.name)).toEqual(['foo']);
});
