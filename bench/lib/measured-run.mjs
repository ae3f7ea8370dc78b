// What the runner benches under bench/ share: a one-step "print hello" task, an experiment that
// runs it with the `ide` harness driven by a scripted model, and a `longhaul` run of the CLI whose
// peak RSS is measured.
import { spawn } from 'node:child_process';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Writes the task `id` under `dir/problems`: one step whose hidden case runs `python3 main.py`
 * and expects `hello`. `lines` go into task.yaml after its title (a description, say).
 */
export async function writeHelloProblem(dir, id, { title, lines = [], caseName = 'hello' }) {
  const step = join(dir, 'problems', id, 'steps', '01-hello');
  await mkdir(join(step, 'cases', 'core'), { recursive: true });
  await writeFile(
    join(dir, 'problems', id, 'task.yaml'),
    [
      `id: ${id}`,
      `title: ${title}`,
      ...lines,
      'entrypoint: python3 main.py',
      'language: python',
      'environment: { network: none }',
      'timeouts: { caseMs: 20000 }',
      '',
    ].join('\n'),
  );
  await writeFile(join(step, 'spec.md'), 'Write `{{entrypoint}}`: it prints `hello`.\n');
  await writeFile(
    join(step, 'cases', 'core', `${caseName}.yaml`),
    'argv: []\nexpect:\n  exitCode: 0\n  stdout: { text: "hello\\n" }\n',
  );
}

/**
 * Runs the CLI at `cli` (under node with `nodeArgs`) and polls its VmHWM (the kernel's own peak
 * RSS counter) until it exits, or kills it after `timeoutMs`.
 */
export function runMeasured(cli, args, timeoutMs = Number.POSITIVE_INFINITY, nodeArgs = []) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [...nodeArgs, cli, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    let peakKb = 0;
    const poll = async () => {
      const status = await readFile(`/proc/${child.pid}/status`, 'utf8').catch(() => '');
      peakKb = Math.max(peakKb, Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? 0));
    };
    const timer = setInterval(poll, 100);
    let timedOut = false;
    const limit =
      timeoutMs === Number.POSITIVE_INFINITY
        ? undefined
        : setTimeout(() => {
            timedOut = true;
            child.kill('SIGKILL');
          }, timeoutMs);
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      clearInterval(timer);
      clearTimeout(limit);
      resolve({ code, signal, timedOut, output, peakKb, wallMs: performance.now() - started });
    });
  });
}

/** This checkout's CLI, as users run it (from dist). */
export const repoCli = join(
  dirname(fileURLToPath(import.meta.url)),
  '..',
  '..',
  'core',
  'cli',
  'bin',
  'longhaul.js',
);

/** An environment of the benches' `--environments` list: `local-bubblewrap` is local, hardened. */
function environmentOf(name, options) {
  const hardened = name === 'local-bubblewrap';
  const all = { ...(hardened ? { isolation: 'bubblewrap' } : {}), ...options };
  return { id: hardened ? 'local' : name, ...(Object.keys(all).length > 0 ? { options: all } : {}) };
}

/**
 * Writes `dir/<name>.yaml`: task `task` of `dir/problems`, one turn of the `ide` harness whose
 * scripted model sends `replies`, in `environment` (with `environmentOptions`), scored by `tests`
 * and `quality`.
 */
export async function writeScriptedExperiment(
  dir,
  { name, task, environment, environmentOptions = {}, replies, turnSeconds = 600 },
) {
  const file = join(dir, `${name}.yaml`);
  const experiment = {
    name,
    source: { id: 'longhaul', options: { path: join(dir, 'problems') } },
    tasks: [task],
    models: { scripted: { backend: 'scripted', replies } },
    harness: { id: 'ide', options: { model: 'scripted', explanation: 'optional' } },
    environment: environmentOf(environment, environmentOptions),
    script: 'checkpoints',
    memory: 'none',
    scorers: ['tests', 'quality'],
    reporters: ['summary'],
    repeats: 1,
    concurrency: 1,
    limits: { turnSeconds, stepSeconds: turnSeconds, turnsPerStep: 1, trialUsd: 0, onError: 'stop' },
  };
  // JSON is YAML.
  await writeFile(file, `${JSON.stringify(experiment, null, 2)}\n`);
  return file;
}

/** The hello step's scores.json and trajectory of the run in `runDir`, if it got that far. */
export async function stepFacts(runDir) {
  const trials = join(runDir, 'trials');
  const [trial] = await readdir(trials).catch(() => []);
  if (!trial) return undefined;
  const stepDir = join(trials, trial, 'steps', '01-hello');
  const scores = JSON.parse(await readFile(join(stepDir, 'scores.json'), 'utf8').catch(() => 'null'));
  const trajectory = await readFile(join(stepDir, 'trajectory.jsonl'), 'utf8').catch(() => '');
  return { scores, trajectory };
}

export const formatMiB = (kb) => `${(kb / 1024).toFixed(1)} MiB`;
