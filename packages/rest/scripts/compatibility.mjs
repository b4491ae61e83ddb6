#!/usr/bin/env node
// Writes the compatibility table into docs/camunda-api.md (between its markers) from the built package:
//   pnpm run build && node packages/rest/scripts/compatibility.mjs
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compatibilityTable } from '../dist/compatibility-table.js';

const file = join(dirname(fileURLToPath(import.meta.url)), '../../../docs/camunda-api.md');
const doc = readFileSync(file, 'utf8');
const start = '<!-- compatibility:start -->\n';
const end = '\n<!-- compatibility:end -->';
const from = doc.indexOf(start);
const to = doc.indexOf(end);
if (from < 0 || to < from) throw new Error(`${file} has no compatibility markers`);
writeFileSync(file, `${doc.slice(0, from + start.length)}${compatibilityTable()}${doc.slice(to)}`);
