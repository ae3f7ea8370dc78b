// What the runner benches under bench/ share: a one-step "print hello" task, and a `longhaul`
// run of the CLI whose peak RSS is measured.
import { spawn } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

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
 * Runs the CLI at `cli` and polls its VmHWM (the kernel's own peak RSS counter) until it exits,
 * or kills it after `timeoutMs`.
 */
export function runMeasured(cli, args, timeoutMs = Number.POSITIVE_INFINITY) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [cli, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
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
