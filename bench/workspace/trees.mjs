// What trees an agent can make cost the runner: for each attack, a real `longhaul run` (the CLI
// from dist) of a one-step task where the `ide` harness, driven by a scripted model, builds a tree
// in its workspace with one command and then writes the program the step asks for. The step is
// snapshotted, diffed and scored (hidden tests in a sandbox opened from the snapshot, code
// quality), as in any run. Prints per attack and environment the runner's peak RSS (VmHWM), the
// step's and the run's wall time, the step's status and tests.strict, and what the snapshot
// skipped, counted by reason.
//
//   npx turbo run build          # the CLI runs dist
//   node bench/workspace/trees.mjs [--attacks many-files,deep,special,names]
//        [--environments local,local-bubblewrap,docker] [--files 1000000] [--depth 10000] [--timeout 900]
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
    attacks: { type: 'string', default: 'many-files,deep,special,names' },
    environments: { type: 'string', default: 'local,local-bubblewrap' },
    files: { type: 'string', default: '1000000' },
    depth: { type: 'string', default: '10000' },
    cli: { type: 'string' },
    timeout: { type: 'string', default: '900' },
    keep: { type: 'boolean', default: false },
  },
});
const cli = values.cli ?? repoCli;

/** Each attack is one Python program the agent runs in its workspace. */
const attacks = {
  // Empty files, a thousand to a folder, named so they sort before main.py.
  'many-files': `
import os
n = ${Number(values.files)}
for i in range(n):
    if i % 1000 == 0:
        folder = 'a-many/%04d' % (i // 1000)
        os.makedirs(folder)
    open('%s/%d' % (folder, i), 'w').close()
`,
  // One folder in the next, deeper than any path a syscall takes whole.
  deep: `
import os
os.mkdir('a-deep'); os.chdir('a-deep')
for i in range(${Number(values.depth)}):
    os.mkdir('d'); os.chdir('d')
open('bottom.txt', 'w').write('bottom')
`,
  // A FIFO nothing writes to (opening it to read would block), a socket, and a device where allowed.
  special: `
import os, socket
os.mkfifo('a-fifo')
socket.socket(socket.AF_UNIX).bind('a-socket')
try:
    os.mknod('a-null', 0o20666, os.makedev(1, 3))
except OSError:
    pass
`,
  // Names that are not UTF-8, in the root and as a folder.
  names: `
import os
open(b'a-\\xff\\xfe.txt', 'wb').write(b'latin')
os.mkdir(b'a-\\xc3\\x28')
open(b'a-\\xc3\\x28/inner.txt', 'wb').write(b'inner')
`,
};

function replies(program) {
  const call = (name, input) => ({ toolCalls: [{ name, input }] });
  return [
    call('write_file', { file_path: 'attack.py', content: program }),
    call('run_terminal_cmd', { command: 'python3 attack.py && rm attack.py', timeout_seconds: 900 }),
    call('write_file', { file_path: 'main.py', content: 'print("hello")\n' }),
    { text: 'main.py prints hello.' },
  ];
}

const dir = await mkdtemp(join(tmpdir(), 'longhaul-bench-trees-'));
await writeHelloProblem(dir, 'trees', { title: 'a program beside a tree the agent made' });
const rows = [];
try {
  for (const attack of values.attacks.split(',')) {
    if (!attacks[attack])
      throw new Error(`unknown attack ${attack}: one of ${Object.keys(attacks).join(', ')}`);
    for (const environment of values.environments.split(',')) {
      const name = `trees-${attack}-${environment}`;
      const experiment = await writeScriptedExperiment(dir, {
        name,
        task: 'trees',
        environment,
        replies: replies(attacks[attack]),
        turnSeconds: Number(values.timeout),
      });
      const runDir = join(dir, `run-${name}`);
      const result = await runMeasured(
        cli,
        ['run', experiment, '--run-dir', runDir],
        Number(values.timeout) * 1000,
      );
      const facts = await stepFacts(runDir);
      const skipped = facts?.scores?.details?.snapshot?.skipped ?? [];
      const byReason = {};
      for (const file of skipped)
        byReason[file.reason ?? 'size'] = (byReason[file.reason ?? 'size'] ?? 0) + 1;
      rows.push({
        attack,
        environment,
        exit: result.timedOut ? `killed after ${values.timeout} s` : (result.signal ?? result.code),
        'peak RSS': formatMiB(result.peakKb),
        step: facts?.scores ? `${(facts.scores.durationMs / 1000).toFixed(1)} s` : '-',
        run: `${(result.wallMs / 1000).toFixed(1)} s`,
        status: facts?.scores?.status ?? '-',
        'tests.strict': facts?.scores?.scores?.['tests.strict'] ?? '-',
        skipped:
          Object.entries(byReason)
            .map(([reason, count]) => `${count} ${reason}`)
            .join(', ') || 'none',
      });
      if (result.code !== 0 && !result.timedOut)
        console.error(result.output.split('\n').slice(-15).join('\n'));
      // A million files take gigabytes of inodes: each run's folder goes as soon as it is measured.
      if (!values.keep) await rm(runDir, { recursive: true, force: true });
    }
  }
} finally {
  if (values.keep) console.log(`kept ${dir}`);
  else await rm(dir, { recursive: true, force: true });
}
console.table(rows);
