import { fromFeel } from '@thresher/feel';
import { describe, expect, it } from 'vitest';
import { DmnModelError, evaluateDecision, evaluateInvocable, isDmn, parseDmn } from '../src/index.js';
import { definitions, literal, NAMESPACES, table } from './models.js';

function value(xml: string, id: string, variables: Record<string, unknown> = {}): unknown {
  const outcome = evaluateDecision(parseDmn(xml), id, variables);
  return outcome.ok ? fromFeel(outcome.value) : `failed: ${outcome.failure.message}`;
}

function issuesOf(xml: string): { elementId?: string; message: string }[] {
  try {
    parseDmn(xml);
  } catch (error) {
    expect(error).toBeInstanceOf(DmnModelError);
    expect((error as DmnModelError).code).toBe('DMN_MODEL');
    return (error as DmnModelError).issues;
  }
  throw new Error('expected the model to be refused');
}

describe('DMN versions', () => {
  const body = table({
    inputs: ['x'],
    outputs: ['y'],
    rules: [
      ['< 5', '"low"'],
      ['>= 5', '"high"'],
    ],
  });
  it.each(Object.keys(NAMESPACES) as (keyof typeof NAMESPACES)[])('DMN %s reads and evaluates the same', (version) => {
    const xml = definitions(body, version);
    expect(isDmn(xml)).toBe(true);
    expect(value(xml, 'd', { x: 7 })).toBe('high');
  });

  it('a BPMN document is not DMN', () => {
    expect(
      isDmn('<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" id="d" targetNamespace="x"/>'),
    ).toBe(false);
  });
});

describe('requirement graphs', () => {
  const graph = definitions(`
    <inputData id="salary" name="Monthly Salary"/>
    ${literal('yearly', 'Monthly Salary * 12', [], '<informationRequirement id="y-salary"><requiredInput href="#salary"/></informationRequirement>')}
    ${literal('bonus', 'yearly / 10', ['yearly'])}
    ${literal('total', 'yearly + bonus', ['yearly', 'bonus'])}`);

  it('evaluates each required decision once, first, and binds it by name — names with spaces as DMN writes them', () => {
    const outcome = evaluateDecision(parseDmn(graph), 'total', { 'Monthly Salary': 1000 });
    expect(outcome.ok && fromFeel(outcome.value)).toBe(13200);
    expect(outcome.evaluated.map((record) => record.decisionId)).toEqual(['yearly', 'bonus', 'total']);
  });

  it('a decision that requires a decision that does not exist is refused, naming it', () => {
    const issues = issuesOf(definitions(literal('a', '1', ['nowhere'])));
    expect(issues[0]).toMatchObject({ elementId: 'a' });
    expect(issues[0]!.message).toMatch(/requires the decision 'nowhere', which does not exist/);
  });
});

describe('knowledge models and services', () => {
  const xml = definitions(`
    <businessKnowledgeModel id="add" name="add">
      <encapsulatedLogic id="add-fn"><formalParameter name="a"/><formalParameter name="b"/>
        <literalExpression id="add-body"><text>a + b</text></literalExpression></encapsulatedLogic>
    </businessKnowledgeModel>
    <decision id="called" name="called">
      <knowledgeRequirement id="called-add"><requiredKnowledge href="#add"/></knowledgeRequirement>
      <literalExpression id="called-x"><text>add(1, 2)</text></literalExpression>
    </decision>
    <decision id="invoked" name="invoked">
      <knowledgeRequirement id="invoked-add"><requiredKnowledge href="#add"/></knowledgeRequirement>
      <invocation id="inv"><literalExpression id="inv-callee"><text>add</text></literalExpression>
        <binding><parameter name="b"/><literalExpression id="inv-b"><text>10</text></literalExpression></binding>
        <binding><parameter name="a"/><literalExpression id="inv-a"><text>5</text></literalExpression></binding>
      </invocation>
    </decision>
    <decisionService id="svc" name="svc">
      <outputDecision href="#called"/>
    </decisionService>`);

  it('a knowledge model is called from FEEL and through a boxed invocation (bindings by name)', () => {
    expect(value(xml, 'called')).toBe(3);
    expect(value(xml, 'invoked')).toBe(15);
  });

  it('a knowledge model and a decision service are invoked by id', () => {
    const definitionsParsed = parseDmn(xml);
    const bkm = evaluateInvocable(definitionsParsed, 'add', { a: 2, b: 3 });
    expect(bkm.ok && fromFeel(bkm.value)).toBe(5);
    const service = evaluateInvocable(definitionsParsed, 'svc', {});
    expect(service.ok && fromFeel(service.value)).toBe(3);
  });
});

