/**
 * Nothing a model says is silently skipped: every construct the compiler accepts is run by the core, and
 * everything else is refused at deploy with a ModelError naming the element. A construct that compiles but
 * has no behaviour shows up here as a track that waits on nothing — stranded, with the instance "waiting"
 * forever.
 */
import {
  createMemoryRepository,
  emptyCheckpointBody,
  type InstanceRecord,
  openCheckpoint,
  type Repository,
  type TrackRecord,
} from '@thresher/checkpoint';
import { describe, expect, it } from 'vitest';
import { ModelError } from '../src/common/errors.js';
import { InstanceState } from '../src/core/step/state.js';
import { Engine } from '../src/engine.js';
import { compile, knownJobs } from '../src/model/index.js';
import { unsupportedIssues } from '../src/model/support.js';
import { unpackBody } from '../src/runtime/document/capture.js';
import { around, chain, definitions, ext, flow, message, process, withRoots } from './fixtures/bpmn/xml.js';
import { listeners } from './fixtures/listeners.js';

const timerDefinition =
  '<bpmn:timerEventDefinition id="td"><bpmn:timeDuration>PT1H</bpmn:timeDuration></bpmn:timerEventDefinition>';
const KEYED_MESSAGE = message('m', 'answer', '= id');
const aroundBody = (element: string) =>
  `<bpmn:startEvent id="start" />\n${element}\n<bpmn:endEvent id="end" />\n${chain('start', 'x', 'end')}`;

/** Constructs at the edge of what runs: each must run (no stranded track) or be refused by name. */
const constructs: Array<[string, string]> = [
  ['a none task', around('<bpmn:task id="x" />')],
  ['a manual task', around('<bpmn:manualTask id="x" />')],
  ['a none intermediate throw event', around('<bpmn:intermediateThrowEvent id="x" />')],
  [
    'a boundary event',
    around(
      `<bpmn:task id="x" /><bpmn:boundaryEvent id="b" attachedToRef="x">${timerDefinition}</bpmn:boundaryEvent>${flow('fb', 'b', 'end')}`,
    ),
  ],
  [
    'a timer intermediate catch event',
    around(`<bpmn:intermediateCatchEvent id="x">${timerDefinition}</bpmn:intermediateCatchEvent>`),
  ],
  [
    'an event sub-process',
    around(
      `<bpmn:task id="x" /><bpmn:subProcess id="esp" triggeredByEvent="true"><bpmn:startEvent id="esp-start">${timerDefinition}</bpmn:startEvent></bpmn:subProcess>`,
    ),
  ],
  ['a send task', around('<bpmn:sendTask id="x" />')],
  ['a receive task', withRoots(KEYED_MESSAGE, aroundBody('<bpmn:receiveTask id="x" messageRef="m" />'))],
  [
    'an event-based gateway',
    withRoots(
      KEYED_MESSAGE,
      `<bpmn:startEvent id="start" /><bpmn:eventBasedGateway id="x" /><bpmn:receiveTask id="r" messageRef="m" />
       <bpmn:intermediateCatchEvent id="t">${timerDefinition}</bpmn:intermediateCatchEvent><bpmn:endEvent id="end" />
       ${chain('start', 'x', 'r', 'end')}${flow('f-t', 'x', 't')}${flow('f-t-end', 't', 'end')}`,
    ),
  ],
  [
    'a message end event',
    around('<bpmn:task id="x" /><bpmn:endEvent id="m-end"><bpmn:messageEventDefinition id="md" /></bpmn:endEvent>'),
  ],
  [
    'a message start event',
    definitions(
      `<bpmn:message id="m" name="go" />${process(
        `<bpmn:startEvent id="s"><bpmn:messageEventDefinition id="md" messageRef="m" /></bpmn:startEvent>
         <bpmn:endEvent id="end" />${flow('f', 's', 'end')}`,
      )}`,
    ),
  ],
  ['an inclusive gateway', around('<bpmn:inclusiveGateway id="x" />')],
  ['a parallel gateway', around('<bpmn:parallelGateway id="x" />')],
  ['an embedded sub-process', around(`<bpmn:subProcess id="x"><bpmn:startEvent id="s" /></bpmn:subProcess>`)],
  [
    'a user task with execution listeners, in a process with its own',
    definitions(
      process(
        `${ext(listeners(['start', 'p-start'], ['end', 'p-end']))}${aroundBody(`<bpmn:userTask id="x">${ext(listeners(['start', 'x-start'], ['end', 'x-end']))}</bpmn:userTask>`)}`,
      ),
    ),
  ],
  [
    'a joining gateway with a start listener',
    around(
      `<bpmn:parallelGateway id="fork" /><bpmn:parallelGateway id="x">${ext(listeners(['start', 'joined']))}</bpmn:parallelGateway>`,
    ).replace(
      chain('start', 'x', 'end'),
      `${chain('start', 'fork')}${flow('f1', 'fork', 'x')}${flow('f2', 'fork', 'x')}${chain('x', 'end')}`,
    ),
  ],
  [
    'an event sub-process with execution listeners',
    around(
      `<bpmn:userTask id="x" /><bpmn:subProcess id="esp" triggeredByEvent="true">${ext(listeners(['start', 'e-start'], ['end', 'e-end']))}<bpmn:startEvent id="esp-start" isInterrupting="false">${timerDefinition}</bpmn:startEvent></bpmn:subProcess>`,
    ),
  ],
];

