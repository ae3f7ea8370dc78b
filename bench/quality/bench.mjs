#!/usr/bin/env node
// Throughput of @longhaul/metrics against the floor (parsing the same files) and against the tools
// people use for two of its parts: mccabe (cyclomatic complexity, one Python process over all files)
// and jscpd (clones). Build first: `npx turbo run build --filter=@longhaul/metrics`, then
// `node bench/quality/bench.mjs [--runs N] [--python DIR] [--scripts DIR] [--no-jscpd]`. Times are CPU time of this process (ast-grep's worker
// threads included) and wall time; on a busy machine, trust CPU time.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { parse } from '@ast-grep/napi';
import { analyzeProject, languageOfPath, readSourceTree, registerGrammars } from '@longhaul/metrics';
import { pythonTree, runMccabe, scriptTree } from './common.mjs';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    'no-jscpd': { type: 'boolean' },
    python: { type: 'string', default: pythonTree },
    scripts: { type: 'string', default: scriptTree },
  },
});
const runs = Number(values.runs);

async function measure(work) {
  let best = { cpuMs: Number.POSITIVE_INFINITY, wallMs: Number.POSITIVE_INFINITY };
  let result;
  for (let i = 0; i < runs; i++) {
    const cpu = process.cpuUsage();
    const started = performance.now();
    result = await work();
    const wallMs = performance.now() - started;
    const used = process.cpuUsage(cpu);
    best = {
      cpuMs: Math.min(best.cpuMs, (used.user + used.system) / 1000),
      wallMs: Math.min(best.wallMs, wallMs),
    };
  }
  return { ...best, result };
}

const rate = (lines, ms) => `${Math.round(lines / (ms / 1000)).toLocaleString('en-US')} lines/s`;
const fmt = (ms) => `${(ms / 1000).toFixed(2)} s`;

/** jscpd over the tree (fetched once by npx, then timed with /usr/bin/time for its CPU time). */
function jscpd(root, formats) {
  const out = mkdtempSync(join(tmpdir(), 'jscpd-'));
  spawnSync('npx', ['--yes', 'jscpd@4.0.5', '--version'], { encoding: 'utf8' });
  // Without the size limits jscpd skips large files (over 1000 lines or 100 kB by default).
  const args = ['-f', '%e %U %S', 'npx', '--yes', 'jscpd@4.0.5', root, '--silent', '--min-lines', '3'];
  args.push('--max-lines', '10000000', '--max-size', '1gb');
  args.push('--format', formats, '--reporters', 'json', '--output', out, '--ignore', '**/*.d.ts');
  const result = spawnSync('/usr/bin/time', args, { encoding: 'utf8', maxBuffer: 1 << 28 });
  rmSync(out, { recursive: true, force: true });
  const [wall, user, system] = result.stderr.trim().split('\n').pop().split(' ').map(Number);
  if (result.status !== 0) return `failed: ${result.stderr.slice(0, 300)}`;
  return { wallMs: wall * 1000, cpuMs: (user + system) * 1000 };
}

registerGrammars();
for (const [label, root, formats] of [
  ['Python', values.python, 'python'],
  ['TypeScript/JavaScript', values.scripts, 'javascript,typescript'],
]) {
  const sources = await readSourceTree(root);
  const lines = sources.reduce((total, file) => total + file.text.split('\n').length, 0);
  const parseOnly = await measure(() => {
    for (const file of sources) parse(languageOfPath(file.path).lang, file.text).root();
  });
  const full = await measure(() => analyzeProject(sources));
  const noRules = await measure(() => analyzeProject(sources, { rules: false }));
  const summary = full.result.summary;
  console.log(`\n${label}: ${root}`);
  console.log(
    `  ${sources.length} files, ${lines.toLocaleString('en-US')} lines, ${summary.loc.toLocaleString('en-US')} LOC, ${summary.callables} callables, best of ${runs}`,
  );
  console.log(
    `  parse only (floor)      cpu ${fmt(parseOnly.cpuMs)}  wall ${fmt(parseOnly.wallMs)}  ${rate(lines, parseOnly.cpuMs)} (cpu)`,
  );
  console.log(
    `  full metrics            cpu ${fmt(full.cpuMs)}  wall ${fmt(full.wallMs)}  ${rate(lines, full.cpuMs)} (cpu)  ${(full.cpuMs / parseOnly.cpuMs).toFixed(1)}× floor`,
  );
  console.log(
    `  metrics without rules   cpu ${fmt(noRules.cpuMs)}  wall ${fmt(noRules.wallMs)}  ${rate(lines, noRules.cpuMs)} (cpu)  ${(noRules.cpuMs / parseOnly.cpuMs).toFixed(1)}× floor`,
  );
  if (label === 'Python') {
    const mccabe = runMccabe(sources.map((file) => file.file));
    console.log(
      `  mccabe (one process)    cpu ${fmt(mccabe.cpuMs)}  wall ${fmt(mccabe.analysisMs)}  ${rate(lines, mccabe.cpuMs)} (cpu)`,
    );
  }
  if (!values['no-jscpd']) {
    const time = jscpd(root, formats);
    console.log(
      `  jscpd 4.0.5 (clones)    ${typeof time === 'string' ? time : `cpu ${fmt(time.cpuMs)}  wall ${fmt(time.wallMs)}  ${rate(lines, time.cpuMs)} (cpu)`}`,
    );
  }
}
