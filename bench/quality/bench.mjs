#!/usr/bin/env node
// Throughput of @longhaul/metrics against the floor (parsing the same files the same way) and
// against the tools people use for two of its parts: mccabe (cyclomatic complexity, one Python
// process over all files) and jscpd (clones). Build first:
// `npx turbo run build --filter=@longhaul/metrics`, then
// `node bench/quality/bench.mjs [--runs N] [--python DIR] [--scripts DIR] [--python-only] [--no-jscpd]`.
// Every measurement is one fresh process that runs one case once (runs are interleaved across the
// cases, so a change in the machine's load hits them alike); the figures are the median CPU time
// of that process (ast-grep's threads and the final freeing of the trees included) with the
// spread of the runs. On a busy machine, trust CPU time, never wall time.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { parse } from '@ast-grep/napi';
import { analyzeProject, languageOfPath, readSourceTree, registerGrammars } from '@longhaul/metrics';
import { matchOnDisk, parseOnDisk, pythonTree, runMccabe, scriptTree } from './common.mjs';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '5' },
    'no-jscpd': { type: 'boolean' },
    'python-only': { type: 'boolean' },
    python: { type: 'string', default: pythonTree },
    scripts: { type: 'string', default: scriptTree },
    // Internal: run one case over one tree in this process and print its figures as JSON.
    case: { type: 'string' },
    root: { type: 'string' },
  },
});
const runs = Number(values.runs);

/**
 * Times one run of `work`, until the trees it made are freed: ast-grep frees a tree when the
 * garbage collector finalizes its last handle, so a full collection (and the turn of the event
 * loop that runs the finalizers) is part of every case, the floor included.
 */
async function measure(work) {
  const threadsBefore = threadTimes();
  const cpu = process.cpuUsage();
  const started = performance.now();
  const result = await work();
  globalThis.gc();
  await new Promise((resolve) => setImmediate(resolve));
  const wallMs = performance.now() - started;
  const used = process.cpuUsage(cpu);
  const cpuMs = (used.user + used.system) / 1000;
  return { cpuMs, wallMs, threads: byThread(threadsBefore, threadTimes(), cpuMs), result };
}

