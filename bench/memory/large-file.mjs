// The runner's memory when the agent leaves a large file in the workspace: a real `longhaul run`
// of a one-step task where the `ide` harness, driven by a scripted model through the gateway,
// writes a file of --size bytes with a shell command, then the small program the step asks for.
// The step is snapshotted, diffed and scored (hidden tests in a sandbox opened from the snapshot,
// code quality from the snapshot), as in any run. Prints the runner's peak RSS (VmHWM, polled from
// /proc) and the step's wall time, per environment.
//
//   npx turbo run build          # the CLI runs dist
//   longhaul images build        # for docker, once per host
//   node bench/memory/large-file.mjs [--size 1g] [--environments local,docker] [--max-file-size 32m]
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { formatSize, parseSize } from '@longhaul/core';
import {
  repoCli as cli,
  runMeasured,
  writeHelloProblem,
  writeScriptedExperiment,
} from '../lib/measured-run.mjs';

const { values } = parseArgs({
  options: {
    size: { type: 'string', default: '1g' },
    environments: { type: 'string', default: 'local,docker' },
    'max-file-size': { type: 'string', default: '32m' },
    keep: { type: 'boolean', default: false },
  },
});
const size = parseSize(values.size);

/** A one-step task: print "hello". Its hidden test runs the program in the scorer's sandbox. */
function writeProblem(dir) {
  return writeHelloProblem(dir, 'bigfile', {
    title: 'a program beside a large file',
    lines: ['description: Prints hello; the agent also leaves a large log in the workspace.'],
  });
}

/** The scripted agent: a shell command that writes the large file, then the program. */
function replies() {
  const lines = `yes 'a line of a large log that the agent left behind' | head -c ${size} > big.log`;
  return [
    { toolCalls: [{ name: 'run_terminal_cmd', input: { command: lines, timeout_seconds: 1800 } }] },
    { toolCalls: [{ name: 'write_file', input: { file_path: 'main.py', content: 'print("hello")\n' } }] },
    { text: 'main.py prints hello.' },
  ];
}

async function stepFacts(runDir) {
  const trials = join(runDir, 'trials');
  const { readdir } = await import('node:fs/promises');
  const [trial] = await readdir(trials);
  const stepDir = join(trials, trial, 'steps', '01-hello');
  const scores = JSON.parse(await readFile(join(stepDir, 'scores.json'), 'utf8'));
  return { scores, diff: await readFile(join(stepDir, 'diff.patch'), 'utf8') };
}

const dir = await mkdtemp(join(tmpdir(), 'longhaul-bench-large-file-'));
await writeProblem(dir);
const rows = [];
try {
  for (const environment of values.environments.split(',')) {
    const experiment = await writeScriptedExperiment(dir, {
      name: `large-file-${environment}`,
      task: 'bigfile',
      environment,
      environmentOptions: { maxFileSize: values['max-file-size'] },
      replies: replies(),
      turnSeconds: 3600,
    });
    const runDir = join(dir, `run-${environment}`);
    const result = await runMeasured(cli, ['run', experiment, '--run-dir', runDir]);
    if (result.code !== 0) {
      console.error(result.output);
      throw new Error(`longhaul run (${environment}) exited with ${result.code}`);
    }
    const { scores, diff } = await stepFacts(runDir);
    const skipped = scores.details?.snapshot?.skipped ?? [];
    // A run in which the agent did not do its part measures nothing.
    if (scores.scores['tests.strict'] !== 1)
      throw new Error(`${environment}: the step did not pass its test`);
    if (size > parseSize(values['max-file-size']) && !skipped.some((f) => f.path === 'big.log')) {
      throw new Error(`${environment}: big.log is not recorded as skipped`);
    }
    rows.push({
      environment,
      peak: formatSize(result.peakKb * 1024),
      step: `${(scores.durationMs / 1000).toFixed(1)} s`,
      run: `${(result.wallMs / 1000).toFixed(1)} s`,
      status: scores.status,
      tests: scores.scores['tests.strict'],
      skipped: skipped.map((f) => `${f.path} ${formatSize(f.size)}`).join(', ') || 'none',
      diffBytes: diff.length,
    });
  }
} finally {
  if (values.keep) console.log(`kept ${dir}`);
  else await rm(dir, { recursive: true, force: true });
}

console.log(`file left in the workspace: ${formatSize(size)}; maxFileSize ${values['max-file-size']}`);
console.table(rows);
