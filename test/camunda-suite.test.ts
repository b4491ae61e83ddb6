import { describe, expect, it } from 'vitest';
import { runSuite, startServer } from '../camunda-suite/run.mjs';

/**
 * The files of Camunda's REST client suite (camunda-suite/) that pass against `thresher serve`: each must keep
 * passing, every test in it. `pnpm camunda-suite` runs them all; a file joins this list once it passes.
 */
const PASSING = [
  'src/__tests__/8.8/getElementInstance.spec.ts',
  'src/__tests__/8.8/getProcessDefinition.spec.ts',
  'src/__tests__/8.8/getProcessDefinitionXML.spec.ts',
  'src/__tests__/8.8/getUserTask.spec.ts',
  'src/__tests__/8.8/getVariable.spec.ts',
  'src/__tests__/8.8/pinClock.rest.spec.ts',
  'src/__tests__/8.8/QuerySubscription.spec.ts',
  'src/__tests__/8.8/searchElementInstances.spec.ts',
  'src/__tests__/8.8/searchIncidents.spec.ts',
  'src/__tests__/8.8/searchProcessDefinitions.spec.ts',
  'src/__tests__/8.8/searchProcessInstances.spec.ts',
  'src/__tests__/8.8/searchUserTasks.spec.ts',
  'src/__tests__/8.8/searchUserTaskVariables.spec.ts',
  'src/__tests__/8.8/searchVariables.rest.spec.ts',
  'src/__tests__/8.8/updateElementInstanceVariables.spec.ts',
  'src/__tests__/8.8/userTasks.rest.spec.ts',
  'src/__tests__/c8/rest/activateJobs.rest.spec.ts',
  'src/__tests__/c8/rest/broadcastSignal.rest.spec.ts',
  'src/__tests__/c8/rest/callApiEndpoint.rest.spec.ts',
  'src/__tests__/c8/rest/createProcess.rest.spec.ts',
  'src/__tests__/c8/rest/deleteResource.rest.spec.ts',
  'src/__tests__/c8/rest/deployResources.rest.spec.ts',
  'src/__tests__/c8/rest/evaluateDecision.rest.spec.ts',
  'src/__tests__/c8/rest/jobWorker.rest.spec.ts',
  'src/__tests__/c8/rest/migrateProcess.rest.spec.ts',
  'src/__tests__/c8/rest/modifyProcessInstance.rest.spec.ts',
  'src/__tests__/c8/rest/publishMessage.rest.spec.ts',
  'src/__tests__/c8/rest/topology.rest.spec.ts',
  'src/__tests__/c8/rest/updateJobs.rest.spec.ts',
];

describe("Camunda's REST client suite", () => {
  it('should pass every file listed as passing, against a fresh thresher serve', { timeout: 180_000 }, async () => {
    const server = await startServer();
    try {
      const files = await runSuite(server.url, PASSING);
      expect(files.map(({ file }) => file).sort()).toEqual([...PASSING].sort());
      for (const file of files) {
        expect({ file: file.file, failed: file.failed, failures: file.failures, skipped: file.skipped }).toEqual({
          file: file.file,
          failed: 0,
          failures: [],
          skipped: 0,
        });
        expect(file.passed, file.file).toBeGreaterThan(0);
      }
    } finally {
      await server.stop();
    }
  });
});
