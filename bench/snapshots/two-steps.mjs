// What a large workspace costs the runner: for each workload and environment, a real `longhaul
// run` (the CLI from dist) of a two-step task. In step 1 the `ide` harness, driven by a scripted
// model, builds the workload in its workspace with one command (many small files, or one large
// file) and writes the program the step asks for; in step 2 it changes one small file. Each step is
// snapshotted, diffed and scored (hidden tests in a sandbox opened from the snapshot, code
// quality), as in any run. Prints the runner's peak RSS (VmHWM), each step's scoring time (from
// the `scoring` phase to the step's end: snapshot, diff, scorers), the run's wall time, the
// steps' status, and beside them the time `cp -a` takes to copy the same workload on this disk.
//
//   npx turbo run build          # the CLI runs dist
//   node bench/snapshots/two-steps.mjs [--workloads 1e4,1e5,1e6,2g] [--environments local,docker]
//        [--cli PATH] [--timeout 1200] [--keep] [--node-args='--cpu-prof --cpu-prof-dir=DIR']
//
// `--node-args` are given to node before the CLI (a CPU profile per run, as above, or V8 flags).
import { execFileSync } from 'node:child_process';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  formatMiB,
  repoCli,
  runMeasured,
  writeHelloProblem,
  writeScriptedExperiment,
} from '../lib/measured-run.mjs';

const { values } = parseArgs({
  options: {
    workloads: { type: 'string', default: '1e4,1e5,1e6,2g' },
    environments: { type: 'string', default: 'local,docker' },
    cli: { type: 'string' },
    timeout: { type: 'string', default: '1200' },
    keep: { type: 'boolean', default: false },
    'node-args': { type: 'string', default: '' },
  },
});
const cli = values.cli ?? repoCli;
const timeoutS = Number(values.timeout);
const nodeArgs = values['node-args'].split(' ').filter(Boolean);

/** The Python program that makes a workload in the current folder. */
function maker(workload) {
  if (workload.endsWith('g')) {
    // One text file of that many GiB, a line repeated: the snapshot must take it (maxFileSize 4g).
    const bytes = Number(workload.slice(0, -1)) * 1024 ** 3;
    return `
line = b'%s\\n' % (b'x' * 99)
block = line * (1 << 14)
left = ${bytes}
with open('big.log', 'wb') as out:
    while left > 0:
        out.write(block[:left])
        left -= len(block)
`;
  }
  // Files of about 100 bytes, each different, a thousand to a folder, sorted before main.py.
  return `
import os
n = int(${Number(workload)})
for i in range(n):
    if i % 1000 == 0:
        folder = 'a-many/%04d' % (i // 1000)
        os.makedirs(folder)
    with open('%s/%d.txt' % (folder, i), 'w') as out:
        out.write('file %d of the workload\\n%s\\n' % (i, 'y' * 70))
`;
}

/** A task of two steps, each asking for main.py printing hello, each with that hidden case. */
async function writeTwoStepProblem(dir, id) {
  await writeHelloProblem(dir, id, { title: 'a program beside a large workspace' });
  const steps = join(dir, 'problems', id, 'steps');
  await cp(join(steps, '01-hello'), join(steps, '02-again'), { recursive: true });
}

function replies(program) {
  const call = (name, input) => ({ toolCalls: [{ name, input }] });
  return [
    call('write_file', { file_path: 'make.py', content: program }),
    call('run_terminal_cmd', { command: 'python3 make.py && rm make.py', timeout_seconds: timeoutS }),
    call('write_file', { file_path: 'main.py', content: 'print("hello")\n' }),
    { text: 'main.py prints hello.' },
    call('write_file', { file_path: 'notes.md', content: 'Step 2 changed this file.\n' }),
    { text: 'Done.' },
  ];
}

