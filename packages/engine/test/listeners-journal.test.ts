/**
 * Listener jobs through the journal: a listener's result that comes in behind other work is journaled with
 * a receipt whose identity names the listener, and a restore checks it as it checks any job's.
 */
import { decodeJournalEntry, openCheckpoint, type Repository } from '@thresher/checkpoint';
import { executeFixture, type Fixture } from '@thresher/testing';
import { describe, expect, it } from 'vitest';
import { InstanceState } from '../src/core/step/state.js';
import { compile } from '../src/model/index.js';
import { checkJournal, unpackBody } from '../src/runtime/document/capture.js';
import { bpmn, chain, ext } from './fixtures/bpmn/xml.js';
import { listeners } from './fixtures/listeners.js';

/** Two parallel tasks, each with a start listener, whose results come in together. */
const listened = bpmn(
  `<bpmn:startEvent id="start" /><bpmn:parallelGateway id="split" />
  <bpmn:serviceTask id="a">${ext(`<zeebe:taskDefinition type="a" />${listeners(['start', 'la'], ['end', 'ea'])}`)}</bpmn:serviceTask>
  <bpmn:serviceTask id="b">${ext(`<zeebe:taskDefinition type="b" />${listeners(['start', 'lb'])}`)}</bpmn:serviceTask>
  <bpmn:parallelGateway id="join" /><bpmn:endEvent id="end" />
  ${chain('start', 'split', 'a', 'join', 'end')}${chain('split', 'b', 'join')}`,
);

const script = (result: Record<string, unknown>) => ({ fail: 0, failMessage: '', delayMs: 0, result, bpmnError: null });

const fixture: Fixture = {
  file: 'listened.fixture.yaml',
  name: 'parallel listeners',
  models: [{ path: 'listened.bpmn', xml: listened, dmn: false }],
  process: 'p',
  start: { variables: {}, businessKey: null },
  handlers: {
    la: script({ la: 1 }),
    lb: script({ lb: 1 }),
    a: script({ a: 1 }),
    b: script({ b: 1 }),
    ea: script({ ea: 1 }),
  },
  elementHandlers: {},
  handlersModule: null,
  moves: [],
  via: 'engine',
  kill: { kind: 'every' },
  seed: null,
  endEvents: ['end'],
  expect: {
    at: 'expect',
    status: 'completed',
    variables: null,
    exactVariables: false,
    handlerRuns: {},
    children: null,
    incidents: null,
    ended: null,
    history: null,
    elementRuns: {},
    userTasks: null,
    tasks: null,
    active: null,
    waits: null,
  },
};

/** Check every stored checkpoint's journal as a restore would; how many entries were listeners' jobs. */
async function listenerEntries(repository: Repository, instanceId: string): Promise<number> {
  const process = (await compile(listened)).processes.get('p')!;
  let count = 0;
  for (const stored of await repository.list(instanceId)) {
    const document = openCheckpoint(stored.bytes, { instanceId, seq: stored.seq });
    const journal = stored.writes.map((write) => decodeJournalEntry(write.value));
    const state = new InstanceState(unpackBody(document.body));
    checkJournal(process, state, journal);
    count += journal.filter((entry) => state.jobs.get(entry.jobId)?.listener !== undefined).length;
  }
  return count;
}

describe('listener jobs in the journal', () => {
  it('should journal a listener’s result with a receipt a restore accepts, and run no listener twice, from a kill at every persist point', async () => {
    const baseline = await executeFixture(fixture, null);
    expect(baseline.end.handlerRuns).toEqual({ la: 1, lb: 1, a: 1, b: 1, ea: 1 });
    let journaled = 0;
    for (let killAt = 1; killAt <= baseline.persistPoints; killAt++) {
      const killed = await executeFixture(fixture, killAt, {
        inspect: async (repository, instanceId) => {
          journaled += await listenerEntries(repository, instanceId);
        },
      });
      // Parallel branches may complete in another order after a kill: `completed` compares them as a set.
      const { history: _, ...end } = killed.end;
      const { history: __, ...expected } = baseline.end;
      expect({ killAt, end, violations: killed.violations }).toEqual({ killAt, end: expected, violations: [] });
    }
    // the parallel listeners' results came in together: at least one went through the journal
    expect(journaled).toBeGreaterThanOrEqual(1);
  });
});
