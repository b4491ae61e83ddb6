import type { Operation } from '../operation.js';
import { Problem, ProblemKind } from '../problem.js';
import { readClockPin } from '../schemas/clock.js';

/** The gateway version Thresher answers as: the API it serves is 8.8's. */
export const GATEWAY_VERSION = '8.8.0';

/** One broker leading one partition: Thresher's store is one log, whichever process writes it. */
const getTopology: Operation = async ({ req }) => {
  const [host = 'localhost', port = '8080'] = (req.headers.host ?? '').split(':');
  return {
    status: 200,
    body: {
      brokers: [
        {
          nodeId: 0,
          host,
          port: Number(port) || 8080,
          partitions: [{ partitionId: 1, role: 'leader', health: 'healthy' }],
          version: GATEWAY_VERSION,
        },
      ],
      clusterSize: 1,
      partitionsCount: 1,
      replicationFactor: 1,
      gatewayVersion: GATEWAY_VERSION,
      lastCompletedChangeId: '-1',
    },
  };
};

/** Up (204) while the engine's store answers a read; down (503) when it does not. */
const getStatus: Operation = async ({ engine }) => {
  try {
    await engine.instances({ limit: 1 });
  } catch (error) {
    throw new Problem(ProblemKind.Unavailable, `the engine's store does not answer: ${(error as Error).message}`);
  }
  return { status: 204 };
};

/** Thresher carries no Camunda license, and says so. */
const getLicense: Operation = async () => ({
  status: 200,
  body: { validLicense: false, licenseType: 'unknown', isCommercial: false, expiresAt: null },
});

const pinClock: Operation = async ({ clock, json }) => {
  const { timestamp } = readClockPin(await json());
  pinnable(clock).pin(timestamp);
  return { status: 204 };
};

const resetClock: Operation = async ({ clock }) => {
  pinnable(clock).reset();
  return { status: 204 };
};

function pinnable<T>(clock: T | undefined): T {
  if (clock === undefined) {
    throw new Problem(ProblemKind.Forbidden, 'the clock is not pinnable: the engine was made with a clock of its own');
  }
  return clock;
}

export const clusterOperations = { getTopology, getStatus, getLicense, pinClock, resetClock } satisfies Record<
  string,
  Operation
>;
