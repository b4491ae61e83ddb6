// Medians and ratios over repeated runs.

/** The median of a list of numbers (the mean of the two middle ones for an even count); null when empty. */
export function median(values) {
  const sorted = values.filter((v) => typeof v === 'number' && Number.isFinite(v)).sort((a, b) => a - b);
  if (sorted.length === 0) return null;
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** Per field, the median over a list of result objects (numeric fields only); other fields from the first. */
export function medianOf(results) {
  if (results.length === 0) return {};
  const out = { ...results[0] };
  for (const key of Object.keys(results[0])) {
    if (typeof results[0][key] === 'number') out[key] = median(results.map((r) => r[key]));
  }
  out.runs = results.length;
  return out;
}

/** a / b, or null when either is missing or b is 0. */
export function ratio(a, b) {
  if (typeof a !== 'number' || typeof b !== 'number' || b === 0) return null;
  return a / b;
}

/** Run `fn` `count` times and return the median time of one call, in ms. */
export async function medianTime(count, fn) {
  const times = [];
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    await fn(i);
    times.push(performance.now() - started);
  }
  return median(times);
}

/** The value at quantile `q` (0…1) of `values`, nearest rank. */
export function percentile(values, q) {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}
