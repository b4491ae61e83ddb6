/**
 * Context built-ins (feel-scala's `ContextBuiltinFunctions`): `get entries`, `get value` (with a key
 * or a path of keys), `context put` (with a key or a path), `context merge`, `context`, and the
 * deprecated names feel-scala keeps (`put`, `put all`).
 *
 * @module
 */
import { FeelContext, type FeelValue, type Val } from '../values.js';
import { type BuiltinTable, builtin } from './define.js';

const isStrings = (list: readonly FeelValue[]): list is readonly string[] =>
  list.every((item) => typeof item === 'string');

function getPath(context: FeelContext, keys: readonly string[]): FeelValue {
  let current: FeelValue = context;
  for (let i = 0; i < keys.length; i++) {
    if (!(current instanceof FeelContext)) return null;
    const value: FeelValue | undefined = current.get(keys[i]!);
    if (value === undefined) return null;
    current = value;
  }
  return keys.length === 0 ? null : current;
}

function putPath(context: FeelContext, keys: readonly string[], value: FeelValue): FeelContext {
  const [key, ...rest] = keys;
  if (key === undefined) return context;
  if (rest.length === 0) return context.with(key, value);
  const nested = context.get(key);
  return context.with(key, putPath(nested instanceof FeelContext ? nested : FeelContext.empty(), rest, value));
}

const getValue = (params: string[]) =>
  builtin(params, ([context, key]) => {
    if (!(context instanceof FeelContext)) return undefined;
    if (typeof key === 'string') return context.get(key) ?? null;
    if (Array.isArray(key)) return isStrings(key) ? getPath(context, key) : null;
    return undefined;
  });

/** `context put` with a key (feel-scala's `contextPutFunction`), which also takes a path. */
const putWithKey = builtin(['context', 'key', 'value'], ([context, key, value]) => {
  if (!(context instanceof FeelContext)) return undefined;
  if (typeof key === 'string') return context.with(key, value!);
  if (Array.isArray(key)) {
    if (key.length === 0) return null;
    if (isStrings(key)) return putPath(context, key, value!);
  }
  return undefined;
});

const putWithKeys = builtin(['context', 'keys', 'value'], ([context, keys, value]) => {
  if (!(context instanceof FeelContext) || !Array.isArray(keys)) return undefined;
  if (keys.length === 0) return null;
  return isStrings(keys) ? putPath(context, keys, value!) : undefined;
});

const merge = builtin(
  ['contexts'],
  ([contexts]): Val => {
    if (!Array.isArray(contexts) || !contexts.every((item) => item instanceof FeelContext)) return null;
    const entries = new Map<string, FeelValue>();
    for (const context of contexts as FeelContext[])
      for (const [key, value] of context.entries()) entries.set(key, value);
    return FeelContext.of(entries);
  },
  true,
);

const getEntries = (param: string) =>
  builtin([param], ([context]) => {
    if (!(context instanceof FeelContext)) return undefined;
    return [...context.entries()].map(([key, value]) =>
      FeelContext.of(
        new Map<string, FeelValue>([
          ['key', key],
          ['value', value],
        ]),
      ),
    );
  });

/** The context built-ins. */
export const contextBuiltins: BuiltinTable = {
  'get entries': [getEntries('context'), getEntries('m')],
  'get value': [getValue(['m', 'key']), getValue(['context', 'key']), getValue(['context', 'keys'])],
  'context put': [putWithKey, putWithKeys],
  put: [putWithKey],
  'context merge': [merge],
  'put all': [merge],
  context: [
    builtin(['entries'], ([entries]) => {
      if (!Array.isArray(entries)) return null;
      const pairs = entries.every(
        (entry) => entry instanceof FeelContext && entry.has('value') && typeof entry.get('key') === 'string',
      );
      if (!pairs) return null;
      const map = new Map<string, FeelValue>();
      for (const entry of entries as FeelContext[]) map.set(entry.get('key') as string, entry.get('value')!);
      return FeelContext.of(map);
    }),
  ],
};
