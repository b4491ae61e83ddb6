// Translates the Scala value expressions of feel-scala's tests (literals, List/Map, java.time parses, feel-scala's
// Val* constructors) into the data's tagged JSON encoding (see test/data/feel-scala/README.md). What it cannot
// translate faithfully raises Untranslatable, and the case is counted as skipped instead of guessed.

/** A Scala value expression with no faithful JSON encoding; `reason` says what it is. */
export class Untranslatable extends Error {
  constructor(reason) {
    super(reason);
    this.name = 'Untranslatable';
    this.reason = reason;
  }
}

/**
 * A scope of `val` bindings (and lambda parameters bound to table rows). Bindings are ASTs resolved lazily in the
 * scope they were declared in, or already-resolved JSON values.
 */
export class Scope {
  constructor(parent = null) {
    this.parent = parent;
    this.bindings = new Map();
  }

  bindAst(name, ast) {
    this.bindings.set(name, { ast, scope: this });
  }

  bindValue(name, value) {
    this.bindings.set(name, { value });
  }

  bindOpaque(name, reason) {
    this.bindings.set(name, { opaque: reason });
  }

  lookup(name) {
    for (let scope = this; scope; scope = scope.parent) {
      if (scope.bindings.has(name)) return scope.bindings.get(name);
    }
    return undefined;
  }
}

const SEQUENCES = new Set(['List', 'Seq', 'Vector', 'IndexedSeq']);
const EMPTY_SEQUENCES = new Set(['Nil', 'List.empty', 'Seq.empty', 'Vector.empty']);

/** The dotted name of an identifier/selection chain (`java.time.LocalDate.parse`), or undefined. */
export function dottedName(node) {
  if (node.t === 'id') return node.name;
  if (node.t === 'sel') {
    const owner = dottedName(node.obj);
    return owner === undefined ? undefined : `${owner}.${node.name}`;
  }
  if (node.t === 'tapp') return dottedName(node.fn);
  return undefined;
}

/** The called function's dotted name without package prefixes (`java.time.LocalDate.parse` → `LocalDate.parse`). */
function calleeName(node) {
  const name = dottedName(node);
  return name?.replace(/^(?:java\.time|org\.camunda\.feel(?:\.syntaxtree)?|scala\.math)\./, '');
}

/** Constants of feel-scala's main code that tests use as values (FeelEngine.scala). */
const KNOWN_CONSTANTS = { 'UnaryTests.defaultInputVariable': 'cellInput' };

/** Resolves an identifier to its binding's node, following vals; throws when it is not a known value. */
function resolve(node, scope) {
  let current = node;
  let currentScope = scope;
  for (let hops = 0; current.t === 'id' || current.t === 'paren'; hops++) {
    if (hops > 50) throw new Untranslatable('a cyclic val binding');
    if (current.t === 'paren') {
      current = current.e;
      continue;
    }
    const binding = currentScope.lookup(current.name);
    if (!binding) return { node: current, scope: currentScope };
    if (binding.opaque) throw new Untranslatable(binding.opaque);
    if ('value' in binding) return { value: binding.value };
    current = binding.ast;
    currentScope = binding.scope;
  }
  return { node: current, scope: currentScope };
}

/** A Scala string-valued expression: literal, `+` concatenation, s-interpolation, or a val holding one. */
export function scalaString(node, scope) {
  const resolved = resolve(node, scope);
  if ('value' in resolved) {
    if (typeof resolved.value === 'string') return resolved.value;
    throw new Untranslatable('a string was expected but the binding holds another value');
  }
  const { node: n, scope: s } = resolved;
  if (n.t === 'str' || n.t === 'char') return n.v;
  if (dottedName(n) in KNOWN_CONSTANTS) return KNOWN_CONSTANTS[dottedName(n)];
  if (n.t === 'infix' && n.op === '+') return scalaString(n.l, s) + scalaString(n.r, s);
  if (n.t === 'interp') return interpolate(n, s);
  if (n.t === 'sel' && n.name === 'stripMargin') {
    return scalaString(n.obj, s)
      .split('\n')
      .map((line) => line.replace(/^[ \t]*\|/, ''))
      .join('\n');
  }
  throw new Untranslatable(`a string computed in Scala (${describe(n)})`);
}