/** What a stored instance holds, every record whole (as a restore builds them from the document). */
type Records = Pick<
  InstanceState,
  'tracks' | 'userTasks' | 'jobs' | 'incidents' | 'scopes' | 'timers' | 'subscriptions'
>;

/** Tracks of a stored instance that wait on nothing that exists: each would sit there forever. */
function strandedTracks(state: Records): string[] {
  const body = {
    tracks: [...state.tracks.values()],
    userTasks: [...state.userTasks.values()],
    jobs: [...state.jobs.values()],
    incidents: [...state.incidents.values()],
    scopes: [...state.scopes.values()],
    timers: [...state.timers.values()],
    subscriptions: [...state.subscriptions.values()],
  };
  const owned = (trackId: string) =>
    [...body.timers, ...body.subscriptions].some(
      (w) => w.owner.kind !== 'eventSubProcess' && w.owner.trackId === trackId,
    );
  return body.tracks
    .filter((track) => {
      const wait = track.wait;
      if (track.state !== 'waiting' && track.state !== 'incident' && track.state !== 'listening') return true;
      switch (wait?.kind) {
        case 'job':
          return !body.jobs.some((job) => job.id === wait.jobId);
        case 'userTask':
          return !body.userTasks.some((task) => task.id === wait.taskId);
        case 'scope':
          return !body.scopes.some((scope) => scope.path === wait.path);
        case 'incident':
          return !body.incidents.some((incident) => incident.id === wait.incidentId);
        case 'event':
          return !owned(track.id);
        case 'join':
          return false;
        default:
          return true;
      }
    })
    .map((track) => `${track.id} at ${track.nodeId} (${track.state}, waiting on ${JSON.stringify(track.wait)})`);
}

async function latestRecords(repository: Repository, instanceId: string): Promise<Records> {
  const stored = await repository.get(instanceId);
  if (!stored) throw new Error(`no checkpoint of ${instanceId}`);
  return new InstanceState(unpackBody(openCheckpoint(stored.bytes, { instanceId }).body));
}

describe('every construct is run or refused', () => {
  it.each(constructs)('%s: runs with no stranded track, or is refused naming the element', async (_, xml) => {
    const [ir] = (await compile(xml, { runtimeSupport: false })).processes.values();
    const unsupported = ir ? unsupportedIssues(ir) : [];
    if (unsupported.length > 0) {
      const refused = await compile(xml).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(refused).toBeInstanceOf(ModelError);
      expect((refused as ModelError).elementId).toBe(unsupported[0]!.elementId);
      return;
    }
    const model = await compile(xml);
    const process = [...model.processes.values()][0]!;
    const handlers = Object.fromEntries(knownJobs(process).map((job) => [job.taskType, () => ({})]));
    const repository = createMemoryRepository();
    const engine = new Engine({ repository, handlers });
    await engine.deploy(xml);
    const id =
      process.startNodes.length > 0
        ? await engine.start(process.id, { variables: { id: 'k' } })
        : (await engine.correlateMessage('go')).instanceId!;
    const settled = await engine.settled(id);
    if (settled.status === 'waiting') expect(strandedTracks(await latestRecords(repository, id))).toEqual([]);
    await engine.close();
  });

  it('should see a stranded track for what it is', () => {
    const state = new InstanceState(
      unpackBody({
        ...emptyCheckpointBody({ id: 'i' } as InstanceRecord, 'active'),
        tracks: [{ id: 't1', nodeId: 'x', state: 'entering', wait: null } as TrackRecord],
      }),
    );
    expect(strandedTracks(state)).toEqual(['t1 at x (entering, waiting on null)']);
  });
});