/** CPU time in ms of each thread of this process, by thread id (Linux; empty elsewhere). */
function threadTimes() {
  const times = new Map();
  let tasks = [];
  try {
    tasks = readdirSync('/proc/self/task');
  } catch {
    return times;
  }
  for (const task of tasks) {
    try {
      const stat = readFileSync(`/proc/self/task/${task}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // utime and stime, in ticks of 10 ms (Linux's USER_HZ is 100).
      times.set(task, (Number(fields[11]) + Number(fields[12])) * 10);
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return times;
}

/**
 * A case's CPU time by thread: the main thread; the threads that were there before it, V8's
 * (its compiler and collector) and libuv's; and the rest, threads the case started, ended or not:
 * ast-grep's, which parse and match.
 */
function byThread(before, after, cpuMs) {
  if (!before.size) return undefined;
  const main = String(process.pid);
  const spent = (task) => (after.get(task) ?? before.get(task)) - before.get(task);
  let helpers = 0;
  for (const task of before.keys()) if (task !== main) helpers += spent(task);
  return { main: spent(main), helpers, astGrep: Math.max(0, cpuMs - spent(main) - helpers) };
}

/** Two files changed as an agent's step might: a function appended to each of two modules. */
function changeTwoFiles(sources) {
  const picked = new Set(
    [...sources]
      .sort((a, b) => a.path.localeCompare(b.path))
      .filter((file) => file.text.length > 2000)
      .slice(0, 2)
      .map((file) => file.path),
  );
  const added = '\n\ndef _bench_added(value):\n    if value:\n        return value + 1\n    return 0\n';
  return sources.map((file) => (picked.has(file.path) ? { ...file, text: file.text + added } : file));
}

/** The cases, each measured in a child process of its own (see `runCase`). */
const cases = {
  baseline: async () => measure(() => undefined),
  parse: async (sources) => measure(() => parseOnDisk(sources)),
  parseMain: async (sources) =>
    measure(() => {
      for (const file of sources) parse(languageOfPath(file.path).lang, file.text).root();
    }),
  match: async (sources) => measure(() => matchOnDisk(sources)),
  full: async (sources) => measure(() => analyzeProject(sources)),
  noRules: async (sources) => measure(() => analyzeProject(sources, { rules: false })),
  incremental: async (sources) => {
    const before = await analyzeProject(sources);
    const changed = changeTwoFiles(sources);
    const run = await measure(() => analyzeProject(changed, {}, sources, before.results));
    return { ...run, measured: run.result.measured };
  },
};

if (values.case) {
  registerGrammars();
  const sources = await readSourceTree(values.root);
  const lines = sources.reduce((total, file) => total + file.text.split('\n').length, 0);
  const { result, ...figures } = await cases[values.case](sources);
  const summary = result?.summary;
  process.stdout.write(
    `${JSON.stringify({ ...figures, files: sources.length, lines, loc: summary?.loc, callables: summary?.callables, peakRssMb: process.resourceUsage().maxRSS / 1024 })}\n`,
  );
  process.exit(0);
}

function runCase(name, root) {
  const script = fileURLToPath(import.meta.url);
  const child = spawnSync(process.execPath, ['--expose-gc', script, '--case', name, '--root', root], {
    encoding: 'utf8',
    maxBuffer: 1 << 26,
  });
  if (child.status !== 0) throw new Error(`bench case ${name} on ${root} failed: ${child.stderr}`);
  return JSON.parse(child.stdout.trim().split('\n').pop());
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

/** Runs every case `runs` times, one fresh process each, interleaved; returns figures per case. */
function runCases(names, root) {
  const samples = Object.fromEntries(names.map((name) => [name, []]));
  for (let run = 0; run < runs; run++) for (const name of names) samples[name].push(runCase(name, root));
  return Object.fromEntries(
    names.map((name) => {
      const list = samples[name];
      const cpu = list.map((sample) => sample.cpuMs);
      return [
        name,
        {
          ...list[0],
          cpuMs: median(cpu),
          cpuSamples: cpu,
          cpuMinMs: Math.min(...cpu),
          cpuMaxMs: Math.max(...cpu),
          wallMs: median(list.map((sample) => sample.wallMs)),
          peakRssMb: Math.max(...list.map((sample) => sample.peakRssMb)),
          threads: list[0].threads && {
            main: median(list.map((sample) => sample.threads.main)),
            helpers: median(list.map((sample) => sample.threads.helpers)),
            astGrep: median(list.map((sample) => sample.threads.astGrep)),
          },
        },
      ];
    }),
  );
}

const rate = (lines, ms) => `${Math.round(lines / (ms / 1000)).toLocaleString('en-US')} lines/s`;
const fmt = (ms) => `${(ms / 1000).toFixed(2)} s`;
const mb = (figures) => `peak ${Math.round(figures.peakRssMb)} MB`;
const spread = (figures) => `(${fmt(figures.cpuMinMs)}–${fmt(figures.cpuMaxMs)})`;

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

for (const [label, root, formats] of [
  ['Python', values.python, 'python'],
  ['TypeScript/JavaScript', values.scripts, 'javascript,typescript'],
]) {
  if (values['python-only'] && label !== 'Python') continue;
  const load = loadavg()[0];
  const figures = runCases(
    ['baseline', 'parse', 'parseMain', 'match', 'full', 'noRules', 'incremental'],
    root,
  );
  const { baseline, parse: parseOnly, parseMain, match, full, noRules, incremental } = figures;
  const { lines } = full;
  const row = (name, figures) =>
    console.log(
      `  ${name.padEnd(30)}cpu ${fmt(figures.cpuMs)} ${spread(figures)}  wall ${fmt(figures.wallMs)}  ${rate(lines, figures.cpuMs)} (cpu)  ${(figures.cpuMs / parseOnly.cpuMs).toFixed(2)}× floor  ${mb(figures)}`,
    );
  console.log(`\n${label}: ${root}`);
  console.log(
    `  ${full.files} files, ${lines.toLocaleString('en-US')} lines, ${full.loc.toLocaleString('en-US')} LOC, ${full.callables} callables; median CPU time of ${runs} processes per case (min–max), load average ${load.toFixed(1)} → ${loadavg()[0].toFixed(1)}; peak memory is the case's process (${Math.round(baseline.peakRssMb)} MB with the sources read and nothing measured)`,
  );
  row('parse only (floor)', parseOnly);
  row('parse on the main thread', parseMain);
  row('matching only (no analysis)', match);
  row('full metrics', full);
  row('metrics without rules', noRules);
  row('incremental, 2 files', incremental);
  // Each round runs every case once, a few seconds apart: the ratio within a round is not moved by
  // a change of the machine's speed between rounds, which moves the medians above.
  const paired = (figures) => {
    const ratios = figures.cpuSamples.map((cpu, run) => cpu / parseOnly.cpuSamples[run]);
    return `${median(ratios).toFixed(2)}× (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)})`;
  };
  console.log(
    `  × floor within each round (median, min–max): full metrics ${paired(full)}, without rules ${paired(noRules)}, matching only ${paired(match)}`,
  );
  if (full.threads) {
    const threads = ({ threads }) =>
      `ast-grep's ${fmt(threads.astGrep)}, main ${fmt(threads.main)}, V8's and libuv's ${fmt(threads.helpers)}`;
    console.log('  cpu time by thread (medians; ticks of 10 ms):');
    for (const [name, figures] of [
      ['parse only (floor)', parseOnly],
      ['matching only', match],
      ['full metrics', full],
      ['metrics without rules', noRules],
    ])
      console.log(`    ${name.padEnd(28)}${threads(figures)}`);
  }
  console.log(
    `  incremental re-score of a 2-file change: ${incremental.measured} files parsed, ${((100 * incremental.cpuMs) / full.cpuMs).toFixed(1)}% of the full run's cpu time`,
  );
  if (label === 'Python') {
    registerGrammars();
    const sources = await readSourceTree(root);
    try {
      const mccabe = runMccabe(sources.map((file) => file.file));
      console.log(
        `  mccabe (one process)    cpu ${fmt(mccabe.cpuMs)}  wall ${fmt(mccabe.analysisMs)}  ${rate(lines, mccabe.cpuMs)} (cpu)`,
      );
    } catch (error) {
      console.log(`  mccabe (one process)    not run: ${error.message.trim().split('\n').pop()}`);
    }
  }
  if (!values['no-jscpd']) {
    const time = jscpd(root, formats);
    console.log(
      `  jscpd 4.0.5 (clones)    ${typeof time === 'string' ? time : `cpu ${fmt(time.cpuMs)}  wall ${fmt(time.wallMs)}  ${rate(lines, time.cpuMs)} (cpu)`}`,
    );
  }
}
