/**
 * The public API of every package is what its checked-in report (packages/NAME/api/) says: a change to the
 * surface shows up as a diff of the report in review, and an entry point that exposes a type it does not
 * export fails here. Reads the built declarations (`pnpm test` builds first); `pnpm api:update` rewrites the
 * reports after an intended change.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';

interface Finding {
  entry: string;
  report: string;
  changed: boolean;
  forgotten: string[];
  unexported: string[];
}

const root = fileURLToPath(new URL('../', import.meta.url));
let findings: Finding[];

beforeAll(() => {
  // The check exits 1 when something differs; its findings are on stdout either way.
  try {
    findings = JSON.parse(execFileSync('node', ['scripts/api-reports.mjs', '--json'], { cwd: root, encoding: 'utf8' }));
  } catch (error) {
    findings = JSON.parse((error as { stdout: string }).stdout);
  }
}, 180_000);

describe('the public API reports', () => {
  it('should cover every entry point of every public package', () => {
    expect(findings.map(({ entry }) => entry)).toEqual(
      expect.arrayContaining(['@thresher/engine', '@thresher/engine/model', '@thresher/testing', '@thresher/ui']),
    );
  });

  it('should match what each entry point exports', () => {
    expect(findings.filter(({ changed }) => changed).map(({ report }) => report)).toEqual([]);
  });

  it('should export every type of its own that a public signature uses', () => {
    expect(findings.flatMap(({ entry, forgotten }) => forgotten.map((text) => `${entry}: ${text}`))).toEqual([]);
  });

  it('should export every @thresher type a public signature uses, not leave it to another package', () => {
    expect(findings.filter(({ unexported }) => unexported.length > 0)).toEqual([]);
  });
});
