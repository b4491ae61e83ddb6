import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// Camunda's REST client tests, run as their `test:c8run` script runs them, against `thresher serve` (run.mjs).
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  resolve: {
    // One test imports `c8/lib/C8Dto` through the SDK's baseUrl.
    alias: { 'c8/lib/C8Dto': fileURLToPath(new URL('./src/c8/lib/C8Dto.ts', import.meta.url)) },
  },
  test: {
    include: ['src/__tests__/**/*.spec.ts'],
    globals: true,
    fileParallelism: false,
    sequence: { concurrent: false },
    testTimeout: 30_000,
  },
});
