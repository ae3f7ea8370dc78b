// Writes the README's tables of the tools' arguments (both profiles) from their schemas (the built package):
// `npm run docs`. test/readme.test.ts fails when the table in the README is not this one.
import { readFile, writeFile } from 'node:fs/promises';
import { allTools, argumentTable, replaceArgumentTable, upstreamTools } from '../dist/index.js';

const readme = new URL('../README.md', import.meta.url);
const text = await readFile(readme, 'utf8');
const updated = replaceArgumentTable(
  replaceArgumentTable(text, argumentTable(Object.values(allTools))),
  argumentTable(Object.values(upstreamTools)),
  'upstream tool arguments',
);
if (updated !== text) await writeFile(readme, updated);
console.log(
  updated === text
    ? 'README.md: the table of tool arguments is up to date'
    : 'README.md: table of tool arguments written',
);