/** Per step of the run: its status, tests.strict, scoring seconds and what its snapshot skipped. */
async function stepFacts(runDir) {
  const events = (await readFile(join(runDir, 'events.jsonl'), 'utf8').catch(() => ''))
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
  const steps = [];
  let scoring;
  for (const event of events) {
    if (event.type === 'trial.phase' && event.phase === 'scoring') scoring = Date.parse(event.ts);
    if (event.type === 'step.end') {
      steps.push({
        status: event.status,
        strict: event.scores['tests.strict'] ?? '-',
        scoringS: scoring === undefined ? undefined : (Date.parse(event.ts) - scoring) / 1000,
      });
      scoring = undefined;
    }
  }
  const trials = join(runDir, 'trials');
  const [trial] = await readdir(trials).catch(() => []);
  const skipped = {};
  if (trial) {
    const scores = JSON.parse(
      await readFile(join(trials, trial, 'steps', '01-hello', 'scores.json'), 'utf8').catch(() => 'null'),
    );
    for (const file of scores?.details?.snapshot?.skipped ?? [])
      skipped[file.reason ?? 'size'] = (skipped[file.reason ?? 'size'] ?? 0) + 1;
  }
  return { steps, skipped };
}

/** Seconds `cp -a` takes to copy the workload made in a folder of this disk (the page cache warm). */
async function copySeconds(dir, workload) {
  const made = join(dir, `copy-${workload}`);
  await mkdir(join(made, 'from'), { recursive: true });
  await writeFile(join(made, 'make.py'), maker(workload));
  execFileSync('python3', [join(made, 'make.py')], { cwd: join(made, 'from') });
  const started = performance.now();
  execFileSync('cp', ['-a', join(made, 'from'), join(made, 'to')]);
  const seconds = (performance.now() - started) / 1000;
  await rm(made, { recursive: true, force: true });
  return seconds;
}

const dir = await mkdtemp(join(tmpdir(), 'longhaul-bench-snapshots-'));
await writeTwoStepProblem(dir, 'large');
const rows = [];
const seconds = (s) => (s === undefined ? '–' : `${s.toFixed(1)} s`);
try {
  for (const workload of values.workloads.split(',')) {
    const copy = await copySeconds(dir, workload);
    for (const environment of values.environments.split(',')) {
      const name = `snapshots-${workload}-${environment}`;
      const experiment = await writeScriptedExperiment(dir, {
        name,
        task: 'large',
        environment,
        environmentOptions: workload.endsWith('g') ? { maxFileSize: '4g' } : {},
        replies: replies(maker(workload)),
        turnSeconds: timeoutS,
      });
      const runDir = join(dir, `run-${name}`);
      const result = await runMeasured(
        cli,
        ['run', experiment, '--run-dir', runDir],
        timeoutS * 1000,
        nodeArgs,
      );
      const facts = await stepFacts(runDir);
      rows.push({
        workload,
        environment,
        exit: result.timedOut ? `killed after ${timeoutS} s` : (result.signal ?? result.code),
        'peak RSS': formatMiB(result.peakKb),
        'scoring 1': seconds(facts.steps[0]?.scoringS),
        'scoring 2': seconds(facts.steps[1]?.scoringS),
        run: seconds(result.wallMs / 1000),
        'cp -a': seconds(copy),
        status: facts.steps.map((s) => `${s.status}/${s.strict}`).join(' ') || '–',
        skipped:
          Object.entries(facts.skipped)
            .map(([reason, count]) => `${count} ${reason}`)
            .join(', ') || 'none',
      });
      console.log(JSON.stringify(rows.at(-1)));
      if (result.code !== 0 && !result.timedOut)
        console.error(result.output.split('\n').slice(-15).join('\n'));
      // Each run's folder goes as soon as it is measured: a million files take gigabytes of inodes.
      if (!values.keep) await rm(runDir, { recursive: true, force: true });
    }
  }
} finally {
  if (values.keep) console.log(`kept ${dir}`);
  else await rm(dir, { recursive: true, force: true });
}
console.table(rows);
