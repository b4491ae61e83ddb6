// A stand-in for the SDK's source module src/index.ts (README.md): the published package's build of it.
export * from '@camunda8/sdk/dist/index.js';
