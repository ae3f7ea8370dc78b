#!/usr/bin/env node
// Instructions executed by each case of bench.mjs, counted by valgrind (callgrind) over a sample
// of the tree: a figure a busy machine does not move, for comparing two builds where CPU time is
// too noisy. `node bench/quality/instructions.mjs [--every N] [--root DIR] [CASE...]` with CASE
// one of floor, noRules, full, or rules:KIND (the metrics with only the Python rules of node kind
// KIND). Needs valgrind (`apt-get install -y valgrind`); each case takes a minute or two.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { analyzeProject, readSourceTree, registerGrammars, rulePack } from '@longhaul/metrics';
import { parseOnDisk, pythonTree } from './common.mjs';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    every: { type: 'string', default: '10' },
    root: { type: 'string', default: pythonTree },
    // Internal: run one case in this process.
    case: { type: 'string' },
  },
});

function rulesOfKind(kind) {
  const ids = rulePack
    .filter((rule) => rule.family === 'python' && rule.rule.kind === kind)
    .map((rule) => rule.id);
  if (ids.length === 0) throw new Error(`no Python rule has node kind ${kind}`);
  return ids;
}

if (values.case) {
  registerGrammars();
  const every = Number(values.every);
  const sources = (await readSourceTree(values.root)).filter((_, index) => index % every === 0);
  const name = values.case;
  if (name === 'floor') await parseOnDisk(sources);
  else if (name === 'noRules') await analyzeProject(sources, { rules: false });
  else if (name === 'full') await analyzeProject(sources);
  else if (name.startsWith('rules:'))
    await analyzeProject(sources, { onlyRules: rulesOfKind(name.slice(6)) });
  else if (name !== 'read') throw new Error(`unknown case ${name}`);
  // Free the trees inside the case, as bench.mjs does.
  globalThis.gc();
  await new Promise((resolve) => setImmediate(resolve));
  process.stdout.write(`${sources.length}\n`);
  process.exit(0);
}

/** Instructions of one case: all of them, and those inside ast-grep (its binding and grammars). */
function count(name) {
  const dir = mkdtempSync(join(tmpdir(), 'longhaul-instructions-'));
  const out = join(dir, 'callgrind.out');
  try {
    const script = fileURLToPath(import.meta.url);
    const run = spawnSync(
      'valgrind',
      [
        '--tool=callgrind',
        `--callgrind-out-file=${out}`,
        '--smc-check=all-non-file',
        process.execPath,
        // V8 compiles and collects on the main thread: its counts then vary by well under 1%.
        '--single-threaded',
        '--expose-gc',
        script,
        '--case',
        name,
        '--every',
        values.every,
        '--root',
        values.root,
      ],
      { encoding: 'utf8', maxBuffer: 1 << 26 },
    );
    if (run.error)
      throw new Error(`valgrind did not start (${run.error.message}): apt-get install -y valgrind`);
    if (run.status !== 0) throw new Error(`case ${name} failed: ${run.stderr.slice(-2000)}`);
    const files = Number(run.stdout.trim());
    const annotated = spawnSync('callgrind_annotate', ['--threshold=100', out], {
      encoding: 'utf8',
      maxBuffer: 1 << 28,
    }).stdout;
    let total = 0;
    let astGrep = 0;
    for (const line of annotated.split('\n')) {
      const match = /^\s*([\d,]+) \(\s*[\d.]+%\)\s+(.*)$/.exec(line);
      if (!match) continue;
      const value = Number(match[1].replaceAll(',', ''));
      if (match[2].startsWith('PROGRAM TOTALS')) total = value;
      else if (match[2].includes('@ast-grep')) astGrep += value;
    }
    return { files, total, astGrep };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const cases = positionals.length ? positionals : ['floor', 'noRules', 'full'];
// What starting node, loading the modules and reading the tree cost is left out of every case.
const base = count('read');
const floor = cases.includes('floor') ? count('floor') : undefined;
const millions = (value) => `${(value / 1e6).toFixed(1).padStart(8)} M`;
process.stdout.write(
  `${values.root}, every ${values.every}th file (${base.files} files); instructions beyond reading the tree, all of them and (in brackets) those inside ast-grep:\n`,
);
for (const name of cases) {
  const figures = name === 'floor' ? floor : count(name);
  const all = figures.total - base.total;
  const astGrep = figures.astGrep - base.astGrep;
  const ratio = floor ? `  ${(all / (floor.total - base.total)).toFixed(2)}× floor` : '';
  process.stdout.write(`  ${name.padEnd(28)}${millions(all)} (${millions(astGrep).trim()})${ratio}\n`);
}
