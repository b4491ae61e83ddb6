/**
 * Zeebe's rules where they meet Thresher's own choices: every Zeebe extension has a stated fate (read,
 * ignored, warned about or refused), a value that evaluates to the wrong kind of thing is an incident
 * naming the attribute, and what only Zeebe's tooling reads is noted, never silently dropped.
 */
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { ModelError } from '../src/common/errors.js';
import { UNREAD_EXTENSIONS } from '../src/model/extensions.js';
import { compile, type UserTaskNode } from '../src/model/index.js';
import { usedExtensions } from '../src/model/nodes.js';
import { around, ext } from './fixtures/bpmn/xml.js';
import { engineWith } from './fixtures/runtime.js';

const userTask = (extensions: string) => around(`<bpmn:userTask id="x">${ext(extensions)}</bpmn:userTask>`);
const serviceTask = (definition: string) =>
  around(`<bpmn:serviceTask id="x">${ext(`<zeebe:taskDefinition ${definition} />`)}</bpmn:serviceTask>`);

async function issuesOf(xml: string): Promise<ModelError['issues']> {
  const error = await compile(xml).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ModelError);
  return (error as ModelError).issues;
}

describe('every Zeebe extension has a stated fate', () => {
  it('each extension element the Zeebe descriptor allows is read by some element, or listed as ignored, warned or refused', () => {
    const descriptor = createRequire(import.meta.url)('zeebe-bpmn-moddle/resources/zeebe.json') as {
      types: { name: string; meta?: { allowedIn?: string[] } }[];
    };
    const placed = descriptor.types.filter((type) => type.meta?.allowedIn).map((type) => `zeebe:${type.name}`);
    const read = new Set(
      [
        'bpmn:ServiceTask',
        'bpmn:SendTask',
        'bpmn:ScriptTask',
        'bpmn:UserTask',
        'bpmn:Task',
        'bpmn:EndEvent',
        'bpmn:CallActivity',
        'bpmn:MultiInstanceLoopCharacteristics',
      ].flatMap((type) => usedExtensions({ $type: type, $instanceOf: () => false })),
    );
    // Read where they are given, not through an element's extension list.
    const readElsewhere = new Set([
      'zeebe:LinkedResource',
      'zeebe:Subscription',
      'zeebe:Input',
      'zeebe:Output',
      'zeebe:ExecutionListener',
      'zeebe:TaskListener',
      'zeebe:VersionTag',
      // Read by the ad-hoc sub-process (container.ts), which reads its own extensions.
      'zeebe:AdHoc',
    ]);
    // On elements Thresher refuses as a whole (business rule tasks, ad-hoc sub-processes, conditional events…).
    const onRefusedElements = new Set(['zeebe:CalledDecision', 'zeebe:ConditionalFilter', 'zeebe:AgentDefinition']);
    const unstated = placed.filter(
      (type) => !read.has(type) && !readElsewhere.has(type) && !onRefusedElements.has(type) && !UNREAD_EXTENSIONS[type],
    );
    expect(unstated).toEqual([]);
  });

  it.each([
    [
      'zeebe:formDefinition',
      '<zeebe:formDefinition formKey="camunda-forms:bpmn:form_1" />',
      /names no zeebe:userTaskForm/,
    ],
    [
      'zeebe:formDefinition',
      '<zeebe:formDefinition formId="review" />',
      /given the form file \(thresher ui --form FILE/,
    ],
    ['zeebe:formDefinition', '<zeebe:formDefinition formKey="custom:thing" />', /not a Camunda Form's/],
  ])('%s on a user task compiles with a warning naming it', async (name, extension, why) => {
    const model = await compile(userTask(extension));
    expect(model.warnings).toContainEqual({ elementId: 'x', message: expect.stringMatching(why) });
    expect(model.warnings.map((warning) => warning.message).join('\n')).toContain(name);
  });

  it('zeebe:taskSchedule, zeebe:priorityDefinition and zeebe:taskHeaders on a user task are read into it, without a word', async () => {
    const model = await compile(
      userTask(
        '<zeebe:taskSchedule dueDate="2026-12-01T09:00:00Z" followUpDate="=due" /><zeebe:priorityDefinition priority="80" /><zeebe:taskHeaders><zeebe:header key="a" value="b" /></zeebe:taskHeaders>',
      ),
    );
    expect(model.warnings).toEqual([]);
    const node = model.processes.get('p')?.nodes.get('x') as UserTaskNode;
    expect(node).toMatchObject({
      dueDate: { source: '"2026-12-01T09:00:00Z"' },
      followUpDate: { source: 'due' },
      priority: { source: '80' },
      headers: { a: 'b' },
    });
  });

  it('zeebe:properties and zeebe:versionTag describe only: they compile without a word', async () => {
    const model = await compile(userTask('<zeebe:properties><zeebe:property name="a" value="b" /></zeebe:properties>'));
    expect(model.warnings).toEqual([]);
  });
});

describe('values that must be expressions', () => {
  it('a zeebe:script expression without "=" is refused, showing the expression meant', async () => {
    const xml = around(
      `<bpmn:scriptTask id="x">${ext('<zeebe:script expression="a + 1" resultVariable="b" />')}</bpmn:scriptTask>`,
    );
    expect(await issuesOf(xml)).toEqual([
      expect.objectContaining({ elementId: 'x', message: expect.stringMatching(/static value.*write "=a \+ 1"/) }),
    ]);
  });

  it('an expression using "==" is refused with the note that FEEL compares with a single "="', async () => {
    const xml = around(
      `<bpmn:scriptTask id="x">${ext('<zeebe:script expression="=a == 1" resultVariable="b" />')}</bpmn:scriptTask>`,
    );
    const [issue] = await issuesOf(xml);
    expect(issue?.message).toMatch(/uses "==", which is not FEEL equality.*write "=a = 1"/);
  });
});

describe('candidate groups and users', () => {
  it('a static list is split at commas; an = list is evaluated when the task is created', async () => {
    const model = await compile(
      userTask('<zeebe:assignmentDefinition candidateGroups="sales, managers" candidateUsers="=[owner]" />'),
    );
    const node = model.processes.get('p')?.nodes.get('x') as UserTaskNode;
    expect(node.candidateGroups?.source).toBe('["sales","managers"]');
    const engine = await engineWith(
      userTask('<zeebe:assignmentDefinition candidateGroups="sales, managers" candidateUsers="=[owner]" />'),
    );
    const id = await engine.start('p', { variables: { owner: 'ann' } });
    await engine.settled(id);
    const [task] = await engine.userTasks({ instanceId: id });
    expect(task).toMatchObject({ candidateGroups: ['sales', 'managers'], candidateUsers: ['ann'] });
  });
});

describe('an evaluated value of the wrong kind is an incident naming the attribute', () => {
  it.each([
    ['a job type that is not a string', serviceTask('type="=42"'), /zeebe:taskDefinition type "=42" evaluated to 42/],
    ['retries that are not a count', serviceTask('type="a" retries="=-1"'), /retries "=-1" evaluated to -1/],
    [
      'an assignee that is not a string',
      userTask('<zeebe:assignmentDefinition assignee="=7" />'),
      /assignee "=7" evaluated to 7: an assignee must be a string/,
    ],
    [
      'candidate groups that are not a list of strings',
      userTask('<zeebe:assignmentDefinition candidateGroups="=&quot;sales&quot;" />'),
      /candidateGroups "="sales"" evaluated to "sales": it must be a list of strings/,
    ],
  ])('%s', async (_, xml, message) => {
    const engine = await engineWith(xml, { a: () => ({}) });
    const id = await engine.start('p');
    const settled = await engine.settled(id);
    expect(settled.status).toBe('waiting');
    const incidents = settled.status === 'waiting' ? settled.incidents : [];
    expect(incidents).toEqual([
      expect.objectContaining({ kind: 'expression-failed', message: expect.stringMatching(message) }),
    ]);
  });
});

describe('zeebe:taskHeaders', () => {
  it('reach the handler as job.headers, later duplicates winning; a task without them gets {}', async () => {
    const seen: Record<string, string>[] = [];
    const headers =
      '<zeebe:taskHeaders><zeebe:header key="channel" value="email" /><zeebe:header key="channel" value="sms" /><zeebe:header key="priority" value="high" /></zeebe:taskHeaders>';
    const xml = around(
      `<bpmn:serviceTask id="x">${ext(`<zeebe:taskDefinition type="a" />${headers}`)}</bpmn:serviceTask>`,
    );
    const engine = await engineWith(xml, {
      a: (job) => {
        seen.push(job.headers);
      },
    });
    await engine.settled(await engine.start('p'));
    const plain = await engineWith(serviceTask('type="a"'), {
      a: (job) => {
        seen.push(job.headers);
      },
    });
    await plain.settled(await plain.start('p'));
    expect(seen).toEqual([{ channel: 'sms', priority: 'high' }, {}]);
  });
});

describe('what Zeebe 8 refuses, Thresher refuses too', () => {
  it.each([
    ['source="$.order.id" target="$.orderId"', /JSONPath mapping.*source="=order\.id" target="orderId"/],
    ['source="=order.id" target="$.orderId"', /JSONPath mapping.*source="=order\.id" target="orderId"/],
    ['source="$" target="all"', /JSONPath mapping.*source="=…" target="all"/],
  ])('should refuse a Zeebe 0.x JSONPath mapping (%s), naming the FEEL form to write', async (attributes, message) => {
    const issues = await issuesOf(userTask(`<zeebe:ioMapping><zeebe:output ${attributes} /></zeebe:ioMapping>`));
    expect(issues).toEqual([expect.objectContaining({ elementId: 'x', message: expect.stringMatching(message) })]);
  });

  it('should keep a static source that only contains a dollar sign as the string it is', async () => {
    const model = await compile(
      userTask('<zeebe:ioMapping><zeebe:output source="US$ 10" target="price" /></zeebe:ioMapping>'),
    );
    const node = model.processes.get('p')!.nodes.get('x') as UserTaskNode;
    expect(node.io.outputs.map((mapping) => mapping.source.source)).toEqual(['"US$ 10"']);
  });

  it('should refuse execution listeners on a sequence flow, as Zeebe does', async () => {
    const listener = ext(
      '<zeebe:executionListeners><zeebe:executionListener eventType="start" type="audit" /></zeebe:executionListeners>',
    );
    const xml = around('<bpmn:task id="x" />').replace(
      /<bpmn:sequenceFlow id="(\w+)" sourceRef="(\w+)" targetRef="(\w+)" \/>/,
      `<bpmn:sequenceFlow id="$1" sourceRef="$2" targetRef="$3">${listener}</bpmn:sequenceFlow>`,
    );
    expect(xml).toContain('zeebe:executionListener ');
    const issues = await issuesOf(xml);
    expect(issues).toEqual([
      expect.objectContaining({
        message: expect.stringMatching(/executionListeners on a bpmn:SequenceFlow: Zeebe runs/),
      }),
    ]);
  });
});

describe('no silent null: a FEEL call that cannot be evaluated is refused at deploy', () => {
  it.each([
    [
      'a script',
      `<bpmn:scriptTask id="x">${ext('<zeebe:script expression="=nosuch(1)" resultVariable="r" />')}</bpmn:scriptTask>`,
      /zeebe:script expression "nosuch\(1\)" cannot be evaluated: .*nosuch/,
    ],
    [
      'an output mapping',
      `<bpmn:userTask id="x">${ext('<zeebe:ioMapping><zeebe:output source="=is defined()" target="r" /></zeebe:ioMapping>')}</bpmn:userTask>`,
      /zeebe:output source for "r" "is defined\(\)" cannot be evaluated: .*is defined/,
    ],
    [
      'a job type',
      `<bpmn:serviceTask id="x">${ext('<zeebe:taskDefinition type="=upper case(kind, 1)" />')}</bpmn:serviceTask>`,
      /zeebe:taskDefinition type "upper case\(kind, 1\)" cannot be evaluated: .*upper case/,
    ],
    [
      'a named parameter',
      `<bpmn:userTask id="x">${ext('<zeebe:ioMapping><zeebe:input source="=substring(string: s, begin: 2)" target="r" /></zeebe:ioMapping>')}</bpmn:userTask>`,
      /cannot be evaluated: .*substring/,
    ],
  ])(
    'should refuse %s calling a function it cannot, naming the element, the attribute and the function',
    async (_, element, message) => {
      const issues = await issuesOf(around(element));
      expect(issues).toEqual([expect.objectContaining({ elementId: 'x', message: expect.stringMatching(message) })]);
    },
  );

  it('should deploy a call of a function the expression defines itself', async () => {
    const script = ext(
      '<zeebe:script expression="={ double: function(n) n * 2, r: double(21) }.r" resultVariable="r" />',
    );
    await expect(compile(around(`<bpmn:scriptTask id="x">${script}</bpmn:scriptTask>`))).resolves.toBeDefined();
  });
});
