/**
 * The differential suite: every case of feel-scala's own tests (data/feel-scala, feel-scala 1.19.5)
 * evaluated here must give feel-scala's answer. A case listed in feel-scala-departures.ts is a known,
 * explained departure: its test asserts that it still departs, so a fix shows up as a failure there.
 */
import { describe, expect, test } from 'vitest';
import { loadFeelScalaSuites } from './data/feel-scala/load.js';
import { DEPARTURES } from './feel-scala-departures.js';
import { mismatch } from './feel-scala-mismatch.js';

for (const suite of loadFeelScalaSuites()) {
  describe(`feel-scala ${suite.suite}`, () => {
    for (const c of suite.cases) {
      const departure = DEPARTURES[c.id];
      const name = `${c.id}: ${c.kind === 'unaryTests' ? 'unary tests ' : ''}${c.expression}`;
      if (departure) {
        test(`${name} departs from feel-scala: ${departure}`, () => {
          expect(mismatch(c)).not.toBe(null);
        });
      } else {
        test(`${name} gives feel-scala's answer`, () => {
          expect(mismatch(c)).toBe(null);
        });
      }
    }
  });
}
