/**
 * The architecture doc says what the code is: the checkpoint schema it states is the one this build writes, the
 * seams it counts are the loop host's, and it names every module of the engine's core and runtime.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { CURRENT_SCHEMA, createMemoryRepository } from '@thresher/checkpoint';
import { describe, expect, it } from 'vitest';
import { createEngineParts } from '../packages/engine/src/runtime/engine-parts.js';

const root = new URL('../', import.meta.url);
const architecture = readFileSync(new URL('docs/architecture.md', root), 'utf8');
const WORDS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten'];

describe('docs/architecture.md', () => {
  it('should state the checkpoint schema this build writes', () => {
    expect(architecture.match(/The current schema is \*\*(\d+)\*\*/)?.[1]).toBe(String(CURRENT_SCHEMA));
  });

  it("should count the loop host's seams", () => {
    const parts = createEngineParts({ repository: createMemoryRepository() });
    clearInterval(parts.renewing);
    parts.sweep.stop();
    const stated = architecture.match(/A loop reaches the engine through (\w+) narrow seams/)?.[1];
    expect(stated).toBe(WORDS[Object.keys(parts.loopHost).length]);
    for (const seam of Object.keys(parts.loopHost)) expect(architecture).toContain(`\`${seam}\``);
  });

  it.each(['core', 'runtime'])('should name every module of the engine’s %s/', (layer) => {
    const folder = fileURLToPath(new URL(`packages/engine/src/${layer}/`, root));
    const modules = readdirSync(folder).filter((file) => file.endsWith('.ts'));
    expect(
      modules.filter((file) => !architecture.includes(`\`${file}\``) && !architecture.includes(`${layer}/${file}`)),
    ).toEqual([]);
  });
});