describe('decision service parameters', () => {
  const xml = definitions(`
    <inputData id="given" name="given"><variable name="given" typeRef="string"/></inputData>
    <decision id="known" name="known"><variable name="known" typeRef="string"/><literalExpression id="known-x"><text>"never evaluated"</text></literalExpression></decision>
    <decision id="joined" name="joined">
      <informationRequirement id="j-given"><requiredInput href="#given"/></informationRequirement>
      <informationRequirement id="j-known"><requiredDecision href="#known"/></informationRequirement>
      <literalExpression id="joined-x"><text>given + " " + known</text></literalExpression>
    </decision>
    <decisionService id="svc" name="svc">
      <outputDecision href="#joined"/><inputDecision href="#known"/><inputData href="#given"/>
    </decisionService>
    <decision id="call" name="call">
      <knowledgeRequirement id="call-svc"><requiredKnowledge href="#svc"/></knowledgeRequirement>
      <literalExpression id="call-x"><text>svc(["A"], "B")</text></literalExpression>
    </decision>
    <decision id="wrong" name="wrong">
      <knowledgeRequirement id="wrong-svc"><requiredKnowledge href="#svc"/></knowledgeRequirement>
      <literalExpression id="wrong-x"><text>svc("A", 1)</text></literalExpression>
    </decision>`);

  it('are the input data, then the input decisions, whose given values stand in for evaluating them', () => {
    expect(parseDmn(xml).decisionServices.get('svc')?.parameters).toEqual(['given', 'known']);
    expect(value(xml, 'call')).toBe('A B');
  });

  it('refuse an input decision value of another type: the service is not invoked', () => {
    const outcome = evaluateInvocable(parseDmn(xml), 'svc', { given: 'A', known: 1 });
    expect(outcome.ok).toBe(false);
    if (!outcome.ok) expect(outcome.failure.message).toMatch(/parameter 'known' is not of its decision's type/);
    // called from FEEL, the failed call is null, as DMN makes an invocation error
    expect(value(xml, 'wrong')).toBeNull();
  });
});

describe('boxed expressions', () => {
  const boxed = (id: string, inner: string) => `<decision id="${id}" name="${id}">${inner}</decision>`;

  it('a context sees its earlier entries and a final unnamed entry is its result', () => {
    const xml = definitions(
      boxed(
        'c',
        `<context id="ctx">
          <contextEntry><variable name="a"/><literalExpression id="ca"><text>2</text></literalExpression></contextEntry>
          <contextEntry><variable name="b"/><literalExpression id="cb"><text>a * 3</text></literalExpression></contextEntry>
          <contextEntry><literalExpression id="cr"><text>a + b</text></literalExpression></contextEntry>
        </context>`,
      ),
    );
    expect(value(xml, 'c')).toBe(8);
  });

  it('a relation is a list of contexts and a list a list', () => {
    const xml = definitions(`
      ${boxed('r', `<relation id="rel"><column name="n"/><column name="s"/><row id="r1"><literalExpression id="r1n"><text>1</text></literalExpression><literalExpression id="r1s"><text>"a"</text></literalExpression></row></relation>`)}
      ${boxed('l', `<list id="lst"><literalExpression id="l1"><text>1</text></literalExpression><literalExpression id="l2"><text>1 + 1</text></literalExpression></list>`)}`);
    expect(value(xml, 'r')).toEqual([{ n: 1, s: 'a' }]);
    expect(value(xml, 'l')).toEqual([1, 2]);
  });

  it('a conditional whose condition is not a boolean gives null (DMN 1.5)', () => {
    const conditional = (condition: string) =>
      definitions(
        boxed(
          'k',
          `<conditional id="cond"><if><literalExpression id="if"><text>${condition}</text></literalExpression></if><then><literalExpression id="then"><text>"yes"</text></literalExpression></then><else><literalExpression id="else"><text>"no"</text></literalExpression></else></conditional>`,
        ),
        '1.5',
      );
    expect(value(conditional('true'), 'k')).toBe('yes');
    expect(value(conditional('false'), 'k')).toBe('no');
    expect(value(conditional('"abc"'), 'k')).toBeNull();
  });

  it('a filter keeps the items its match holds for; a non-boolean match makes it null', () => {
    const filter = (match: string) =>
      definitions(
        boxed(
          'f',
          `<filter id="flt"><in><literalExpression id="fin"><text>[1,2,3,4]</text></literalExpression></in><match><literalExpression id="fm"><text>${match}</text></literalExpression></match></filter>`,
        ),
        '1.5',
      );
    expect(value(filter('item > 2'), 'f')).toEqual([3, 4]);
    expect(value(filter('"no"'), 'f')).toBeNull();
  });

  it('some and every test their items', () => {
    const quantified = (kind: 'some' | 'every', test: string) =>
      definitions(
        boxed(
          'q',
          `<${kind} id="qq" iteratorVariable="x"><in><literalExpression id="qin"><text>[1,2,3]</text></literalExpression></in><satisfies><literalExpression id="qs"><text>${test}</text></literalExpression></satisfies></${kind}>`,
        ),
        '1.5',
      );
    expect(value(quantified('some', 'x > 2'), 'q')).toBe(true);
    expect(value(quantified('every', 'x > 2'), 'q')).toBe(false);
    expect(value(quantified('every', 'x > 0'), 'q')).toBe(true);
  });
});

describe('types', () => {
  it('a decision typed number turns a value that does not conform into null, and a singleton list into its item', () => {
    const typed = (text: string) =>
      definitions(
        `<decision id="t" name="t"><variable name="t" typeRef="number"/><literalExpression id="tx" typeRef="number"><text>${text}</text></literalExpression></decision>`,
      );
    expect(value(typed('42'), 't')).toBe(42);
    expect(value(typed('"forty-two"'), 't')).toBeNull();
    expect(value(typed('[7]'), 't')).toBe(7);
  });

  it('an item definition with allowed values makes any other value null', () => {
    const xml = definitions(`
      <itemDefinition name="tColor"><typeRef>string</typeRef><allowedValues><text>"red","green"</text></allowedValues></itemDefinition>
      <decision id="c" name="c"><variable name="c" typeRef="tColor"/><literalExpression id="cx" typeRef="tColor"><text>color</text></literalExpression></decision>`);
    expect(value(xml, 'c', { color: 'red' })).toBe('red');
    expect(value(xml, 'c', { color: 'blue' })).toBeNull();
  });
});

describe('model errors and failures', () => {
  it('an expression that does not parse is refused, naming its element', () => {
    const issues = issuesOf(definitions(literal('bad', 'if x then')));
    expect(issues[0]).toMatchObject({ elementId: 'bad-x' });
  });

  it('an unknown hit policy and a non-FEEL expression language are refused', () => {
    const unknown = definitions(
      table({ inputs: ['x'], outputs: ['y'], rules: [['-', '1']] }).replace(
        'hitPolicy="UNIQUE"',
        'hitPolicy="SOMETIMES"',
      ),
    );
    expect(issuesOf(unknown)[0]!.message).toMatch(/SOMETIMES/);
    const juel = definitions(
      literal('j', 'x + 1').replace(
        '<literalExpression id="j-x"',
        '<literalExpression id="j-x" expressionLanguage="juel"',
      ),
    );
    expect(issuesOf(juel)[0]!.message).toMatch(/juel/);
  });

  it('lenient parsing lets the broken decision fail when evaluated, while the others evaluate', () => {
    const xml = definitions(`${literal('bad', 'if x then')}${literal('good', '1 + 1')}`);
    const parsed = parseDmn(xml, { lenient: true });
    const good = evaluateDecision(parsed, 'good', {});
    expect(good.ok && fromFeel(good.value)).toBe(2);
    const bad = evaluateDecision(parsed, 'bad', {});
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.failure.message).toMatch(/bad-x/);
  });

  it('a failure names the decision', () => {
    const outcome = evaluateDecision(parseDmn(definitions(literal('boom', 'assert(1, false)'))), 'boom', {});
    expect(outcome.ok).toBe(false);
    if (!outcome.ok) {
      expect(outcome.failure.decisionId).toBe('boom');
      expect(outcome.failure.message).toMatch(/boom/);
    }
  });

  it('the digest is the file: the same text gives the same digest, a change another', () => {
    const xml = definitions(literal('a', '1'));
    expect(parseDmn(xml).digest).toBe(parseDmn(xml).digest);
    expect(parseDmn(xml.replace('>1<', '>2<')).digest).not.toBe(parseDmn(xml).digest);
  });
});
