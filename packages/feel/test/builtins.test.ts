import { describe, expect, test } from 'vitest';
import { FeelWarningType } from '../src/index.js';
import { feel, is, isNullWarned, plain } from './helpers.js';

describe('string built-ins, with Java regular expressions', () => {
  is('substring("foobar", 3)', 'obar');
  is('substring("foobar", -2, 1)', 'a');
  is('string length("a😀")', 3);
  is('upper case("aBc")', 'ABC');
  is('substring before("foobar", "bar")', 'foo');
  is('substring after("foobar", "ob")', 'ar');
  is('contains("foobar", "of")', false);
  is('matches("abc\\n", "c$")', true);
  is('matches("ABC", "^abc$", "i")', true);
  is('matches("a b", "a\\s+b")', true);
  is('matches("abc", "[")', null);
  is('replace("abcd", "(ab)|(a)", "[1=$1][2=$2]")', '[1=ab][2=]cd');
  is('replace("a.b.c", "\\.", "\\$")', 'a$b$c');
  is('replace("Abc", "b", "X", "i")', 'AXc');
  is('split("a1b22c", "\\d+")', ['a', 'b', 'c']);
  is('split("a,b,", ",")', ['a', 'b', '']);
  is('extract("a1b22c333", "[0-9]+")', ['1', '22', '333']);
  is('extract(string: "a1", pattern: "\\d")', ['1']);
  is('trim("  a b \\n")', 'a b');
  is('is blank(" \\t ")', true);
  is('to base64("FEEL")', 'RkVFTA==');
  is('from base64("RkVFTA==")', 'FEEL');
  is('uuid()', '00000000-0000-7000-8000-000000000000');
  isNullWarned('from base64("%%%")', FeelWarningType.FunctionInvocationFailure);
});

describe('list built-ins', () => {
  is('list contains([1, 2.0], 2)', true);
  is('count([1, [2, 3]])', 2);
  is('min(3, 1, 2)', 1);
  is('max(["a", "c", "b"])', 'c');
  is('sum([0.1, 0.2])', 0.3);
  is('mean([1, 2, 3, 4])', 2.5);
  is('median(8, 2, 5, 3, 4)', 4);
  is('mode([6, 3, 9, 6, 6])', [6]);
  is('string(stddev(2, 4, 7, 5))', '2.0816659994661326');
  is('all([true, null, false])', false);
  is('any([false, null])', null);
  is('sublist([1, 2, 3, 4], -3, 2)', [2, 3]);
  is('append([1], 2, 3)', [1, 2, 3]);
  is('concatenate([1], [2, 3])', [1, 2, 3]);
  is('insert before([1, 3], 2, 2)', [1, 2, 3]);
  is('remove([1, 2, 3], -1)', [1, 2]);
  is('index of([1, 2, 1], 1)', [1, 3]);
  is('union([1, 2], [2, 3])', [1, 2, 3]);
  is('distinct values([1, 1.0, "a", "a"])', [1, 'a']);
  is('duplicate values([1, 2, 1, 3, 3])', [1, 3]);
  is('flatten([1, [2, [3]]])', [1, 2, 3]);
  is('sort([3, 1, 2], function(x, y) x < y)', [1, 2, 3]);
  is('string join(["a", null, "c"], "-", "<", ">")', '<a-c>');
  is('is empty([])', true);
  is('partition([1, 2, 3], 2)', [[1, 2], [3]]);
  is('reverse([1, 2])', [2, 1]);
  isNullWarned('sum([1, "a"])', FeelWarningType.FunctionInvocationFailure);
});

describe('context built-ins', () => {
  is('get value({a: {b: 1}}, ["a", "b"])', 1);
  is('get value({a: 1}, "a")', 1);
  is('get entries({a: 1})', [{ key: 'a', value: 1 }]);
  is('context put({a: 1}, "b", 2)', { a: 1, b: 2 });
  is('context put({a: {b: 1}}, ["a", "c"], 2)', { a: { b: 1, c: 2 } });
  is('context merge([{a: 1}, {a: 2, b: 3}])', { a: 2, b: 3 });
  is('context([{key: "a", value: 1}])', { a: 1 });
});

describe('range built-ins (Allen’s relations)', () => {
  is('before(1, 10)', true);
  is('before([1..5], 5)', false);
  is('before([1..5), 5)', true);
  is('before(point: 1, range: [2..5])', true);
  is('meets([1..5], [5..10])', true);
  is('overlaps([1..5], [3..8])', true);
  is('during(5, [1..10])', true);
  is('includes([1..10], [2..3])', true);
  is('starts(1, [1..5])', true);
  is('finished by([1..5], 5)', true);
  is('coincides(date("2024-05-01"), date("2024-05-01"))', true);
});

describe('Camunda’s and Zeebe’s functions', () => {
  is('is defined(null)', false);
  is('get or else(x, "default")', 'default');
  is('assert(5, true)', 5);
  is('fromAi(toolCall.amount, "the amount")', 120, { toolCall: { amount: 120 } });
  is('fromAi(value: 1, description: "d", type: "number", schema: {}, options: {})', 1);
  is('cycle(duration("PT1H"))', 'R/PT1H');
  is('cycle(3, duration("P1D"))', 'R3/P1D');
  is('cycle(null, duration("PT5M"))', 'R/PT5M');
  is('random number()', 0.25);
});

describe('JSON built-ins', () => {
  is('to json({a: [1, "x", null, 1.50], d: date("2024-05-01")})', '{"a":[1,"x",null,1.50],"d":"2024-05-01"}');
  is('to json(duration("P1DT2H"))', '"PT26H"');
  is('from json("{\\"a\\": [1, 2.5, true]}")', { a: [1, 2.5, true] });
  test('from json keeps big integers exact', () => {
    expect(plain(feel('from json("12345678901234567890")'))).toBe(12345678901234567890n);
  });
  isNullWarned('from json("{")', FeelWarningType.FunctionInvocationFailure);
});
