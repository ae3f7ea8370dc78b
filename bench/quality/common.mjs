// Shared by bench.mjs and agreement.mjs: the trees measured and how mccabe is run over them.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const pythonTree = '/usr/lib/python3.11';
export const scriptTree = fileURLToPath(new URL('../../node_modules/typescript/lib', import.meta.url));

/** Runs mccabe over the files in one /usr/bin/python3 process; returns its rows and its own timing. */
export function runMccabe(paths) {
  const driver = fileURLToPath(new URL('mccabe_all.py', import.meta.url));
  const started = performance.now();
  const result = spawnSync('/usr/bin/python3', [driver], {
    input: paths.join('\n'),
    maxBuffer: 1 << 30,
    encoding: 'utf8',
  });
  const wallMs = performance.now() - started;
  if (result.status !== 0) throw new Error(`mccabe failed (is python3-mccabe installed?): ${result.stderr}`);
  const lines = result.stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
  const { seconds, cpu_seconds: cpuSeconds } = lines.pop();
  return { rows: lines, analysisMs: seconds * 1000, cpuMs: cpuSeconds * 1000, wallMs };
}
