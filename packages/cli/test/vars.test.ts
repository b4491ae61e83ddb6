import { describe, expect, it } from 'vitest';
import { UsageError } from '../src/errors.js';
import { parseVar, parseVars, parseVarValue } from '../src/vars.js';

const value = (text: string, expected: unknown) =>
  it(`should read ${JSON.stringify(text)} as ${JSON.stringify(expected)}`, () => {
    expect(parseVarValue(text)).toEqual(expected);
  });

describe('parseVarValue', () => {
  value('2', 2);
  value('-1.5', -1.5);
  value('true', true);
  value('false', false);
  value('null', null);
  value('[1,2]', [1, 2]);
  value('{"a":1}', { a: 1 });
  value('"quoted"', 'quoted');
  value('hello', 'hello');
  value('hello world', 'hello world');
  value('A-1001', 'A-1001');
  value('007', '007');
  value('', '');
  value('[1,', '[1,');
  value('12345678901234567890', '12345678901234567890');
  value('1e400', '1e400');
});

describe('parseVar', () => {
  it('should split at the first "=" only', () => {
    expect(parseVar('note=a=b')).toEqual(['note', 'a=b']);
  });

  it('should trim the name', () => {
    expect(parseVar(' total =120')).toEqual(['total', 120]);
  });

  it('should read an empty value as the empty string', () => {
    expect(parseVar('name=')).toEqual(['name', '']);
  });

  it('should refuse an argument without "=", naming it', () => {
    expect(() => parseVar('total')).toThrow(UsageError);
    expect(() => parseVar('total')).toThrow(/--var "total": expected NAME=VALUE/);
  });

  it('should refuse an argument without a name, naming it', () => {
    expect(() => parseVar('=5')).toThrow(/--var "=5": the variable name before "=" is missing/);
  });

  it('should carry the usage line it is given', () => {
    const error = (() => {
      try {
        parseVar('x', '--var', 'thresher run FILE');
      } catch (thrown) {
        return thrown;
      }
    })();
    expect(UsageError.isUsage(error)).toBe(true);
    expect((error as UsageError).usage).toBe('thresher run FILE');
  });
});

describe('parseVars', () => {
  it('should read every argument, the last of a repeated name winning', () => {
    expect(parseVars(['a=2', 'ok=true', 'items=[1,2]', 'a=3', 's=x'])).toEqual({
      a: 3,
      ok: true,
      items: [1, 2],
      s: 'x',
    });
  });

  it('should keep "__proto__" as a plain variable', () => {
    const variables = parseVars(['__proto__={"polluted":true}']);
    expect(Object.getPrototypeOf(variables)).toBe(Object.prototype);
    expect(Object.keys(variables)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('should read no arguments as no variables', () => {
    expect(parseVars([])).toEqual({});
  });
});
