// The command line's speed as a user meets it: how long `longhaul --help` takes, how long a run
// takes from its start to its first trial, and the throughput of the quickstart (steps per
// minute) with 1, 2 and 4 trials at once, beside the ideal: one trial's rate times what more the
// machine can give, min(concurrency, trials, cores ÷ cores busy at concurrency 1). With
// `--rounds R` the levels run R times, interleaved (each round in the opposite order to the one
// before, so a load that rises or falls meets both alike), and the median ratio to concurrency 1
// of the same round is printed. The CPU seconds of each run (the CLI and every process it starts)
// come from a cgroup of its own where the machine lets the bench make one. Needs a build of the
// CLI and plugins (`npx turbo run build`) and Debian's python3 first on PATH (the worklog task's
// cases run python3).
//
//   node bench/cli/bench.mjs [--trials 4] [--concurrency 1,2,4] [--rounds 1] [--help-runs 5]
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmdirSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    trials: { type: 'string', default: '4' },
    concurrency: { type: 'string', default: '1,2,4' },
    rounds: { type: 'string', default: '1' },
    'help-runs': { type: 'string', default: '5' },
  },
});
const trials = Number(values.trials);
const levels = values.concurrency.split(',').map(Number);
const helpRuns = Number(values['help-runs']);
const rounds = Number(values.rounds);
if (!Number.isInteger(rounds) || rounds < 1)
  throw new Error(`--rounds: a positive integer, got ${values.rounds}`);
if (rounds > 1 && !levels.includes(1))
  throw new Error('--rounds compares with concurrency 1: list 1 in --concurrency');
const root = resolve(import.meta.dirname, '../..');
const bin = join(root, 'core/cli/bin/longhaul.js');
const experiment = join(root, 'examples/quickstart.yaml');
const cores = availableParallelism();
const dir = await mkdtemp(join(tmpdir(), 'longhaul-cli-bench-'));

/**
 * Runs the CLI with `args` (in `group` when given: the shell joins the cgroup, then becomes the
 * CLI); resolves with the wall milliseconds and the time it was started.
 */
