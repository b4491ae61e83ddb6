// A stand-in for the SDK's source module src/c8/lib/C8Logger.ts (README.md): the published package's build of it.
export * from '@camunda8/sdk/dist/c8/lib/C8Logger.js';
