import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadFixture, runFixture } from '@thresher/testing';
import { describe, expect, it } from 'vitest';

/** The project's own kill-and-resume suite: every fixture under fixtures/, killed at every persist point. */
const root = fileURLToPath(new URL('../../../', import.meta.url));
const fixturesDir = join(root, 'fixtures');

function walk(dir: string, suffix: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.name === 'node_modules' || entry.name === 'checkpoints') return [];
    const path = join(dir, entry.name);
    return entry.isDirectory() ? walk(path, suffix) : entry.name.endsWith(suffix) ? [path] : [];
  });
}

const fixtures = walk(fixturesDir, '.fixture.yaml').sort();

describe('the fixtures under fixtures/', () => {
  it('should give every model a fixture', async () => {
    const covered = new Set<string>();
    for (const file of fixtures) {
      const fixture = await loadFixture(file);
      for (const model of fixture.models) covered.add(model.path);
      // A model a migrate move moves the instance onto is run by that fixture too.
      for (const move of fixture.moves) if (move.kind === 'migrate') covered.add(move.model.path);
    }
    const models = walk(fixturesDir, '.bpmn');
    expect(models.filter((model) => !covered.has(model)).map((model) => relative(root, model))).toEqual([]);
  });

  it.each(fixtures.map((file) => [relative(root, file), file]))(
    '%s should end the same from a kill at every persist point',
    async (_, file) => {
      const report = await runFixture(file, { kill: { kind: 'every' } });
      expect(report.expectationFailures).toEqual([]);
      expect(report.failures).toEqual([]);
      expect(report.tried).toHaveLength(report.persistPoints);
      expect(report.ok).toBe(true);
    },
  );
});

describe('the fixtures under fixtures/, on engines that dehydrate', () => {
  it.each(fixtures.map((file) => [relative(root, file), file]))(
    '%s should end the same from a kill at every persist point with parked instances out of memory',
    async (_, file) => {
      const report = await runFixture(file, { kill: { kind: 'every' }, dehydrate: true });
      expect(report.expectationFailures).toEqual([]);
      expect(report.failures).toEqual([]);
      expect(report.ok).toBe(true);
    },
  );
});