/** `s"…"` with `$name` parts bound to strings or chars; other interpolators are refused. */
function interpolate(node, scope) {
  if (node.prefix !== 's') throw new Untranslatable(`the ${node.prefix}"…" interpolator`);
  let out = '';
  for (const part of node.parts) {
    if ('text' in part) {
      out += node.triple ? part.text : unescapeInterpolated(part.text);
    } else {
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(part.ref))
        throw new Untranslatable(`the interpolated expression \${${part.ref}}`);
      out += scalaString({ t: 'id', name: part.ref }, scope);
    }
  }
  return out;
}

const SIMPLE_ESCAPES = { b: '\b', t: '\t', n: '\n', f: '\f', r: '\r', '"': '"', "'": "'", '\\': '\\' };

function unescapeInterpolated(text) {
  return text.replace(/\\(u+[0-9a-fA-F]{4}|.)/g, (whole, sequence) => {
    if (sequence[0] === 'u') return String.fromCharCode(Number.parseInt(sequence.replace(/^u+/, ''), 16));
    if (sequence in SIMPLE_ESCAPES) return SIMPLE_ESCAPES[sequence];
    throw new Untranslatable(`the escape ${whole} in an interpolated string`);
  });
}

/** A short description of an AST node for skip reasons. */
export function describe(node) {
  if (!node) return 'nothing';
  switch (node.t) {
    case 'app':
      return `${describe(node.fn)}(…)`;
    case 'id':
      return node.name;
    case 'sel':
      return `${describe(node.obj)}.${node.name}`;
    case 'tapp':
      return `${describe(node.fn)}[${node.types}]`;
    case 'new':
      return `new ${node.cls}(…)`;
    case 'infix':
      return `${describe(node.l)} ${node.op} ${describe(node.r)}`;
    case 'paren':
      return `(${describe(node.e)})`;
    case 'num':
      return node.text;
    case 'str':
      return JSON.stringify(node.v);
    case 'lambda':
      return 'a lambda';
    case 'block':
      return 'a block';
    default:
      return node.t;
  }
}

/**
 * A Scala number literal (with optional unary minus) as an exact decimal string. Int and Long literals are kept
 * digit for digit; a Double literal becomes the decimal of the double it denotes (Scala compares
 * `BigDecimal == Double` through `BigDecimal.decimal(d)`, which is this shortest round-trip form).
 */
export function numberText(text, negative) {
  const sign = negative ? '-' : '';
  if (/^[0-9][0-9_]*[lL]?$/.test(text)) return sign + text.replace(/[lL_]/g, '').replace(/^0+(?=\d)/, '');
  if (/^0[xX]/.test(text)) return sign + BigInt(text.replace(/[lL_]/g, '')).toString();
  if (/[fF]$/.test(text)) throw new Untranslatable('a Float literal (its value depends on float rounding)');
  const value = Number(text.replace(/[dD]$/, '').replaceAll('_', ''));
  if (!Number.isFinite(value)) throw new Untranslatable(`the number literal ${text}`);
  return sign + plainDecimal(String(value));
}

/** Rewrites JavaScript's exponent notation (`1e-7`, `1.5e+21`) as a plain decimal string. */
function plainDecimal(text) {
  const match = /^(\d+)(?:\.(\d+))?e([+-]\d+)$/.exec(text);
  if (!match) return text;
  const digits = match[1] + (match[2] ?? '');
  const point = match[1].length + Number(match[3]);
  if (point <= 0) return `0.${'0'.repeat(-point)}${digits}`;
  if (point >= digits.length) return digits + '0'.repeat(point - digits.length);
  return `${digits.slice(0, point)}.${digits.slice(point)}`;
}

const DECIMAL = /^-?\d+(\.\d+)?$/;

