/**
 * An activity's loop characteristics: `bpmn:multiInstanceLoopCharacteristics` (with Zeebe's
 * `zeebe:loopCharacteristics` in its extension elements) and `bpmn:standardLoopCharacteristics`, read
 * into the `loop` of its node. Values follow Zeebe's rules: expressions start with `=`, variable names do not.
 *
 * @module
 */
import { compileRequiredExpression, isExpressionText } from './expression.js';
import { readExtensions, tagName } from './extensions.js';
import { isJuel } from './foreign.js';
import type { IssueCollector } from './issues.js';
import { child, idOf, type ModdleElement, str } from './moddle.js';
import { usedExtensions } from './nodes.js';
import type { Expression, LoopSpec, MultiInstance, StandardLoop } from './types.js';

/** BPMN's data-driven multi-instance, which Zeebe (and so Thresher) replaces with `zeebe:loopCharacteristics`. */
const BPMN_DATA: readonly (readonly [property: string, instead: string])[] = [
  ['loopDataInputRef', 'inputCollection'],
  ['inputDataItem', 'inputElement'],
  ['loopDataOutputRef', 'outputCollection'],
  ['outputDataItem', 'outputElement'],
];

/** The events a multi-instance activity throws as its bodies complete (`behavior` other than `All`). */
const BEHAVIOR_EVENTS: readonly string[] = ['complexBehaviorDefinition', 'oneBehaviorEventRef', 'noneBehaviorEventRef'];

/**
 * Reads the loop characteristics of `activity`, recording an issue (on the activity) for each part that is
 * wrong. A spec with a refused part is still returned, that part null: the model is refused all the same,
 * and the node keeps its loop, so the runtime gate still names it in its place.
 *
 * @returns the spec, or undefined when the activity does not loop (or must not: an event sub-process).
 */
export function readLoop(activity: ModdleElement, issues: IssueCollector): LoopSpec | undefined {
  const loop = child(activity, 'loopCharacteristics');
  if (!loop) return undefined;
  if (activity.triggeredByEvent === true) {
    issues.error(
      activity,
      `an event sub-process cannot loop: it runs once each time its start event fires; remove the ${tagName(loop.$type)}`,
    );
    return undefined;
  }
  // Any other Zeebe extension on the loop element is refused, naming the activity a modeller sees.
  const extensions = readExtensions(loop, usedExtensions(loop), issues, activity);
  if (loop.$type === 'bpmn:StandardLoopCharacteristics') return standardLoop(activity, loop, issues);
  return multiInstance(activity, loop, extensions.get('zeebe:LoopCharacteristics'), issues);
}

function multiInstance(
  activity: ModdleElement,
  loop: ModdleElement,
  zeebe: ModdleElement | undefined,
  issues: IssueCollector,
): MultiInstance {
  const attribute = (name: string) => (zeebe ? str(zeebe, name)?.trim() || undefined : undefined);
  const what = (name: string) => `zeebe:loopCharacteristics ${name}`;
  const collectionText = attribute('inputCollection');
  const outputText = attribute('outputElement');
  const spec: MultiInstance = {
    kind: 'multiInstance',
    sequential: loop.isSequential === true,
    inputCollection: collectionText
      ? compileRequiredExpression(collectionText, activity, what('inputCollection'), issues)
      : null,
    inputElement: variableName(LOOP, 'inputElement', attribute('inputElement'), activity, issues),
    cardinality: cardinality(activity, loop, issues),
    outputCollection: variableName(LOOP, 'outputCollection', attribute('outputCollection'), activity, issues),
    outputElement: outputText ? compileRequiredExpression(outputText, activity, what('outputElement'), issues) : null,
    completionCondition: bodyExpression(activity, loop, 'completionCondition', issues),
  };
  const cardinalityGiven = child(loop, 'loopCardinality') !== undefined;
  if (collectionText && cardinalityGiven) {
    issues.error(
      activity,
      'bpmn:multiInstanceLoopCharacteristics has both zeebe:loopCharacteristics inputCollection and bpmn:loopCardinality: give one (inputCollection runs a body per item, loopCardinality a number of bodies)',
    );
    spec.cardinality = null;
  } else if (!collectionText && !cardinalityGiven) {
    issues.error(
      activity,
      `bpmn:multiInstanceLoopCharacteristics on ${activity.$type} needs a zeebe:loopCharacteristics inputCollection (a body per item) or a bpmn:loopCardinality (a number of bodies): e.g. <zeebe:loopCharacteristics inputCollection="=items" inputElement="item" /> in its extensionElements`,
    );
  }
  if (attribute('inputElement') && !collectionText) {
    issues.error(
      activity,
      `${what('inputElement')} "${attribute('inputElement')}" needs an inputCollection to take its items from`,
    );
  }
  if (attribute('outputCollection') && !outputText) {
    issues.error(
      activity,
      `${what('outputCollection')} "${attribute('outputCollection')}" needs an outputElement: the value each body adds to it, e.g. outputElement="=result"`,
    );
  } else if (outputText && !attribute('outputCollection')) {
    issues.error(
      activity,
      `${what('outputElement')} "${outputText}" needs an outputCollection: the variable the bodies' values are gathered in, e.g. outputCollection="results"`,
    );
  }
  for (const [property, instead] of BPMN_DATA) {
    if (loop[property] !== undefined) {
      issues.error(activity, `bpmn:${property} is not read: use ${what(instead)}, as Zeebe does`);
    }
  }
  const behavior = str(loop, 'behavior') ?? 'All';
  if (behavior !== 'All' || BEHAVIOR_EVENTS.some((property) => loop[property] !== undefined)) {
    issues.error(
      activity,
      `multi-instance behavior="${behavior}" (events thrown as bodies complete) is not supported: Thresher runs behavior="All"; use a completionCondition to finish early`,
    );
  }
  return spec;
}

