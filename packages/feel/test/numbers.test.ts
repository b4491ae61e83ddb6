import { describe } from 'vitest';
import { FeelWarningType } from '../src/index.js';
import { fails, is, isNullWarned } from './helpers.js';

describe('decimal arithmetic, as feel-scala computes it (34 digits, half-even)', () => {
  is('0.1 + 0.2 = 0.3', true);
  is('0.1 + 0.2', 0.3);
  is('1 / 3', 0.3333333333333333);
  is('string(1 / 3)', '0.3333333333333333333333333333333333');
  is('string(2 / 3)', '0.6666666666666666666666666666666667');
  is('string(10 / 4)', '2.5');
  is('string(1 / 0.001)', '1E+3');
  is('9007199254740993 + 1', 9007199254740994n);
  is('12345678901234567890 * 10', 123456789012345678900n);
  is('-9007199254740991 - 10', -9007199254741001n);
  is('2 ** 100', 1267650600228229401496703205376n);
  is('2 ** -2', 0.25);
  is('-5 ** 2', 25);
  is('string(2 ** 0.5)', '1.4142135623730951');
  is('x + 1', 2, { x: 1 });
  is('x * 3', 0.3, { x: 0.1 });
  is('-x', -5, { x: 5 });
  is('- (1)', -1);
});

describe("a number's text keeps Java's scale", () => {
  is('string(1.5 * 2)', '3.0');
  is('string(2.50 + 1)', '3.50');
  is('string(sqrt(16))', '4.0');
  is('string(1.0)', '1.0');
  is('string(100)', '100');
  is('string(-0.5)', '-0.5');
  is('string(x)', '99.9', { x: 99.9 });
});

describe('arithmetic that feel-scala cannot do is null with a warning', () => {
  isNullWarned('1 + "a"', FeelWarningType.InvalidType);
  isNullWarned('1 / 0', FeelWarningType.InvalidType);
  isNullWarned('"a" - "b"', FeelWarningType.InvalidType);
  isNullWarned('-"a"', FeelWarningType.InvalidType);
  isNullWarned('x + 1', FeelWarningType.NoVariableFound);
  is('"a" + "b"', 'ab');
});

describe('rounding built-ins', () => {
  is('decimal(1/3, 2)', 0.33);
  is('decimal(2.5, 0)', 2);
  is('decimal(3.5, 0)', 4);
  is('floor(-1.5)', -2);
  is('ceiling(1.2)', 2);
  is('floor(n: 1.567, scale: 2)', 1.56);
  is('round up(5.5, 0)', 6);
  is('round down(-5.5, 0)', -5);
  is('round half up(-5.5, 0)', -6);
  is('round half down(5.5, 0)', 5);
  is('decimal(1.125, 2, "half_up")', 1.13);
  is('abs(-10)', 10);
  is('abs(n: -10)', 10);
  is('modulo(12, 5)', 2);
  is('modulo(-12, 5)', 3);
  is('modulo(10.1, 4.5)', 1.1);
  is('odd(5)', true);
  is('even(-4)', true);
  is('sqrt(-1)', null);
  is('random number()', 0.25);
  fails('log(0)', /NumberFormatException/);
});