/** A number-valued Scala expression (`1`, `-2.5`, `BigDecimal("1.5")`, a string via feel-scala's implicit). */
function scalaNumber(node, scope) {
  const resolved = resolve(node, scope);
  if ('value' in resolved) {
    if (resolved.value && typeof resolved.value === 'object' && '$number' in resolved.value) return resolved.value;
    throw new Untranslatable('a number was expected but the binding holds another value');
  }
  const { node: n, scope: s } = resolved;
  if (n.t === 'num') return { $number: numberText(n.text, false) };
  if (n.t === 'prefix' && n.op === '-' && n.e.t === 'num') return { $number: numberText(n.e.text, true) };
  if (n.t === 'ascribe') return scalaNumber(n.e, s);
  if (n.t === 'str') {
    if (!DECIMAL.test(n.v)) throw new Untranslatable(`the number string "${n.v}"`);
    return { $number: n.v };
  }
  if (n.t === 'app' && ['BigDecimal', 'BigDecimal.apply'].includes(calleeName(n.fn)) && n.args.length === 1) {
    return scalaNumber(n.args[0].value, s);
  }
  throw new Untranslatable(`a number computed in Scala (${describe(n)})`);
}

export const temporal = {
  /** `2019-03-31` */
  date(text) {
    if (!/^-?\d{4,9}-\d{2}-\d{2}$/.test(text)) throw new Untranslatable(`the date "${text}"`);
    return { $date: text };
  },
  /** A local time (`10:00:00`, `T`-prefix dropped). */
  localTime(text) {
    const t = text.replace(/^T/, '');
    if (!/^\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?$/.test(t)) throw new Untranslatable(`the local time "${text}"`);
    return { $time: t };
  },
  /** A time with an offset or a zone id (`10:00:00+01:00`, `10:00:00Z`, `10:00:00@Europe/Berlin`). */
  zonedTime(text) {
    const t = text.replace(/^T/, '');
    if (!/^\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?([+-]\d{2}:\d{2}(:\d{2})?|Z|@[A-Za-z0-9_/+-]+)$/.test(t)) {
      throw new Untranslatable(`the time "${text}"`);
    }
    return { $time: t };
  },
  localDateTime(text) {
    if (!/^-?\d{4,9}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?$/.test(text)) {
      throw new Untranslatable(`the local date-time "${text}"`);
    }
    return { $dateTime: text };
  },
  /**
   * A zoned date-time, in FEEL's form: an offset (`…+02:00`, `…Z`) or a zone id (`…@Europe/Berlin`). Java's
   * `…+02:00[Europe/Berlin]` becomes `…@Europe/Berlin` after checking the offset is the zone's at that time
   * (otherwise Java would have moved the local time, and the plain translation would be wrong).
   */
  zonedDateTime(text) {
    const java = /^(-?\d{4,9}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?)([+-]\d{2}:\d{2}|Z)\[([^\]]+)\]$/.exec(
      text,
    );
    if (java) {
      const [, local, offset, zone] = java;
      if (offset !== 'Z' && zoneOffsetAt(local, zone) !== offset) {
        throw new Untranslatable(`the date-time "${text}" (the offset is not the zone's at that time)`);
      }
      return { $dateTime: offset === 'Z' && zone === 'UTC' ? `${local}Z` : `${local}@${zone}` };
    }
    if (!/^-?\d{4,9}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?([+-]\d{2}:\d{2}|Z|@[A-Za-z0-9_/+-]+)$/.test(text)) {
      throw new Untranslatable(`the date-time "${text}"`);
    }
    return { $dateTime: text };
  },
  dayTimeDuration(text) {
    text = negatedParts(text);
    if (!/^-?P(\d+D)?(T(\d+H)?(\d+M)?(\d+(\.\d+)?S)?)?$/.test(text) || /^-?PT?$/.test(text) || text.endsWith('T')) {
      throw new Untranslatable(`the day-time duration "${text}"`);
    }
    return { $duration: text };
  },
  yearMonthDuration(text) {
    text = negatedParts(text);
    if (!/^-?P(\d+Y)?(\d+M)?$/.test(text) || /^-?P$/.test(text)) {
      throw new Untranslatable(`the year-month duration "${text}" (java.time.Period with days or signed parts)`);
    }
    return { $yearMonthDuration: text };
  },
};

