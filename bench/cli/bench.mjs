// The command line's speed as a user meets it: how long `longhaul --help` takes, how long a run
// takes from its start to its first trial, and the throughput of the quickstart (steps per
// minute) with 1, 2 and 4 trials at once, beside the ideal: one trial's rate times what more the
// machine can give, min(concurrency, trials, cores ÷ cores busy at concurrency 1). Needs a build of the CLI and plugins (`npx turbo run build`) and Debian's python3
// first on PATH (the worklog task's cases run python3).
//
//   node bench/cli/bench.mjs [--trials 4] [--concurrency 1,2,4] [--help-runs 5]
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    trials: { type: 'string', default: '4' },
    concurrency: { type: 'string', default: '1,2,4' },
    'help-runs': { type: 'string', default: '5' },
  },
});
const trials = Number(values.trials);
const levels = values.concurrency.split(',').map(Number);
const helpRuns = Number(values['help-runs']);
const root = resolve(import.meta.dirname, '../..');
const bin = join(root, 'core/cli/bin/longhaul.js');
const experiment = join(root, 'examples/quickstart.yaml');
const cores = availableParallelism();
const dir = await mkdtemp(join(tmpdir(), 'longhaul-cli-bench-'));

/** Runs the CLI with `args`; resolves with the wall milliseconds and the time it was started. */
function cli(args) {
  const startedAt = Date.now();
  const started = performance.now();
  const child = spawn(process.execPath, [bin, ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  return new Promise((done, fail) =>
    child.once('exit', (code) => {
      const ms = performance.now() - started;
      if (code === 0) done({ ms, startedAt });
      else fail(new Error(`longhaul ${args.join(' ')}: exit ${code}\n${output}`));
    }),
  );
}

const load = () =>
  loadavg()
    .map((n) => n.toFixed(2))
    .join(' ');
/** Clock ticks the whole machine spent busy and in total so far, from /proc/stat. */
function cpuTicks() {
  const [, ...fields] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/);
  const [user, nice, system, idle, iowait, irq, softirq, steal] = fields.map(Number);
  return {
    busy: user + nice + system + irq + softirq + steal,
    total: user + nice + system + idle + iowait + irq + softirq + steal,
  };
}

const median = (list) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];

let runs = 0;

/** One quickstart run of `trials` trials, `concurrency` at once, read back from its events.jsonl. */
async function quickstart(concurrency) {
  // A folder per run: a level given twice (--concurrency 1,4,1,4) must not resume the first.
  runs += 1;
  const runDir = join(dir, `run${runs}-c${concurrency}`);
  const loadBefore = load();
  const ticksBefore = cpuTicks();
  const { ms, startedAt } = await cli([
    'run',
    experiment,
    '--run-dir',
    runDir,
    '--set',
    `repeats=${trials}`,
    '--concurrency',
    String(concurrency),
  ]);
  const events = (await readFile(join(runDir, 'events.jsonl'), 'utf8'))
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
  const ticksAfter = cpuTicks();
  const at = (event) => Date.parse(event.ts);
  const firstTrial = at(events.find((e) => e.type === 'trial.start'));
  const end = at(events.findLast((e) => e.type === 'run.end'));
  const steps = events.filter((e) => e.type === 'step.end' && e.status === 'ok').length;
  const expected = trials * 4;
  if (steps !== expected)
    throw new Error(`concurrency ${concurrency}: ${steps} of ${expected} steps ok (${runDir})`);
  return {
    concurrency,
    wallMs: ms,
    firstTrialMs: firstTrial - startedAt,
    // Throughput of the trials themselves: from the first trial's start to the run's end.
    perMinute: steps / ((end - firstTrial) / 60_000),
    load: `${loadBefore} → ${load()}`,
    // Of the whole machine, other work included: on a quiet machine, what the run keeps busy.
    coresBusy: (cores * (ticksAfter.busy - ticksBefore.busy)) / (ticksAfter.total - ticksBefore.total),
  };
}

try {
  const helpLoad = load();
  const help = [];
  for (let i = 0; i < helpRuns; i++) help.push((await cli(['--help'])).ms);
  const rows = [];
  for (const concurrency of levels) rows.push(await quickstart(concurrency));

  console.log(
    `${cores} cores; the machine may be shared: the load average (1, 5, 15 min) is printed beside each figure\n`,
  );
  console.log(
    `longhaul --help: median ${median(help).toFixed(0)} ms of ${helpRuns} (min ${Math.min(...help).toFixed(0)}, max ${Math.max(...help).toFixed(0)})   load ${helpLoad}`,
  );
  const firsts = rows.map((r) => r.firstTrialMs);
  console.log(
    `run start → first trial: median ${median(firsts).toFixed(0)} ms of ${firsts.length} runs (${firsts.map((ms) => ms.toFixed(0)).join(', ')})\n`,
  );
  console.log(`quickstart × ${trials} (worklog, 4 steps per trial, oracle harness, local environment)`);
  console.log(
    `${'concurrency'.padEnd(12)}${'wall s'.padStart(8)}${'steps/min'.padStart(11)}${'cores busy'.padStart(12)}${'ideal'.padStart(8)}${'of ideal'.padStart(10)}   load before → after`,
  );
  // One trial already runs its cases side by side: trials at once can only add the cores it
  // leaves idle.
  const one = rows.find((r) => r.concurrency === 1);
  for (const row of rows) {
    const ideal = one && one.perMinute * Math.min(row.concurrency, trials, cores / one.coresBusy);
    console.log(
      `${String(row.concurrency).padEnd(12)}${(row.wallMs / 1000).toFixed(1).padStart(8)}${row.perMinute.toFixed(1).padStart(11)}${row.coresBusy.toFixed(2).padStart(12)}${(ideal?.toFixed(1) ?? '–').padStart(8)}${(ideal ? `${((row.perMinute / ideal) * 100).toFixed(0)}%` : '–').padStart(10)}   ${row.load}`,
    );
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
