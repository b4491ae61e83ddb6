/**
 * The BPMN MIWG reference models (shared/corpus/miwg, beside the repository) run as data: each file
 * must compile or be refused with a ModelError whose every issue names an element — never another
 * error, never a hang. The expected outcome per file is pinned below, so a regression (or a newly
 * supported element) flips a test and the table gets updated on purpose.
 *
 * The corpus is not part of the repository: where it is not beside the clone, the suite is reported as
 * skipped, with where it looked.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { ModelError } from '../src/common/errors.js';
import { type CompileOptions, compile } from '../src/model/index.js';

const corpusUrl = new URL('../../../../shared/corpus/miwg/', import.meta.url);
const corpusDir = fileURLToPath(corpusUrl);
const corpusFound = existsSync(corpusDir);
const files = corpusFound
  ? readdirSync(corpusDir)
      .filter((name) => name.endsWith('.bpmn'))
      .sort()
  : [];

/** `compiles`, or the first issue as `elementType: message`. */
type Outcome = string;

interface Expectation {
  /** `compile(xml)`: what a user running the file gets. */
  asIs: Outcome;
  /** `compile(xml, { allowNonExecutable: true })`: element coverage, ignoring `isExecutable="false"`. */
  everyProcess: Outcome;
}

const NOT_EXECUTABLE =
  'bpmn:Process: no executable process: set isExecutable="true" on the process Thresher should run';

const ACTIVITI_DELEGATE =
  'bpmn:ServiceTask: camunda:delegateExpression="#{archiveService}" is an Activiti extension Thresher does not run: give the task a zeebe:taskDefinition type and register a handler for it';
const CAMUNDA_EXTERNAL =
  'bpmn:SendTask: camunda:type="external" camunda:topic="emailService" is a Camunda 7 extension Thresher does not run: an external task: use zeebe:taskDefinition type="emailService"';

const EXPECTED: Record<string, Expectation> = {
  'A.1.0.bpmn': { asIs: NOT_EXECUTABLE, everyProcess: 'compiles' },
  'A.2.0.bpmn': { asIs: NOT_EXECUTABLE, everyProcess: 'compiles' },
  'A.2.1.bpmn': {
    asIs: NOT_EXECUTABLE,
    everyProcess: 'bpmn:Task: a default flow out of bpmn:Task is not supported yet',
  },
  'A.3.0.bpmn': {
    asIs: NOT_EXECUTABLE,
    everyProcess: 'bpmn:SubProcess: an embedded sub-process needs exactly one none start event, found 0',
  },
  'A.4.0.bpmn': { asIs: NOT_EXECUTABLE, everyProcess: 'compiles' },
  'A.4.1.bpmn': { asIs: NOT_EXECUTABLE, everyProcess: 'compiles' },
  'B.1.0.bpmn': {
    asIs: NOT_EXECUTABLE,
    everyProcess: 'bpmn:StartEvent: timer timeDate is empty',
  },
  'B.2.0.bpmn': {
    asIs: NOT_EXECUTABLE,
    everyProcess:
      'bpmn:StartEvent: conditional events (bpmn:StartEvent with bpmn:ConditionalEventDefinition) are not supported',
  },
  // The file binds its `camunda` prefix to Activiti's namespace: named by the namespace, not the prefix.
  'C.1.0.bpmn': { asIs: ACTIVITI_DELEGATE, everyProcess: ACTIVITI_DELEGATE },
  'C.1.1.bpmn': { asIs: ACTIVITI_DELEGATE, everyProcess: ACTIVITI_DELEGATE },
  'C.2.0.bpmn': {
    asIs: NOT_EXECUTABLE,
    everyProcess: 'bpmn:StartEvent: message "Message_1404332496319" has no name',
  },
  'C.3.0.bpmn': {
    asIs: 'bpmn:UserTask: startQuantity="2" is not supported yet',
    everyProcess: 'bpmn:UserTask: startQuantity="2" is not supported yet',
  },
  'C.4.0.bpmn': {
    asIs: NOT_EXECUTABLE,
    everyProcess:
      'bpmn:IntermediateCatchEvent: bpmn:IntermediateCatchEvent needs a messageRef naming the bpmn:Message it waits for',
  },
  'C.5.0.bpmn': {
    asIs: NOT_EXECUTABLE,
    everyProcess:
      'bpmn:CallActivity: calledElement="_774bc005-0917-43d5-ab70-0f9fe123fbd1" is BPMN\'s attribute, which Zeebe does not read: write <zeebe:calledElement processId="_774bc005-0917-43d5-ab70-0f9fe123fbd1" /> in the call activity\'s extensionElements',
  },
  'C.6.0.bpmn': {
    asIs: NOT_EXECUTABLE,
    everyProcess:
      'bpmn:IntermediateCatchEvent: bpmn:IntermediateCatchEvent needs a messageRef naming the bpmn:Message it waits for',
  },
  'C.7.0.bpmn': {
    asIs: NOT_EXECUTABLE,
    everyProcess: 'bpmn:BusinessRuleTask: bpmn:BusinessRuleTask is not supported yet',
  },
  'C.8.0.bpmn': {
    asIs: NOT_EXECUTABLE,
    everyProcess: 'bpmn:BusinessRuleTask: bpmn:BusinessRuleTask is not supported yet',
  },
  'C.8.1.bpmn': {
    asIs: 'bpmn:Operation: bpmn:outMessageRef refers to "triso:unspecified", which does not exist',
    everyProcess: 'bpmn:Operation: bpmn:outMessageRef refers to "triso:unspecified", which does not exist',
  },
  'C.9.0.bpmn': {
    asIs: 'bpmn:BusinessRuleTask: bpmn:BusinessRuleTask is not supported yet',
    everyProcess: 'bpmn:BusinessRuleTask: bpmn:BusinessRuleTask is not supported yet',
  },
  // Its send tasks are Camunda 7 external tasks: they used to compile with that silently dropped.
  'C.9.1.bpmn': { asIs: CAMUNDA_EXTERNAL, everyProcess: CAMUNDA_EXTERNAL },
  // Camunda 8 call activities: they run.
  'C.9.2.bpmn': { asIs: 'compiles', everyProcess: 'compiles' },
};

