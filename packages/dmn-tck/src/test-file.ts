/**
 * A TCK test file (`<folder>-test-NN.xml`): its model, its test cases, their inputs and expected results,
 * with every value read as the FEEL value the TCK means (`xsd:decimal` a decimal, `xsd:date` a date…).
 *
 * @module
 */
import { readXml, type XmlElement } from '@thresher/dmn';
import { evaluate, FeelContext, type FeelValue, parseExpression } from '@thresher/feel';

export interface TckValue {
  /** The FEEL value, or undefined when the XML holds no value at all (an empty `<expected/>`). */
  value: FeelValue | undefined;
}

export interface TestCase {
  id: string;
  /** `decision` (the default), `bkm` or `decisionService`. */
  type: string;
  invocableName: string | null;
  inputs: { name: string; value: FeelValue }[];
  results: { name: string; errorResult: boolean; expected: FeelValue | undefined }[];
}

export interface TestFile {
  modelName: string;
  cases: TestCase[];
}

/** A test file's element, its name without the test-case namespace's prefix. */
interface Node {
  name: string;
  attrs: Readonly<Record<string, string>>;
  children: Node[];
  text: string;
}

const TESTCASE_NAMESPACES = {
  'http://www.omg.org/spec/DMN/20160719/testcase': 'tc',
  'http://www.w3.org/2001/XMLSchema-instance': 'xsi',
};

function readTree(xml: string): Node {
  const unprefixed = (element: XmlElement): Node => ({
    name: element.name.replace(/^tc:/, ''),
    attrs: element.attrs,
    children: element.children.map(unprefixed),
    text: element.text,
  });
  return unprefixed(readXml(xml, TESTCASE_NAMESPACES));
}

const FEEL_OF: Record<string, (text: string) => string> = {
  'xsd:decimal': (text) => text,
  'xsd:double': (text) => text,
  'xsd:integer': (text) => text,
  'xsd:int': (text) => text,
  'xsd:long': (text) => text,
  'xsd:date': (text) => `date("${text}")`,
  'xsd:dateTime': (text) => `date and time("${text}")`,
  'xsd:time': (text) => `time("${text}")`,
  'xsd:duration': (text) => `duration("${text}")`,
};

/** A typed literal as a FEEL value: numbers as decimals, temporal values through FEEL's own constructors. */
export function typedValue(type: string | undefined, text: string): FeelValue {
  const trimmed = text.trim();
  if (type === undefined || type === 'xsd:string') return text;
  if (type === 'xsd:boolean') return trimmed === 'true';
  const feel = FEEL_OF[type];
  if (!feel) throw new Error(`unknown value type ${type}`);
  const number = type === 'xsd:decimal' || type === 'xsd:double' || type.startsWith('xsd:int') || type === 'xsd:long';
  const source = number ? normaliseNumber(trimmed) : feel(trimmed);
  const result = evaluate(parseExpression(source), {});
  if (!result.ok || result.value === null) throw new Error(`cannot read ${type} "${text}"`);
  return result.value;
}

/** FEEL number literals have no exponent or sign: `1E2` is written `number("1E2")`… or expanded. */
function normaliseNumber(text: string): string {
  if (/^[+-]?(\d+\.?\d*|\.\d+)$/.test(text)) return text.startsWith('+') ? text.slice(1) : text;
  if (text === 'NaN' || /Infinity/.test(text)) throw new Error(`${text} is not a FEEL number`);
  return `number("${text}")`;
}

/** The value a `<value>`, `<list>` or set of `<component>`s holds (undefined when there is none). */
function heldValue(node: Node): FeelValue | undefined {
  const value = node.children.find((child) => child.name === 'value');
  if (value) {
    if (value.attrs['xsi:nil'] === 'true') return null;
    if (value.children.length > 0) return heldValue(value);
    return typedValue(value.attrs['xsi:type'], value.text);
  }
  const list = node.children.find((child) => child.name === 'list');
  if (list) {
    if (list.attrs['xsi:nil'] === 'true') return null;
    return list.children.filter((item) => item.name === 'item').map((item) => itemValue(item));
  }
  const components = node.children.filter((child) => child.name === 'component');
  if (components.length > 0) {
    return FeelContext.of(new Map(components.map((component) => [component.attrs.name ?? '', itemValue(component)])));
  }
  if (node.attrs['xsi:nil'] === 'true') return null;
  return undefined;
}

function itemValue(node: Node): FeelValue {
  if (node.attrs['xsi:nil'] === 'true') return null;
  return heldValue(node) ?? null;
}

/** Reads a test file. */
export function readTestFile(xml: string): TestFile {
  const root = readTree(xml);
  const modelName = root.children.find((child) => child.name === 'modelName')?.text.trim() ?? '';
  const cases = root.children
    .filter((child) => child.name === 'testCase')
    .map(
      (testCase): TestCase => ({
        id: testCase.attrs.id ?? '',
        type: testCase.attrs.type ?? 'decision',
        invocableName: testCase.attrs.invocableName ?? null,
        inputs: testCase.children
          .filter((child) => child.name === 'inputNode')
          .map((input) => ({ name: input.attrs.name ?? '', value: itemValue(input) })),
        results: testCase.children
          .filter((child) => child.name === 'resultNode')
          .map((result) => {
            const expected = result.children.find((child) => child.name === 'expected');
            return {
              name: result.attrs.name ?? '',
              errorResult: result.attrs.errorResult === 'true',
              expected: expected ? heldValue(expected) : undefined,
            };
          }),
      }),
    );
  return { modelName, cases };
}
