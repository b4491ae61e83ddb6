import type { ChoiceOption } from '@thresher/engine';

/**
 * Answers given up front with `--choose ELEMENT=OPTION`: which option a value names, and what is said
 * when it names none.
 *
 * @module
 */

/**
 * The option `value` names: the option with that id first, else the option numbered so (from 1, as the
 * choice window numbers them); undefined when it names none.
 *
 * @example
 * pickOption([{ id: 'yes', … }, { id: 'no', … }], 'no'); // the second
 * pickOption([{ id: 'yes', … }, { id: 'no', … }], '1'); // the first
 */
export function pickOption(options: readonly ChoiceOption[], value: string): ChoiceOption | undefined {
  const byId = options.find((option) => option.id === value);
  if (byId) return byId;
  if (!/^[1-9][0-9]*$/.test(value)) return undefined;
  return options[Number(value) - 1];
}

/** The options as `1 yes (Approve)`, for a message that lists what could have been chosen. */
export function describeOptions(options: readonly ChoiceOption[]): string {
  if (options.length === 0) return 'none (it takes variables: complete it with thresher complete … --var k=v)';
  return options
    .map((option, position) => `${position + 1} ${option.id}${option.label === option.id ? '' : ` (${option.label})`}`)
    .join(', ');
}

/** Why `--choose ELEMENT=VALUE` cannot answer the task: it names no option; the options it could name. */
export function noSuchOption(elementId: string, value: string, options: readonly ChoiceOption[]): string {
  return `--choose ${elementId}=${value} names no option of user task ${elementId}; its options: ${describeOptions(options)}`;
}
