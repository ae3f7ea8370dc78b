// What an agent's links cost the runner: a real `longhaul run` (the CLI from dist, as users run
// it) of a one-step task where the `ide` harness, driven by a scripted model through the gateway,
// makes a link to `/` and one to the folder of the task's hidden cases, then lists and searches
// the workspace through them, and writes the program the step asks for. The step is snapshotted,
// diffed and scored (hidden tests in a sandbox opened from the snapshot, code quality), as in any
// run. Prints the runner's peak RSS (VmHWM, polled from /proc), the step's and the run's wall
// time, the step's status, what the snapshot skipped, and whether any tool result named a file
// from outside the workspace.
//
//   npx turbo run build          # the CLI runs dist
//   node bench/workspace/links.mjs [--environments local,local-bubblewrap,docker] [--cli PATH] [--timeout 600]
//
// `--cli` runs another checkout's CLI (core/cli/bin/longhaul.js) on the same task, to compare.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  formatMiB,
  repoCli,
  runMeasured,
  stepFacts,
  writeHelloProblem,
  writeScriptedExperiment,
} from '../lib/measured-run.mjs';

const { values } = parseArgs({
  options: {
    environments: { type: 'string', default: 'local,local-bubblewrap' },
    cli: { type: 'string' },
    timeout: { type: 'string', default: '600' },
    keep: { type: 'boolean', default: false },
  },
});
const cli = values.cli ?? repoCli;

/** A one-step task: print "hello". Its hidden case and task file are what the agent must never see. */
function writeProblem(dir) {
  return writeHelloProblem(dir, 'links', {
    title: 'a program beside links out of the workspace',
    lines: [
      'description: Prints hello; the agent also leaves links to / and to the task folder.',
      '# task-file-marker: only a read through the link to the task folder can return this line',
    ],
    caseName: 'zq-hidden-case',
  });
}

/** The scripted agent: the links, a listing and a search through them, then the program. */
function replies(problems) {
  const call = (name, input) => ({ toolCalls: [{ name, input }] });
  return [
    call('run_terminal_cmd', { command: `ln -s / x && ln -s '${problems}' p`, timeout_seconds: 60 }),
    call('list_dir', { relative_workspace_path: '.', recursive: true }),
    call('file_search', { query: 'hidden' }),
    call('read_file', { target_file: 'p/links/task.yaml', should_read_entire_file: true }),
    call('read_file', { target_file: 'x/etc/hostname', should_read_entire_file: true }),
    call('write_file', { file_path: 'main.py', content: 'print("hello")\n' }),
    { text: 'main.py prints hello.' },
  ];
}

const dir = await mkdtemp(join(tmpdir(), 'longhaul-bench-links-'));
await writeProblem(dir);
const rows = [];
try {
  for (const environment of values.environments.split(',')) {
    const experiment = await writeScriptedExperiment(dir, {
      name: `links-${environment}`,
      task: 'links',
      environment,
      replies: replies(join(dir, 'problems')),
    });
    const runDir = join(dir, `run-${environment}`);
    const result = await runMeasured(
      cli,
      ['run', experiment, '--run-dir', runDir],
      Number(values.timeout) * 1000,
    );
    const facts = await stepFacts(runDir);
    const skipped = facts?.scores?.details?.snapshot?.skipped ?? [];
    rows.push({
      environment,
      exit: result.timedOut ? `killed after ${values.timeout} s` : (result.signal ?? result.code),
      'peak RSS': formatMiB(result.peakKb),
      step: facts?.scores ? `${(facts.scores.durationMs / 1000).toFixed(1)} s` : '-',
      run: `${(result.wallMs / 1000).toFixed(1)} s`,
      status: facts?.scores?.status ?? '-',
      'tests.strict': facts?.scores?.scores?.['tests.strict'] ?? '-',
      skipped: skipped.map((f) => `${f.path} (${f.reason ?? 'size'})`).join(', ') || 'none',
      // The hidden case's name (never in a request) means a listing or search went through p; the
      // task file's marker, a read.
      'host seen': facts
        ? ['zq-hidden-case', 'task-file-marker']
            .filter((mark) => facts.trajectory.includes(mark))
            .join(', ') || 'nothing'
        : '-',
    });
    if (result.code !== 0 && !result.timedOut) console.error(result.output.split('\n').slice(-15).join('\n'));
  }
} finally {
  if (values.keep) console.log(`kept ${dir}`);
  else await rm(dir, { recursive: true, force: true });
}
console.table(rows);
