/**
 * `awaitCompletion` of a process instance creation: the instance's end, heard from this engine's events or seen
 * in the store (it may end on another process sharing it), within the request's timeout.
 */
import type { Engine, EngineEvent } from '@thresher/engine';
import { Problem, ProblemKind } from '../problem.js';

/** How long a creation awaits completion when its request says 0 or nothing, as Camunda's default request timeout. */
export const DEFAULT_AWAIT_MS = 15_000;
/** How often the store is looked at for an end another process wrote. */
const STORE_LOOK_MS = 250;

type Ended = 'completed' | 'terminated';

/** Listen for instances' ends from before the instance starts: a straight-through one ends inside `start`. */
export function listenForEnds(engine: Engine): {
  ended(instanceId: string, timeoutMs: number): Promise<Ended>;
  stop(): void;
} {
  const seen = new Map<string, Ended>();
  const waiters = new Map<string, (status: Ended) => void>();
  const hear = (event: EngineEvent) => {
    if (event.type !== 'instance.completed' && event.type !== 'instance.terminated') return;
    const status = event.type === 'instance.completed' ? 'completed' : 'terminated';
    const waiter = waiters.get(event.instanceId);
    if (waiter) waiter(status);
    else seen.set(event.instanceId, status);
  };
  const offCompleted = engine.on('instance.completed', hear);
  const offTerminated = engine.on('instance.terminated', hear);
  const stop = () => {
    offCompleted();
    offTerminated();
  };
  return {
    stop,
    async ended(instanceId, timeoutMs) {
      const already = seen.get(instanceId);
      if (already) return already;
      let timer: NodeJS.Timeout | undefined;
      let look: NodeJS.Timeout | undefined;
      try {
        return await new Promise<Ended>((resolve, reject) => {
          waiters.set(instanceId, resolve);
          timer = setTimeout(
            () =>
              reject(
                new Problem(
                  ProblemKind.Timeout,
                  `the process instance did not complete within the request timeout of ${timeoutMs} ms; it runs on`,
                ),
              ),
            timeoutMs,
          );
          look = setInterval(() => {
            void engine.instances({ rootId: instanceId, roots: true, limit: 1 }).then(([summary]) => {
              if (summary?.instanceId === instanceId && summary.status !== 'running') resolve(summary.status);
            }, reject);
          }, STORE_LOOK_MS);
        });
      } finally {
        clearTimeout(timer);
        clearInterval(look);
        waiters.delete(instanceId);
        stop();
      }
    },
  };
}
