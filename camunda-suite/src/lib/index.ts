// A stand-in for the SDK's source module src/lib/index.ts (README.md): the published package's build of it.
export * from '@camunda8/sdk/dist/lib/index.js';
