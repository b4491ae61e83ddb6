/**
 * What the engine reads for its callers: an instance as it is (live, or as its latest checkpoint and its log
 * say), the open user tasks of the loaded instances, when an instance with called children has settled, what a
 * user task asks a person, and the touchpoints a new instance would have.
 *
 * @module
 */

import type { LiveTouchpoint } from '../../common/touchpoint-types.js';
import { aheadRecord, live } from '../../core/step/touchpoints.js';
import { processPlan } from '../../touchpoints/plan.js';
import type { OperatorQuestion } from '../../touchpoints/types.js';
import type { SettledOptions, SettledState } from '../base/settled-types.js';
import type { InstanceView, UserTaskView } from '../base/types.js';
import { openStored } from '../document/capture.js';
import { leaveLoggedPast, readPast } from '../document/instance-log.js';
import { liveTouchpoints, userTaskQuestion } from '../loop/questions.js';
import { withChildWaits } from '../loop/settle.js';
import { instanceView, userTaskView } from '../loop/views.js';
import { parseLocalId } from './commands.js';
import type { EngineParts } from './engine-parts.js';

/** The instance as it is now (live), or as its latest checkpoint says, with its past as its log keeps it. */
export async function readInstance(parts: EngineParts, instanceId: string): Promise<InstanceView | undefined> {
  const { repository } = parts;
  const live = parts.instances.loaded(instanceId);
  const stored = live ? undefined : await repository.get(instanceId);
  if (!live && !stored) return undefined;
  const state = live ? live.current : openStored(stored!);
  if (!live) await leaveLoggedPast(repository, state);
  // Its touchpoints are known only with its deployment here (the one it was started on).
  const process = await parts.definitions.pinnedProcess(state).catch(() => undefined);
  const touchpoints = process ? liveTouchpoints(state, process) : null;
  const seq = live ? live.latestSeq : stored!.seq;
  const past = await readPast(repository, instanceId, state);
  const deployment = await parts.definitions.deploymentOf(state);
  const { loopWarning } = parts.loopHost.settings;
  return instanceView(state, process, seq, deployment, touchpoints, past, loopWarning);
}

/** Open user tasks of the loaded instances (or of one), optionally of one element. */
export async function openUserTasks(
  parts: EngineParts,
  filter: { instanceId?: string; elementId?: string },
): Promise<UserTaskView[]> {
  // The loop asked for, even if it retired since (dehydration): its state is what was durable then.
  const runtimes = filter.instanceId ? [await parts.instances.runtime(filter.instanceId)] : parts.instances.values();
  const out: UserTaskView[] = [];
  for (const runtime of runtimes) {
    const state = runtime.current;
    if (filter.instanceId && state.instance.id !== filter.instanceId) continue;
    for (const task of state.userTasks.values()) {
      if (filter.elementId && task.nodeId !== filter.elementId) continue;
      out.push(userTaskView(state, runtime.definition, task));
    }
  }
  return out;
}

/** `engine.settled`: the instance's own waits, and those of the children its calls wait on. */
export async function settledTree(
  parts: EngineParts,
  instanceId: string,
  options?: SettledOptions,
): Promise<SettledState> {
  for (;;) {
    const stored = await parts.instances.settledInStore(instanceId, options);
    const runtime = stored ? undefined : await parts.instances.runtime(instanceId);
    const own = stored?.state ?? (await runtime!.settled(options));
    if (own.status !== 'waiting' || own.calls.length === 0) return own;
    // A call waits on its child: settled once the child is, and the child's end (if it came) is applied.
    const seq = stored?.seq ?? runtime!.latestSeq;
    const children = await Promise.all(own.calls.map((call) => settledTree(parts, call.instanceId, options)));
    // Settled again when the instance moved on meanwhile: in memory, by another loop or a newer seq; out of
    // memory (ended, or retired and perhaps revived and retired again), by what the store holds.
    const now = parts.instances.loaded(instanceId);
    const moved = now
      ? now !== runtime || now.latestSeq !== seq
      : (await parts.repository.get(instanceId))?.seq !== seq;
    if (!moved) return children.reduce(withChildWaits, own);
  }
}

/** What an open user task asks a person (`engine.question`). */
export async function askUserTask(
  parts: EngineParts,
  taskId: string,
  forms: ReadonlyMap<string, unknown> | undefined,
): Promise<OperatorQuestion> {
  const { instanceId, localId } = parseLocalId('userTask', taskId);
  const state = (await parts.instances.runtime(instanceId)).current;
  return userTaskQuestion(state, await parts.definitions.pinnedProcess(state), localId, forms);
}

/** The touchpoints a new instance of the process would have, every one `ahead` (`engine.plannedTouchpoints`). */
export async function plannedTouchpoints(
  parts: EngineParts,
  processId: string,
  digest?: string,
): Promise<LiveTouchpoint[]> {
  const { process } = await parts.definitions.findProcess(processId, digest);
  return processPlan(process).list.map((_, index) => live({ process }, index, aheadRecord()));
}
