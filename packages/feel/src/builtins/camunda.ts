/**
 * Functions Zeebe adds to feel-scala's (its `FeelFunctionProvider`): `fromAi`, which marks a value an
 * AI agent fills in and, evaluated, is that value; and `cycle`, which writes a timer cycle.
 *
 * @module
 */
import { intValue, isNumber } from '../number.js';
import { FeelDaysTimeDuration, FeelYearsMonthsDuration } from '../temporal/duration.js';
import type { FeelValue } from '../values.js';
import { type BuiltinTable, builtin, fail } from './define.js';

const FROM_AI_PARAMS = ['value', 'description', 'type', 'schema', 'options'];

const isDuration = (value: FeelValue | undefined): value is FeelDaysTimeDuration | FeelYearsMonthsDuration =>
  value instanceof FeelDaysTimeDuration || value instanceof FeelYearsMonthsDuration;

/** Zeebe's functions. */
export const camundaBuiltins: BuiltinTable = {
  // Zeebe 8.8's FromAiFunction: (value[, description[, type[, schema]]]) returns value; Camunda's
  // documentation adds `options`, which is read the same way.
  fromAi: FROM_AI_PARAMS.map((_, i) => builtin(FROM_AI_PARAMS.slice(0, i + 1), ([value]) => value!)),
  cycle: [
    builtin(['repetitions', 'interval'], ([repetitions, interval]) => {
      if (!isDuration(interval) || (repetitions !== null && !isNumber(repetitions))) {
        return fail(
          `cycle function expected a repetitions (number) and an interval (duration) parameter, but found '${String(repetitions)}, ${String(interval)}'`,
        );
      }
      return repetitions === null
        ? `R/${interval.toString()}`
        : `R${intValue(repetitions)}/${interval.toString().toUpperCase()}`;
    }),
    // Zeebe names the single parameter `repetitions`, though it is the interval.
    builtin(['repetitions'], ([interval]) => {
      if (!isDuration(interval))
        return fail(`cycle function expected an interval (duration) parameter, but found '${String(interval)}'`);
      return `R/${interval.toString()}`;
    }),
  ],
};