/**
 * java.time's per-part signs (`PT-5M`, `P-1Y-2M`) as one leading sign (`-PT5M`, `-P1Y2M`), the form FEEL
 * writes; a duration whose parts have different signs has no such form and is refused.
 */
function negatedParts(text) {
  if (!/^P.*-/.test(text)) return text;
  const parts = text.slice(1).match(/-?\d+(\.\d+)?[YMDHS]/g) ?? [];
  if (!parts.every((part) => part.startsWith('-'))) {
    throw new Untranslatable(`the duration "${text}" (parts with different signs)`);
  }
  return `-${text.replaceAll('-', '')}`;
}

/** The UTC offset (`+02:00`) of a zone at a local date-time, from the platform's time-zone data. */
function zoneOffsetAt(local, zone) {
  const [date, time] = local.split('T');
  const [y, mo, d] = date.split('-').map(Number);
  const [h, mi, s = 0] = time.split(':').map(Number);
  const guess = Date.UTC(y, mo - 1, d, h, mi, Math.trunc(s));
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: zone,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
  }).formatToParts(new Date(guess));
  const get = (type) => Number(parts.find((p) => p.type === type).value);
  const asUtc = Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second'));
  const minutes = Math.round((asUtc - guess) / 60000);
  const sign = minutes < 0 ? '-' : '+';
  const abs = Math.abs(minutes);
  return `${sign}${String(Math.trunc(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}

/** java.time factories and feel-scala's test helpers that take one string, by callee name. */
const TEMPORAL_PARSERS = {
  'LocalDate.parse': temporal.date,
  date: temporal.date,
  'LocalTime.parse': temporal.localTime,
  localTime: temporal.localTime,
  'OffsetTime.parse': temporal.zonedTime,
  'ZonedTime.parse': temporal.zonedTime,
  time: temporal.zonedTime,
  'LocalDateTime.parse': temporal.localDateTime,
  localDateTime: temporal.localDateTime,
  'ZonedDateTime.parse': temporal.zonedDateTime,
  'OffsetDateTime.parse': temporal.zonedDateTime,
  dateTime: temporal.zonedDateTime,
  'Duration.parse': temporal.dayTimeDuration,
  dayTimeDuration: temporal.dayTimeDuration,
  'Period.parse': temporal.yearMonthDuration,
  yearMonthDuration: temporal.yearMonthDuration,
};

/** feel-scala's Val wrappers whose argument is a temporal value (or a string converted by an implicit). */
const VAL_TEMPORALS = {
  ValDate: temporal.date,
  ValLocalTime: temporal.localTime,
  ValTime: temporal.zonedTime,
  ValLocalDateTime: temporal.localDateTime,
  ValDateTime: temporal.zonedDateTime,
  ValDayTimeDuration: temporal.dayTimeDuration,
  ValYearMonthDuration: temporal.yearMonthDuration,
};

const TAG_OF = {
  ValDate: '$date',
  ValLocalTime: '$time',
  ValTime: '$time',
  ValLocalDateTime: '$dateTime',
  ValDateTime: '$dateTime',
  ValDayTimeDuration: '$duration',
  ValYearMonthDuration: '$yearMonthDuration',
};

/** `ZonedDateTime.of(LocalDateTime.parse(s), ZoneOffset.ofHours(h) | ZoneId.of(z))` and the date+time form. */
function zonedDateTimeOf(args, scope) {
  const values = args.map((a) => a.value);
  let local;
  let zoneNode;
  if (values.length === 2) {
    local = scalaValue(values[0], scope).$dateTime;
    zoneNode = values[1];
  } else if (values.length === 3) {
    const date = scalaValue(values[0], scope).$date;
    const time = scalaValue(values[1], scope).$time;
    local = date && time ? `${date}T${time}` : undefined;
    zoneNode = values[2];
  }
  if (!local || zoneNode?.t !== 'app') throw new Untranslatable('a ZonedDateTime.of(…) form');
  const zoneFn = calleeName(zoneNode.fn);
  const zoneArg = zoneNode.args[0]?.value;
  if (zoneFn === 'ZoneId.of') return temporal.zonedDateTime(`${local}@${scalaString(zoneArg, scope)}`);
  if (zoneFn === 'ZoneOffset.ofHours') {
    const hours = Number(scalaNumber(zoneArg, scope).$number);
    const sign = hours < 0 ? '-' : '+';
    return temporal.zonedDateTime(`${local}${sign}${String(Math.abs(hours)).padStart(2, '0')}:00`);
  }
  if (zoneFn === 'ZoneOffset.of') return temporal.zonedDateTime(local + scalaString(zoneArg, scope));
  throw new Untranslatable(`the zone ${describe(zoneNode)}`);
}

/**
 * `Period.ofYears(y)`, `Period.ofMonths(m)`, `Period.of(y, m, 0)` and `.withMonths(m)` / `.withYears(y)` chains,
 * as a year-month duration; undefined when the node is not such a chain.
 */
function periodOf(node, scope) {
  const name = calleeName(node.fn);
  const num = (arg) => Number(scalaNumber(arg.value, scope).$number);
  let years;
  let months;
  if (name === 'Period.ofYears') [years, months] = [num(node.args[0]), 0];
  else if (name === 'Period.ofMonths') [years, months] = [0, num(node.args[0])];
  else if (name === 'Period.of') {
    if (num(node.args[2]) !== 0) throw new Untranslatable('a Period with days');
    [years, months] = [num(node.args[0]), num(node.args[1])];
  } else if (node.fn.t === 'sel' && ['withMonths', 'withYears'].includes(node.fn.name) && node.fn.obj.t === 'app') {
    const base = periodOf(node.fn.obj, scope);
    if (!base) return undefined;
    const match = /^(-?)P(?:(\d+)Y)?(?:(\d+)M)?$/.exec(base.$yearMonthDuration);
    const sign = match[1] ? -1 : 1;
    [years, months] = [sign * Number(match[2] ?? 0), sign * Number(match[3] ?? 0)];
    if (node.fn.name === 'withMonths') months = num(node.args[0]);
    else years = num(node.args[0]);
  } else return undefined;
  if (years * months < 0) throw new Untranslatable('a Period with parts of different signs');
  const sign = years < 0 || months < 0 ? '-' : '';
  const y = Math.abs(years);
  const m = Math.abs(months);
  return temporal.yearMonthDuration(`${sign}P${y ? `${y}Y` : ''}${m || !y ? `${m}M` : ''}`);
}

/** `Map(k -> v, …)` / `Map((k, v), …)` entries as `[key, node]` pairs. */
function mapEntries(args) {
  return args.map(({ value }) => {
    if (value.t === 'infix' && value.op === '->') return [value.l, value.r];
    if (value.t === 'tuple' && value.items.length === 2) return [value.items[0], value.items[1]];
    throw new Untranslatable(`a Map entry written as ${describe(value)}`);
  });
}

/**
 * The entries of a Map-valued expression (`Map(…)`, `Map.empty`, a val holding one) as `[key, node, scope]`.
 * @returns {Array<[string, object, Scope]>}
 */
export function scalaMapEntries(node, scope) {
  const resolved = resolve(node, scope);
  if ('value' in resolved) throw new Untranslatable('a Map was expected');
  const { node: n, scope: s } = resolved;
  const name = n.t === 'app' ? calleeName(n.fn) : calleeName(n);
  if (n.t !== 'app' && (name === 'Map.empty' || name === 'Map')) return [];
  if (n.t === 'app' && name === 'Map') return mapEntries(n.args).map(([k, v]) => [scalaString(k, s), v, s]);
  if (n.t === 'app' && name === 'Map.empty') return [];
  throw new Untranslatable(`a Map computed in Scala (${describe(n)})`);
}

/**
 * A Scala value expression as tagged JSON. Accepts plain Scala/Java values (what feel-scala's API returns and its
 * value mapper takes) and feel-scala's `Val*` constructors (what its interpreter returns).
 */
export function scalaValue(node, scope) {
  const resolved = resolve(node, scope);
  if ('value' in resolved) return resolved.value;
  const { node: n, scope: s } = resolved;
  switch (n.t) {
    case 'str':
      return n.v;
    case 'bool':
      return n.v;
    case 'null':
      return null;
    case 'num':
    case 'prefix':
      return scalaNumber(n, s);
    case 'char':
      throw new Untranslatable('a Scala Char value');
    case 'interp':
    case 'infix':
      if (n.t === 'infix' && n.op !== '+') throw new Untranslatable(`a value computed in Scala (… ${n.op} …)`);
      return scalaString(n, s);
    case 'ascribe':
      if (/^(Int|Long|Double|BigDecimal|Any|String)$/.test(n.type.trim())) return scalaValue(n.e, s);
      throw new Untranslatable(`a value ascribed as ${n.type}`);
    case 'new':
      throw new Untranslatable(`a Java/Scala object (new ${n.cls}) that needs feel-scala's value mapper`);
    case 'id':
      if (n.name === 'ValNull' || n.name === 'None') {
        if (n.name === 'None') throw new Untranslatable('a Scala Option');
        return null;
      }
      if (EMPTY_SEQUENCES.has(n.name)) return [];
      throw new Untranslatable(`the Scala name ${n.name} (not a value the script knows)`);
    case 'sel':
    case 'tapp': {
      const name = calleeName(n);
      if (EMPTY_SEQUENCES.has(name)) return [];
      if (name === 'Map.empty') return { $context: [] };
      throw new Untranslatable(`the Scala expression ${describe(n)}`);
    }
    case 'app':
      return scalaCall(n, s);
    default:
      throw new Untranslatable(`the Scala construct ${describe(n)}`);
  }
}

