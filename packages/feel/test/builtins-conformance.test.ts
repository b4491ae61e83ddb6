/**
 * Every function Camunda documents (`@camunda/feel-builtins`: the FEEL standard library, Camunda's
 * extensions and Zeebe's `fromAi`), with every signature, called by position and by name, resolves
 * to a function here. A newer list fails this test for each function or signature still missing.
 */
import { camundaBuiltins } from '@camunda/feel-builtins';
import { describe, expect, test } from 'vitest';
import { evaluate, FeelWarningType, functionIssues, parseExpression } from '../src/index.js';

const signatures = camundaBuiltins.map((builtin) => ({
  name: builtin.name,
  params: (builtin.params ?? []).map((param) => param.name),
}));

function resolves(source: string): void {
  const parsed = parseExpression(source);
  expect(functionIssues(parsed)).toEqual([]);
  const result = evaluate(parsed, {}, { now: () => 0, unsafeRandom: () => 0.5, unsafeUuid: () => 'u' });
  const warnings = result.ok ? result.warnings : result.failure.warnings;
  expect(warnings.filter((warning) => warning.type === FeelWarningType.NoFunctionFound)).toEqual([]);
}

describe('Camunda built-ins (@camunda/feel-builtins)', () => {
  test('the list is not empty', () => {
    expect(signatures.length).toBeGreaterThan(100);
  });

  for (const { name, params } of signatures) {
    test(`${name}(${params.join(', ')}) resolves by position`, () => {
      resolves(`${name}(${params.map(() => 'null').join(', ')})`);
    });
    if (params.length > 0) {
      test(`${name}(${params.join(', ')}) resolves by name`, () => {
        resolves(`${name}(${params.map((param) => `${param}: null`).join(', ')})`);
      });
    }
  }
});