function cli(args, group) {
  const startedAt = Date.now();
  const started = performance.now();
  const argv = group
    ? [
        '/bin/sh',
        ['-c', 'echo $$ > "$1"; shift; exec "$@"', 'sh', group.procs, process.execPath, bin, ...args],
      ]
    : [process.execPath, [bin, ...args]];
  const child = spawn(...argv, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
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

const usageV2 = (text) => Number(/^usage_usec (\d+)/m.exec(text)?.[1]) / 1e6;
const cgroupKinds = [
  { dir: '/sys/fs/cgroup/cpuacct', file: 'cpuacct.usage', seconds: (text) => Number(text) / 1e9 },
  { dir: '/sys/fs/cgroup/unified', file: 'cpu.stat', seconds: usageV2 },
  { dir: '/sys/fs/cgroup', file: 'cpu.stat', seconds: usageV2 },
];

/**
 * A CPU-accounting cgroup for one run, or undefined where none can be made (not root, no
 * cgroup file system): the CPU time of every process in it, whatever else the machine runs.
 */
function cpuGroup(name) {
  for (const kind of cgroupKinds) {
    const dir = join(kind.dir, name);
    try {
      mkdirSync(dir);
    } catch {
      continue;
    }
    if (!existsSync(join(dir, kind.file))) {
      rmdirSync(dir);
      continue;
    }
    return {
      procs: join(dir, 'cgroup.procs'),
      seconds: () => kind.seconds(readFileSync(join(dir, kind.file), 'utf8')),
      // Fails while a process of the run is still exiting; the cgroup is then left empty.
      remove: () => {
        try {
          rmdirSync(dir);
        } catch {}
      },
    };
  }
  return undefined;
}

const median = (list) => {
  const sorted = [...list].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

let runs = 0;

/** One quickstart run of `trials` trials, `concurrency` at once, read back from its events.jsonl. */
async function quickstart(concurrency) {
  // A folder per run: a level given twice (--concurrency 1,4,1,4) must not resume the first.
  runs += 1;
  const runDir = join(dir, `run${runs}-c${concurrency}`);
  const loadBefore = load();
  const ticksBefore = cpuTicks();
  const group = cpuGroup(`longhaul-bench-${process.pid}-${runs}`);
  const { ms, startedAt } = await cli(
    [
      'run',
      experiment,
      '--run-dir',
      runDir,
      '--set',
      `repeats=${trials}`,
      '--concurrency',
      String(concurrency),
    ],
    group,
  );
  const cpuSeconds = group?.seconds();
  group?.remove();
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
    // The run's own CPU per step scored, which other work on the machine does not inflate.
    cpuPerStep: cpuSeconds === undefined ? undefined : cpuSeconds / steps,
  };
}

const fixed = (n, digits = 1) => (n === undefined ? '–' : n.toFixed(digits));
const percent = (ratio) => (ratio === undefined ? '–' : `${(ratio * 100).toFixed(0)}%`);

try {
  const helpLoad = load();
  const help = [];
  for (let i = 0; i < helpRuns; i++) help.push((await cli(['--help'])).ms);
  console.log(
    `${cores} cores; the machine may be shared: the load average (1, 5, 15 min) is printed beside each figure\n`,
  );
  console.log(
    `longhaul --help: median ${median(help).toFixed(0)} ms of ${helpRuns} (min ${Math.min(...help).toFixed(0)}, max ${Math.max(...help).toFixed(0)})   load ${helpLoad}`,
  );

  console.log(`\nquickstart × ${trials} (worklog, 4 steps per trial, oracle harness, local environment)`);
  console.log(
    `${'round'.padEnd(6)}${'concurrency'.padEnd(12)}${'wall s'.padStart(8)}${'steps/min'.padStart(11)}${'cores busy'.padStart(12)}${'ideal'.padStart(8)}${'of ideal'.padStart(10)}${'CPU s/step'.padStart(12)}${'vs c=1'.padStart(8)}   load before → after`,
  );
  const all = [];
  for (let round = 1; round <= rounds; round++) {
    const order = round % 2 === 1 ? levels : [...levels].reverse();
    const rows = [];
    for (const concurrency of order) rows.push(await quickstart(concurrency));
    rows.sort((a, b) => levels.indexOf(a.concurrency) - levels.indexOf(b.concurrency));
    // One trial already runs its cases side by side: trials at once can only add the cores it
    // leaves idle.
    const one = rows.find((r) => r.concurrency === 1);
    for (const row of rows) {
      row.round = round;
      row.ideal = one && one.perMinute * Math.min(row.concurrency, trials, cores / one.coresBusy);
      row.ratio = one && row.perMinute / one.perMinute;
      all.push(row);
      console.log(
        `${String(round).padEnd(6)}${String(row.concurrency).padEnd(12)}${(row.wallMs / 1000).toFixed(1).padStart(8)}${row.perMinute.toFixed(1).padStart(11)}${row.coresBusy.toFixed(2).padStart(12)}${fixed(row.ideal).padStart(8)}${percent(row.ideal && row.perMinute / row.ideal).padStart(10)}${fixed(row.cpuPerStep, 2).padStart(12)}${percent(row.ratio).padStart(8)}   ${row.load}`,
      );
    }
  }

  const firsts = all.map((r) => r.firstTrialMs);
  console.log(
    `\nrun start → first trial: median ${median(firsts).toFixed(0)} ms of ${firsts.length} runs (${firsts.map((ms) => ms.toFixed(0)).join(', ')})`,
  );
  if (rounds > 1) {
    console.log('\nagainst concurrency 1 of the same round, median (min–max) of the rounds:');
    for (const concurrency of levels.filter((c) => c !== 1)) {
      const rows = all.filter((r) => r.concurrency === concurrency);
      const ratios = rows.map((r) => r.ratio);
      const cpu = rows.flatMap((r) => {
        const one = all.find((o) => o.round === r.round && o.concurrency === 1);
        return r.cpuPerStep === undefined || one?.cpuPerStep === undefined
          ? []
          : [r.cpuPerStep / one.cpuPerStep];
      });
      const spread = (list) =>
        list.length === 0
          ? '–'
          : `${percent(median(list))} (${percent(Math.min(...list))}–${percent(Math.max(...list))})`;
      console.log(`concurrency ${concurrency}: steps/min ${spread(ratios)}, CPU per step ${spread(cpu)}`);
    }
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
