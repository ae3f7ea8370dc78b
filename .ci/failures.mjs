#!/usr/bin/env node
// Prints, from a saved `npm test` log, each failing package's "Failed Tests" section, so the end of
// CI's output names what failed and why even when only its last lines are kept.
// Usage: node .ci/failures.mjs LOG
import { readFileSync } from 'node:fs';
import { stripVTControlCharacters } from 'node:util';

const lines = stripVTControlCharacters(readFileSync(process.argv[2], 'utf8')).split('\n');
const byTask = new Map();
for (const line of lines) {
  const match = /^(@[\w-]+\/[\w-]+:test): ?(.*)$/.exec(line);
  if (!match) continue;
  if (!byTask.has(match[1])) byTask.set(match[1], []);
  byTask.get(match[1]).push(match[2]);
}

const perTask = 80;
for (const [task, output] of byTask) {
  const start = output.findIndex((line) => line.includes('Failed Tests') || line.includes('Unhandled Error'));
  const failedFiles = output.filter((line) => /^\s*FAIL\s/.test(line));
  if (start < 0 && failedFiles.length === 0 && !output.some((line) => /ERR!|exited \(\d+\)/.test(line)))
    continue;
  console.log(`\n==== ${task}`);
  const section = start >= 0 ? output.slice(start) : output.slice(-perTask);
  const shown = section.filter((line) => line.trim() !== '').slice(0, perTask);
  console.log(shown.join('\n'));
  if (section.length > shown.length) console.log(`… ${section.length - shown.length} more lines`);
}
