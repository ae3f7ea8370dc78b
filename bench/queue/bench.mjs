// Queue executor: throughput (steps per minute) of the same experiment run by 1, 2 and 4
// `longhaul worker` processes, beside the local executor with as many trials at once, and the
// coordinator's overhead per trial. Needs redis-server on PATH and a build of the CLI and plugins
// (`npx turbo run build`).
//
//   node bench/queue/bench.mjs [--trials 8] [--workers 1,2,4]
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: { trials: { type: 'string', default: '8' }, workers: { type: 'string', default: '1,2,4' } },
});
const trials = Number(values.trials);
const counts = values.workers.split(',').map(Number);
const root = resolve(import.meta.dirname, '../..');
const bin = join(root, 'core/cli/bin/longhaul.js');
const experiment = join(import.meta.dirname, 'experiment.yaml');
const dir = await mkdtemp(join(tmpdir(), 'longhaul-queue-bench-'));

function start(args, options = {}) {
  const child = spawn(args[0], args.slice(1), { stdio: ['ignore', 'pipe', 'pipe'], ...options });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const exited = new Promise((done) => child.once('exit', (code) => done(code)));
  return { child, exited, output: () => output };
}

async function until(check, what) {
  const deadline = Date.now() + 120_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const port = await new Promise((done) => {
  const server = createServer().listen(0, '127.0.0.1', () => {
    const { port } = server.address();
    server.close(() => done(port));
  });
});
const url = `redis://127.0.0.1:${port}`;
const redis = start([
  'redis-server',
  '--port',
  String(port),
  '--bind',
  '127.0.0.1',
  '--save',
  '',
  '--dir',
  dir,
]);
await until(() => redis.output().includes('Ready to accept connections'), 'redis-server');

/** Runs the experiment into a fresh run directory; returns seconds and the steps scored. */
async function run(name, flags, env = {}) {
  const runDir = join(dir, name);
  const started = performance.now();
  const coordinator = start(
    ['node', bin, 'run', experiment, '--run-dir', runDir, '--set', `repeats=${trials}`, ...flags],
    { cwd: root, env: { ...process.env, ...env } },
  );
  const code = await coordinator.exited;
  const seconds = (performance.now() - started) / 1000;
  if (code !== 0) throw new Error(`${name}: exit ${code}\n${coordinator.output()}`);
  const summary = JSON.parse(await readFile(join(runDir, 'summary.json'), 'utf8'));
  const steps = summary.trials.flatMap((t) => t.steps).filter((s) => s.scores['tests.strict'] === 1).length;
  return { seconds, steps, runDir };
}

/** Milliseconds between one trial's end and the next one's start, in a local run with one trial at a time. */
async function localGaps(runDir) {
  const events = (await readFile(join(runDir, 'events.jsonl'), 'utf8'))
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  const gaps = [];
  let ended;
  for (const event of events) {
    if (event.type === 'trial.end') ended = Date.parse(event.ts);
    if (event.type === 'trial.start' && ended !== undefined) gaps.push(Date.parse(event.ts) - ended);
  }
  return gaps;
}

/** The same for one worker, from its log: a trial's last line to the next one's `started`. */
function workerGaps(log) {
  const gaps = [];
  let ended;
  for (const line of log.split('\n')) {
    const match = /^(\S+) trial \S+ of \S+: (started|ok)/.exec(line);
    if (!match) continue;
    if (match[2] === 'ok') ended = Date.parse(match[1]);
    else if (ended !== undefined) gaps.push(Date.parse(match[1]) - ended);
  }
  return gaps;
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const gaps = {};
const rows = [];
try {
  for (const n of counts) {
    const local = await run(`local-${n}`, ['--concurrency', String(n)]);
    rows.push({ what: `local executor, ${n} trial(s) at once`, ...local });
    const workers = Array.from({ length: n }, () =>
      start(['node', bin, 'worker', '--queue', url, '--queue-name', `bench-${n}`, '--plugins', root], {
        cwd: root,
      }),
    );
    await until(() => workers.every((w) => w.output().includes('taking trials')), 'the workers');
    const queued = await run(
      `queue-${n}`,
      [
        '--executor',
        'queue',
        '--set',
        `executor.options.queue=bench-${n}`,
        '--set',
        'executor.options.pollSeconds=0.5',
      ],
      { LONGHAUL_QUEUE: url },
    );
    rows.push({ what: `queue executor, ${n} worker(s)`, ...queued });
    if (n === 1) {
      gaps.local = await localGaps(local.runDir);
      gaps.queue = workerGaps(workers[0].output());
    }
    for (const w of workers) w.child.kill('SIGTERM');
    await Promise.all(workers.map((w) => w.exited));
  }
} finally {
  redis.child.kill('SIGTERM');
  await redis.exited;
  await rm(dir, { recursive: true, force: true });
}

console.log(`${trials} trials of 3 steps each (oracle harness, local environment, hidden cases)\n`);
console.log(
  `${'what'.padEnd(40)} ${'seconds'.padStart(8)} ${'steps'.padStart(6)} ${'steps/min'.padStart(10)}`,
);
for (const { what, seconds, steps } of rows) {
  const perMinute = (steps / seconds) * 60;
  console.log(
    `${what.padEnd(40)} ${seconds.toFixed(1).padStart(8)} ${String(steps).padStart(6)} ${perMinute.toFixed(1).padStart(10)}`,
  );
}
// The queue's cost per trial, where the wall times are too noisy to show it: how long one worker
// (or the local pool of one) sits between a trial's end and the next trial's start. For the queue
// that is the job's completion, the next job's pick-up from Redis and the run's loading checks.
const one = (prefix) => rows.find((r) => r.what.startsWith(prefix) && /\b1 (trial|worker)/.test(r.what));
if (gaps.local?.length && gaps.queue?.length) {
  console.log('\nbetween one trial and the next (median ms):');
  console.log(`  local executor, 1 at once: ${median(gaps.local)} ms`);
  console.log(`  queue executor, 1 worker:  ${median(gaps.queue)} ms`);
  const wall = ((one('queue').seconds - one('local').seconds) / trials) * 1000;
  console.log(`wall time per trial, queue (1 worker) − local (1 at once): ${wall.toFixed(0)} ms`);
}
