// bpmn-engine's side of the scenarios, through its documented API: `new Engine({ source | sourceContext,
// services })`, `execute({ variables })`, `waitFor('end')`, `getState()`, `recover(state)`, `resume()`,
// `execution.getPostponed()` and `signal()`. Imported only by child processes that measure the peer.
import { readFileSync } from 'node:fs';
import { Engine } from 'bpmn-engine';

/** The installed bpmn-engine version, for the report (its package.json is not exported, so read the file). */
export const peerVersion = JSON.parse(
  readFileSync(new URL('../node_modules/bpmn-engine/package.json', import.meta.url), 'utf8'),
).version;

/**
 * Compile a model once: parse the XML (bpmn-moddle) and serialize its context, as `new Engine({ source })`
 * does, then hand the serialized context to every later engine through the documented `sourceContext`
 * option, so no instance parses XML again. The context is read from the first engine's definition
 * (`getDefinitions()[0].context.definitionContext`).
 */
export async function compilePeer(source) {
  const engine = new Engine({ name: 'compile', source });
  const [definition] = await engine.getDefinitions();
  return definition.context.definitionContext;
}

/** One instance to its end: a new Engine on the compiled context (bpmn-engine runs one execution per engine). */
export async function runPeerInstance(sourceContext, services, variables) {
  const engine = new Engine({ name: 'bench', sourceContext, services });
  const ended = engine.waitFor('end');
  await engine.execute({ variables });
  await ended;
  return engine;
}

/** Run `count` instances one after the other. */
export async function runPeerSequential(sourceContext, services, count, offset = 0) {
  for (let i = 0; i < count; i++) await runPeerInstance(sourceContext, services, { i: offset + i });
}

/**
 * Start an instance and return once it waits on `expectWaiting` user tasks. `parked` is false when the
 * execution stopped making progress short of that (bpmn-engine stalls inside a parallel fork of 1,000 flows).
 */
export async function parkPeerInstance(sourceContext, services, variables, expectWaiting = 1) {
  const engine = new Engine({ name: 'bench', sourceContext, services });
  const execution = await engine.execute({ variables });
  const parked = await untilPostponed(execution, expectWaiting);
  return { engine, execution, parked, waiting: waitingTasks(execution) };
}

/**
 * Wait until the execution has `count` user tasks waiting; false when it makes no progress for `stallMs`.
 * bpmn-engine mostly parks synchronously, so this rarely spins.
 */
export async function untilPostponed(execution, count, { stallMs = 1000 } = {}) {
  let seen = waitingTasks(execution);
  let progressAt = performance.now();
  while (seen < count) {
    await new Promise((resolve) => setImmediate(resolve));
    const now = waitingTasks(execution);
    if (now > seen) {
      seen = now;
      progressAt = performance.now();
    } else if (performance.now() - progressAt > stallMs) {
      return false;
    }
  }
  return true;
}

/** The user tasks an execution waits on. */
export function waitingTasks(execution) {
  return execution.getPostponed().filter((api) => api.type === 'bpmn:UserTask').length;
}

/** A fresh engine recovered from a saved state and resumed: returns the execution once its user tasks wait. */
export async function recoverPeer(state, services, expectWaiting = 1) {
  const engine = new Engine({ name: 'bench', services }).recover(state);
  const execution = await engine.resume();
  if (!(await untilPostponed(execution, expectWaiting)))
    throw new Error('bpmn-engine did not resume to its user tasks');
  return { engine, execution };
}

export { Engine };
