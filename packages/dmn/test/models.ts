/**
 * Small DMN documents for tests: a decision table from a compact description, or any decisions wrapped in
 * `definitions` of a chosen DMN version.
 */

export const NAMESPACES = {
  '1.1': 'http://www.omg.org/spec/DMN/20151101/dmn.xsd',
  '1.2': 'http://www.omg.org/spec/DMN/20180521/MODEL/',
  '1.3': 'https://www.omg.org/spec/DMN/20191111/MODEL/',
  '1.4': 'https://www.omg.org/spec/DMN/20211108/MODEL/',
  '1.5': 'https://www.omg.org/spec/DMN/20230324/MODEL/',
} as const;

export function definitions(body: string, version: keyof typeof NAMESPACES = '1.3'): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="${NAMESPACES[version]}" id="defs" name="Tests" namespace="http://thresher.dev/test">
${body}
</definitions>`;
}

export const escapeXml = (text: string) =>
  text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');

export interface TableSpec {
  id?: string;
  hitPolicy?: string;
  aggregation?: string;
  /** Input expressions, with optional input values. */
  inputs: (string | { expression: string; values?: string; typeRef?: string })[];
  /** Output names, with optional output values (priority order) and default. */
  outputs: (string | { name: string; values?: string; default?: string; typeRef?: string })[];
  /** Each rule: its input entries, then its output entries. */
  rules: string[][];
  typeRef?: string;
}

export function table(spec: TableSpec): string {
  const id = spec.id ?? 'd';
  const inputs = spec.inputs.map((input, i) => {
    const { expression, values, typeRef } = typeof input === 'string' ? { expression: input } : input;
    return `<input id="${id}-in${i}" label="${escapeXml(expression)}"><inputExpression id="${id}-ix${i}"${typeRef ? ` typeRef="${typeRef}"` : ''}><text>${escapeXml(expression)}</text></inputExpression>${values ? `<inputValues><text>${escapeXml(values)}</text></inputValues>` : ''}</input>`;
  });
  const outputs = spec.outputs.map((output, i) => {
    const { name, values, typeRef, default: fallback } = typeof output === 'string' ? { name: output } : output;
    return `<output id="${id}-out${i}" name="${name}"${typeRef ? ` typeRef="${typeRef}"` : ''}>${values ? `<outputValues><text>${escapeXml(values)}</text></outputValues>` : ''}${fallback ? `<defaultOutputEntry><text>${escapeXml(fallback)}</text></defaultOutputEntry>` : ''}</output>`;
  });
  const rules = spec.rules.map((cells, r) => {
    const ins = cells
      .slice(0, spec.inputs.length)
      .map((text, i) => `<inputEntry id="${id}-r${r + 1}-i${i}"><text>${escapeXml(text)}</text></inputEntry>`);
    const outs = cells
      .slice(spec.inputs.length)
      .map((text, i) => `<outputEntry id="${id}-r${r + 1}-o${i}"><text>${escapeXml(text)}</text></outputEntry>`);
    return `<rule id="${id}-r${r + 1}">${ins.join('')}${outs.join('')}</rule>`;
  });
  const attributes = [
    `id="${id}-table"`,
    `hitPolicy="${spec.hitPolicy ?? 'UNIQUE'}"`,
    spec.aggregation ? `aggregation="${spec.aggregation}"` : '',
  ].join(' ');
  return `<decision id="${id}" name="${id}"${spec.typeRef ? '' : ''}>
  <decisionTable ${attributes}>${inputs.join('')}${outputs.join('')}${rules.join('')}</decisionTable>
</decision>`;
}

export const literal = (id: string, text: string, requires: string[] = [], extra = '') =>
  `<decision id="${id}" name="${id}">${extra}${requires.map((r) => `<informationRequirement id="${id}-needs-${r}"><requiredDecision href="#${r}"/></informationRequirement>`).join('')}<literalExpression id="${id}-x"><text>${escapeXml(text)}</text></literalExpression></decision>`;