function scalaCall(n, s) {
  const name = calleeName(n.fn);
  const args = n.args;
  if (name && SEQUENCES.has(name)) return args.map((a) => scalaValue(a.value, s));
  if (name && EMPTY_SEQUENCES.has(name)) return [];
  if (name === 'Map') return { $context: mapEntries(args).map(([k, v]) => [scalaString(k, s), scalaValue(v, s)]) };
  if (name === 'BigDecimal') return scalaNumber(n, s);
  if (name && name in TEMPORAL_PARSERS && args.length === 1) {
    return TEMPORAL_PARSERS[name](scalaString(args[0].value, s));
  }
  if (name === 'ZonedDateTime.of') return zonedDateTimeOf(args, s);
  const period = periodOf(n, s);
  if (period) return period;
  if (name === 'ValNumber') return scalaNumber(args[0].value, s);
  if (name === 'ValString') return scalaString(args[0].value, s);
  if (name === 'ValBoolean') {
    const v = scalaValue(args[0].value, s);
    if (typeof v !== 'boolean') throw new Untranslatable('ValBoolean of a non-literal');
    return v;
  }
  if (name && name in VAL_TEMPORALS) {
    const arg = args[0].value;
    const inner = resolve(arg, s);
    // A string argument goes through feel-scala's implicit string-to-temporal conversion.
    if (!('value' in inner) && inner.node.t === 'str') return VAL_TEMPORALS[name](inner.node.v);
    const v = scalaValue(arg, s);
    const tag = TAG_OF[name];
    if (!v || typeof v !== 'object' || !(tag in v)) throw new Untranslatable(`${name} of ${describe(arg)}`);
    return VAL_TEMPORALS[name](v[tag]);
  }
  if (name === 'ValList') {
    const v = scalaValue(args[0].value, s);
    if (!Array.isArray(v)) throw new Untranslatable('ValList of a non-sequence');
    return v;
  }
  if (name === 'ValContext') {
    const ctx = args[0].value;
    if (ctx.t === 'app' && ['Context.StaticContext', 'StaticContext'].includes(calleeName(ctx.fn))) {
      const [variables, ...rest] = ctx.args;
      if (rest.length > 0) throw new Untranslatable('a StaticContext with functions');
      return { $context: scalaMapEntries(variables.value, s).map(([k, v, vs]) => [k, scalaValue(v, vs)]) };
    }
    throw new Untranslatable(`a ValContext of ${describe(ctx)} (a custom context implementation)`);
  }
  if (name === 'Some') throw new Untranslatable('a Scala Option');
  if (name?.startsWith('java.')) throw new Untranslatable(`the Java value ${name}(…) (needs the value mapper)`);
  throw new Untranslatable(`the Scala call ${describe(n)}`);
}
