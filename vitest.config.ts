import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const src = (path: string) => fileURLToPath(new URL(`./packages/${path}`, import.meta.url));

// Tests run against the TypeScript sources; the CLI's child-process tests use the built dist.
export default defineConfig({
  resolve: {
    alias: [
      { find: /^@thresher\/checkpoint\/store-kit$/, replacement: src('checkpoint/src/store-kit/index.ts') },
      { find: /^@thresher\/checkpoint$/, replacement: src('checkpoint/src/index.ts') },
      { find: /^@thresher\/conformance$/, replacement: src('conformance/src/index.ts') },
      { find: /^@thresher\/feel$/, replacement: src('feel/src/index.ts') },
      { find: /^@thresher\/dmn$/, replacement: src('dmn/src/index.ts') },
      { find: /^@thresher\/engine\/model$/, replacement: src('engine/src/model-api.ts') },
      { find: /^@thresher\/engine$/, replacement: src('engine/src/index.ts') },
      { find: /^@thresher\/testing$/, replacement: src('testing/src/index.ts') },
      { find: /^@thresher\/store-sqlite$/, replacement: src('store-sqlite/src/index.ts') },
      { find: /^@thresher\/store-postgres$/, replacement: src('store-postgres/src/index.ts') },
      { find: /^@thresher\/ui$/, replacement: src('ui/src/index.ts') },
      { find: /^@thresher\/rest$/, replacement: src('rest/src/index.ts') },
      { find: /^@thresher\/cli$/, replacement: src('cli/src/index.ts') },
    ],
  },
  test: {
    include: ['packages/*/test/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
  },
});
