// A stand-in for the SDK's source module src/zeebe/lib/cancelProcesses.ts (README.md): the published package's build of it.
export * from '@camunda8/sdk/dist/zeebe/lib/cancelProcesses.js';
