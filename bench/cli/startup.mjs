// Where a run's start-up goes: the CPU and wall time of each phase from a fresh `node` to the
// first trial.start of examples/quickstart.yaml, the median of a few fresh processes. CPU time is
// the process's own (user + system), so it says more than wall time on a machine shared with
// other work. Needs a build (`npx turbo run build`); run `node --cpu-prof bench/cli/startup.mjs
// --child` to profile one process.
//
//   node bench/cli/startup.mjs [--runs 5] [--experiment examples/quickstart.yaml]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '5' },
    experiment: { type: 'string', default: 'examples/quickstart.yaml' },
    child: { type: 'boolean', default: false },
  },
});
const root = resolve(import.meta.dirname, '../..');
const experiment = resolve(root, values.experiment);

if (values.child) await child();
else parent();

/** One start-up, phase by phase, printed as one JSON line. */
async function child() {
  const cpu = () => {
    const { user, system } = process.cpuUsage();
    return (user + system) / 1000;
  };
  const phases = [];
  let last = { cpu: cpu(), wall: performance.now() };
  phases.push({ phase: 'node start', cpu: last.cpu, wall: last.wall });
  const mark = (phase) => {
    const now = { cpu: cpu(), wall: performance.now() };
    phases.push({ phase, cpu: now.cpu - last.cpu, wall: now.wall - last.wall });
    last = now;
  };
  await import(join(root, 'core/cli/dist/main.js'));
  mark('CLI entry');
  // The module the CLI's `@longhaul/core` resolves to (the workspace link's real path).
  const core = await import(join(root, 'core/kernel/dist/index.js'));
  mark('kernel import');
  const baseDir = resolve(experiment, '..');
  const registry = await core.PluginRegistry.discover({ cwd: root, baseDir });
  mark('plugin discovery');
  await registry.load(namedPlugins((await core.readYaml(experiment)).value));
  mark('plugin imports');
  const loaded = await core.loadExperiment(experiment, { cwd: root, registry });
  mark('tasks and cases');
  const dir = mkdtempSync(join(tmpdir(), 'longhaul-startup-'));
  try {
    await new Promise((started, failed) => {
      core
        .startRun(loaded, {
          runDir: join(dir, 'run'),
          onEvent: (event) => event.type === 'trial.start' && started(),
        })
        .catch(failed);
    });
    mark('run start → trial.start');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  process.stdout.write(`${JSON.stringify(phases)}\n`);
  process.exit(0);
}

/** The plugins an experiment names, as `registry.load` takes them. */
function namedPlugins(config) {
  const fields = {
    source: 'source',
    harness: 'harness',
    environment: 'environment',
    script: 'script',
    memory: 'memory',
    scorers: 'scorer',
    reporters: 'reporter',
    executor: 'executor',
  };
  return Object.entries(fields).flatMap(([field, kind]) =>
    [config[field] ?? []].flat().map((ref) => ({ kind, id: typeof ref === 'string' ? ref : ref.id })),
  );
}

function parent() {
  const runs = Number(values.runs);
  const load = () =>
    loadavg()
      .map((n) => n.toFixed(2))
      .join(' ');
  const loadBefore = load();
  const results = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    const out = spawnSync(process.execPath, [import.meta.filename, '--child', '--experiment', experiment], {
      cwd: root,
      encoding: 'utf8',
      env: { ...process.env, PATH: `/usr/bin:${process.env.PATH}` },
    });
    const wall = performance.now() - started;
    if (out.status !== 0) throw new Error(`start-up run failed (exit ${out.status}):\n${out.stderr}`);
    const phases = JSON.parse(out.stdout.trim().split('\n').at(-1));
    results.push({ phases, wall });
  }
  const median = (list) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];
  console.log(`${values.experiment}: start-up to the first trial.start, median of ${runs} fresh processes`);
  console.log(`${'phase'.padEnd(26)}${'cpu ms'.padStart(8)}${'wall ms'.padStart(9)}`);
  for (const [index, { phase }] of results[0].phases.entries()) {
    const cpu = median(results.map((r) => r.phases[index].cpu));
    const wall = median(results.map((r) => r.phases[index].wall));
    console.log(`${phase.padEnd(26)}${cpu.toFixed(0).padStart(8)}${wall.toFixed(0).padStart(9)}`);
  }
  const totalCpu = results.map((r) => r.phases.reduce((sum, p) => sum + p.cpu, 0));
  const totalWall = median(results.map((r) => r.wall));
  console.log(
    `${'total'.padEnd(26)}${median(totalCpu).toFixed(0).padStart(8)}${totalWall.toFixed(0).padStart(9)}`,
  );
  console.log(
    `(cpu per run: ${totalCpu.map((ms) => ms.toFixed(0)).join(', ')})   load ${loadBefore} → ${load()}`,
  );
}
