// Turning scenario rows into the printed table (Markdown, so it pastes into a README) and the JSON document.

/** A value with its unit, for people. */
export function formatValue(figure) {
  if (!figure) return '—';
  if (figure.text !== undefined) return figure.text;
  const { value, unit } = figure;
  if (value === null || value === undefined || Number.isNaN(value)) return '—';
  switch (unit) {
    case '/s':
      return `${group(value)}/s`;
    case 'ms':
      return `${significant(value)} ms`;
    case 'bytes':
      return bytes(value);
    default:
      return `${significant(value)}${unit ? ` ${unit}` : ''}`;
  }
}

function group(value) {
  return Math.round(value).toLocaleString('en-US');
}

/** Three significant digits, grouped: 0.0123, 1.23, 12.3, 123, 1,234. */
function significant(value) {
  if (value === 0) return '0';
  const abs = Math.abs(value);
  if (abs >= 100) return group(value);
  const digits = abs >= 10 ? 1 : abs >= 1 ? 2 : Math.min(6, 2 - Math.floor(Math.log10(abs)));
  return value.toFixed(digits);
}

function bytes(value) {
  if (value < 1024) return `${Math.round(value)} B`;
  if (value < 1024 * 1024) return `${significant(value / 1024)} KiB`;
  return `${significant(value / (1024 * 1024))} MiB`;
}

export function formatRatio(ratio) {
  if (ratio === null || ratio === undefined || !Number.isFinite(ratio)) return '—';
  return `${significant(ratio)}×`;
}

/** Judge each row against its target: status MET, MISSED, or — (no target / nothing to compare). */
export function judge(row) {
  if (row.status) return row.status;
  if (!row.target) return '—';
  const subject = row.target.on === 'thresher' ? row.thresher?.value : row.ratio;
  if (subject === null || subject === undefined || !Number.isFinite(subject)) return '—';
  return row.target.holds(subject) ? 'MET' : 'MISSED';
}

/** Rows as plain data (targets as text, verdicts filled in). */
export function toPlainRows(rows) {
  return rows.map((row, index) => ({
    n: index + 1,
    scenario: row.scenario,
    measure: row.measure,
    thresher: plainFigure(row.thresher),
    peer: row.peer ? { ...plainFigure(row.peer), what: row.peer.what ?? null } : null,
    ratio: row.ratio ?? null,
    target: row.target?.text ?? null,
    status: judge(row),
    note: row.note ?? null,
  }));
}

function plainFigure(figure) {
  if (!figure) return null;
  return {
    value: figure.value ?? null,
    unit: figure.unit ?? null,
    text: formatValue(figure),
  };
}

const escapeCell = (text) => String(text).replaceAll('|', '\\|').replaceAll('\n', ' ');

/** The Markdown table of plain rows. */
export function markdownTable(plainRows) {
  const header = ['#', 'scenario', 'measure', 'Thresher', 'peer or limit (same run)', 'ratio', 'target', 'status'];
  const lines = [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`];
  for (const row of plainRows) {
    const peer = row.peer ? (row.peer.what ? `${row.peer.text} (${row.peer.what})` : row.peer.text) : '—';
    const cells = [
      row.n,
      row.scenario,
      row.measure,
      row.thresher?.text ?? '—',
      peer,
      formatRatio(row.ratio),
      row.target ?? '—',
      row.status === 'MET' || row.status === 'MISSED' ? `**${row.status}**` : row.status,
    ];
    lines.push(`| ${cells.map(escapeCell).join(' | ')} |`);
  }
  return lines.join('\n');
}

/** Notes under the table, numbered by row. */
export function markdownNotes(plainRows) {
  return plainRows
    .filter((row) => row.note)
    .map((row) => `- (${row.n}) ${row.note}`)
    .join('\n');
}

export function describeMachineLine(machine) {
  return `${machine.cpu}, ${machine.cores} cores, ${machine.ramGiB} GiB RAM, Node ${machine.node}, ${machine.os} (${machine.arch}); scratch files: ${machine.scratch}`;
}