/** A compile that has not finished in this long is treated as a hang. */
const HANG_MS = 10_000;

interface Row {
  file: string;
  mode: keyof Expectation;
  outcome: Outcome;
  issues: number;
  ms: number;
}
const rows: Row[] = [];

async function outcomeOf(xml: string, options: CompileOptions): Promise<{ outcome: Outcome; issues: number }> {
  let timer: NodeJS.Timeout | undefined;
  const hang = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`compile did not finish within ${HANG_MS} ms`)), HANG_MS);
  });
  try {
    await Promise.race([compile(xml, options), hang]);
    return { outcome: 'compiles', issues: 0 };
  } catch (error) {
    if (!(error instanceof ModelError)) throw error;
    for (const issue of error.issues) {
      expect(issue.elementId, `issue without an element id: ${issue.message}`).toEqual(expect.any(String));
      expect(issue.elementType, `issue without an element type: ${issue.message}`).toMatch(/^bpmn:/);
    }
    const first = error.issues[0];
    return { outcome: `${first?.elementType}: ${first?.message}`, issues: error.issues.length };
  } finally {
    clearTimeout(timer);
  }
}

describe.skipIf(!corpusFound)(`BPMN MIWG corpus${corpusFound ? '' : ` (skipped: no corpus at ${corpusDir})`}`, () => {
  it('has an expectation for every reference model, and a model for every expectation', () => {
    expect(files.length).toBeGreaterThan(0);
    expect(files).toEqual(Object.keys(EXPECTED).sort());
  });

  describe.each(files)('%s', (file) => {
    const xml = readFileSync(new URL(file, corpusUrl), 'utf8');
    const modes: Array<[keyof Expectation, CompileOptions]> = [
      ['asIs', {}],
      ['everyProcess', { allowNonExecutable: true }],
    ];
    it.each(modes)('%s: compiles or is refused as expected', async (mode, options) => {
      const started = performance.now();
      const { outcome, issues } = await outcomeOf(xml, options);
      rows.push({ file, mode, outcome, issues, ms: Math.round(performance.now() - started) });
      expect(outcome).toBe(EXPECTED[file]?.[mode]);
    });
  });

  // Runs after the per-file tests above (tests in a file run in order), over what they observed.
  it('compiles at least one reference model', () => {
    const compiling = rows.filter((row) => row.mode === 'everyProcess' && row.outcome === 'compiles');
    expect(compiling.map((row) => row.file)).toEqual([
      'A.1.0.bpmn',
      'A.2.0.bpmn',
      'A.4.0.bpmn',
      'A.4.1.bpmn',
      'C.9.2.bpmn',
    ]);
  });

  afterAll(() => {
    const table = rows
      .sort((a, b) => a.file.localeCompare(b.file) || a.mode.localeCompare(b.mode))
      .map((row) => ({
        file: row.file,
        mode: row.mode,
        outcome: row.outcome.length > 110 ? `${row.outcome.slice(0, 107)}...` : row.outcome,
        issues: row.issues,
        ms: row.ms,
      }));
    console.log('BPMN MIWG corpus outcomes');
    console.table(table);
  });
});