function standardLoop(activity: ModdleElement, loop: ModdleElement, issues: IssueCollector): StandardLoop {
  const spec: StandardLoop = {
    kind: 'standardLoop',
    loopCondition: bodyExpression(activity, loop, 'loopCondition', issues),
    testBefore: loop.testBefore === true,
    loopMaximum: loopMaximum(activity, loop, issues),
  };
  if (child(loop, 'loopCondition') === undefined && loop.loopMaximum === undefined) {
    issues.error(
      activity,
      'a bpmn:standardLoopCharacteristics without a loopCondition or a loopMaximum would repeat forever: give a loopCondition (e.g. =count < 3) or a loopMaximum',
    );
  }
  return spec;
}

/**
 * `loopMaximum`, checked as written: bpmn-moddle reads it with `parseInt`, which would turn "2.5" into 2
 * without a word, so the attribute's own text is what must be a non-negative integer.
 */
function loopMaximum(activity: ModdleElement, loop: ModdleElement, issues: IssueCollector): number | null {
  const parsed = loop.loopMaximum;
  if (parsed === undefined) return null;
  const id = idOf(activity);
  const raw = id ? issues.lines.attributeAfter(id, 'standardLoopCharacteristics', 'loopMaximum') : undefined;
  // Only the attribute moddle read (the same number, or both not one) is taken as its text.
  const same = raw !== undefined && Object.is(Number.parseInt(raw, 10), parsed);
  const text = (same ? raw : String(parsed)).trim();
  if (/^\d+$/.test(text) && Number.isSafeInteger(Number(text))) return Number(text);
  issues.error(activity, `loopMaximum="${text}" is not a non-negative integer`);
  return null;
}

/** `bpmn:loopCardinality`: a plain non-negative integer (a FEEL number), or `=` FEEL; null when absent or refused. */
function cardinality(activity: ModdleElement, loop: ModdleElement, issues: IssueCollector): Expression | null {
  const text = bodyText(activity, loop, 'loopCardinality', issues);
  if (text === undefined || text === null) return null;
  if (/^\d+$/.test(text) && Number.isSafeInteger(Number(text))) {
    return { source: String(Number(text)), elementId: idOf(activity) ?? '' };
  }
  if (text !== '' && !isExpressionText(text)) {
    issues.error(
      activity,
      `bpmn:loopCardinality "${text}" is neither a non-negative integer nor an expression: write a count (e.g. 3) or "=" and a FEEL expression`,
    );
    return null;
  }
  return compileRequiredExpression(text, activity, 'bpmn:loopCardinality', issues);
}

/** A condition body (`completionCondition`, `loopCondition`): `=` FEEL; null when absent or refused. */
export function bodyExpression(
  activity: ModdleElement,
  loop: ModdleElement,
  property: string,
  issues: IssueCollector,
): Expression | null {
  const text = bodyText(activity, loop, property, issues);
  if (text === undefined || text === null) return null;
  return compileRequiredExpression(text, activity, `bpmn:${property}`, issues);
}

/**
 * The trimmed body of a `bpmn:Expression` child: undefined when absent, null when refused (a language
 * other than FEEL, or JUEL as Camunda 7 and Flowable write it).
 */
function bodyText(
  activity: ModdleElement,
  loop: ModdleElement,
  property: string,
  issues: IssueCollector,
): string | null | undefined {
  const expression = child(loop, property);
  if (!expression) return undefined;
  const text = (str(expression, 'body') ?? '').trim();
  const language = str(expression, 'language');
  if (language && !/feel/i.test(language)) {
    issues.error(activity, `bpmn:${property} language "${language}" is not supported (Thresher evaluates FEEL)`);
    return null;
  }
  if (isJuel(text)) {
    issues.error(
      activity,
      `bpmn:${property} "${text}" is JUEL (Camunda 7 / Flowable): Thresher expressions are FEEL, written with a leading "="`,
    );
    return null;
  }
  return text;
}

const LOOP = 'zeebe:loopCharacteristics';

/**
 * A variable name (`inputElement`, `outputCollection`) on the extension `holder`: static text, never an
 * expression; null when absent or refused.
 */
export function variableName(
  holder: string,
  name: string,
  text: string | undefined,
  activity: ModdleElement,
  issues: IssueCollector,
): string | null {
  if (text === undefined) return null;
  if (!isExpressionText(text)) return text;
  issues.error(
    activity,
    `${holder} ${name} "${text}" is a variable name, not an expression: write ${name}="${text.replace(/^\s*=\s*/, '')}"`,
  );
  return null;
}
