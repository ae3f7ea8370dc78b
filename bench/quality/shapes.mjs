#!/usr/bin/env node
// What files an agent could write cost the metrics: long chains and deep nesting, each measured
// in a fresh process (CPU time of `analyzeProject` with the rule pack). A shape whose time grows
// with the square of its size shows as a ratio near 4 between its two sizes. Build first:
// `npx turbo run build --filter=@longhaul/metrics`, then `node bench/quality/shapes.mjs [--scale K]`.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { analyzeProject, readSourceTree, registerGrammars } from '@longhaul/metrics';

const { values } = parseArgs({
  options: {
    scale: { type: 'string', default: '1' },
    // Internal: measure one directory in this process and print its CPU time in ms.
    measure: { type: 'string' },
  },
});

if (values.measure) {
  registerGrammars();
  const sources = await readSourceTree(values.measure);
  const cpu = process.cpuUsage();
  await analyzeProject(sources);
  const used = process.cpuUsage(cpu);
  process.stdout.write(`${(used.user + used.system) / 1000}\n`);
  process.exit(0);
}

const repeat = (n, make) => Array.from({ length: n }, (_, i) => make(i)).join('');

/** Each shape: a file name and its text for a size n. */
const shapes = {
  'Python: a and a and …': ['a.py', (n) => `x = ${Array(n).fill('a').join(' and ')}\n`],
  'TypeScript: a && a && …': ['a.ts', (n) => `const x = ${Array(n).fill('a').join(' && ')};\n`],
  'TypeScript: a === b && … (comparisons)': [
    'a.ts',
    (n) => `const x = ${repeat(n, (i) => `${i ? ' && ' : ''}v${i} === true`)};\n`,
  ],
  'Python: f-strings nested': ['a.py', (n) => `x = ${'f"{'.repeat(n)}y${'}"'.repeat(n)}\n`],
  'Python: a + a + …': ['a.py', (n) => `x = ${Array(n).fill('a').join(' + ')}\n`],
  'Python: nested calls f(f(…))': ['a.py', (n) => `x = ${'f('.repeat(n)}a${')'.repeat(n)}\n`],
  'Python: adjacent strings': ['a.py', (n) => `x = ${Array(n).fill('"a"').join(' ')}\n`],
  'Python: statements in one function': [
    'a.py',
    (n) => `def f():\n${repeat(n, (i) => `    x${i} = g(${i})\n`)}    return x1\n`,
  ],
  'Python: if statements in one function': [
    'a.py',
    (n) => `def f(a):\n${repeat(n, (i) => `    if a == ${i}:\n        return ${i}\n`)}    return a\n`,
  ],
  'Python: nested if (n / 20)': [
    'a.py',
    (n) => `${repeat(n / 20, (i) => `${' '.repeat(i)}if x:\n`)}${' '.repeat(n / 20)}pass\n`,
  ],
};

const base = 10_000 * Number(values.scale);
const script = fileURLToPath(import.meta.url);
console.log(`CPU time of analyzeProject over one file, at n = ${base} and ${2 * base}:`);
for (const [name, [file, make]] of Object.entries(shapes)) {
  const times = [base, 2 * base].map((n) => {
    const dir = mkdtempSync(join(tmpdir(), 'longhaul-shape-'));
    try {
      writeFileSync(join(dir, file), make(n));
      const run = spawnSync(process.execPath, [script, '--measure', dir], { encoding: 'utf8' });
      if (run.status !== 0) return { failed: run.stderr.trim().split('\n').slice(-1)[0] };
      return { ms: Number(run.stdout.trim()) };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
  const text = times.map((t) => (t.failed ? `failed: ${t.failed}` : `${(t.ms / 1000).toFixed(2)} s`));
  const ratio = times.every((t) => t.ms) ? `  ×${(times[1].ms / times[0].ms).toFixed(1)}` : '';
  console.log(`  ${name.padEnd(42)}${text.join('  ')}${ratio}`);
}
