// Docker environment: how long a sandbox takes to open and close, and what one command costs,
// beside the bare docker CLI measured in the same run. Needs dockerd, the base image
// (`longhaul images build`) and a build (`npx turbo run build --filter=@longhaul/environment-docker`).
//
//   node bench/docker/sandbox.mjs [--rounds 15] [--execs 40]
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { parseArgs } from 'node:util';
import { baseImageRef, DockerEnvironment, dockerOptions } from '@longhaul/environment-docker';

const { values } = parseArgs({
  options: { rounds: { type: 'string', default: '15' }, execs: { type: 'string', default: '40' } },
});
const rounds = Number(values.rounds);
const execs = Number(values.execs);
const image = baseImageRef();
const runId = `bench-${process.pid}`;
const task = { id: 'bench', root: tmpdir() };
const spec = (trialId) => ({ runId, trialId, purpose: 'agent', task, needs: {} });

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

async function timed(times, fn) {
  const samples = [];
  for (let i = 0; i < times; i++) {
    const started = performance.now();
    await fn(i);
    samples.push(performance.now() - started);
  }
  return { median: median(samples), min: Math.min(...samples), max: Math.max(...samples), n: times };
}

const docker = (...args) => execFileSync('docker', args, { stdio: ['ignore', 'pipe', 'pipe'] });
const environment = new DockerEnvironment(dockerOptions.parse({}));

const rows = [];
const row = (what, stats) => rows.push({ what, ...stats });

// Warm the image and page cache before measuring anything.
docker('run', '--rm', image, 'true');
await (await environment.open(spec('warm'))).close();

row('docker run --rm IMAGE true (CLI)', await timed(rounds, () => docker('run', '--rm', image, 'true')));
row(
  'docker run --rm --init --network NET IMAGE true (CLI)',
  await (async () => {
    docker('network', 'create', '--internal', `${runId}-cli`);
    try {
      return await timed(rounds, () =>
        docker('run', '--rm', '--init', '--network', `${runId}-cli`, image, 'true'),
      );
    } finally {
      docker('network', 'rm', `${runId}-cli`);
    }
  })(),
);
row(
  'sandbox open+close, first of a run (network made and removed)',
  await timed(rounds, async (i) => (await environment.open(spec(`cold-${i}`))).close()),
);
const keeper = await environment.open(spec('keeper'));
row(
  'sandbox open+close, run network already up',
  await timed(rounds, async (i) => (await environment.open(spec(`warm-${i}`))).close()),
);
row('sandbox.exec(["true"])', await timed(execs, () => keeper.exec(['true'])));
row('docker exec CONTAINER true (CLI)', await timed(execs, () => docker('exec', `${keeper.id}`, 'true')));
await keeper.writeFile('probe.txt', 'x'.repeat(1024));
row('sandbox.readFile (1 KiB)', await timed(execs, () => keeper.readFile('probe.txt')));
row('sandbox.writeFile (1 KiB)', await timed(execs, () => keeper.writeFile('probe.txt', 'y'.repeat(1024))));
await keeper.close();

const width = Math.max(...rows.map((r) => r.what.length));
console.log(`docker environment bench (${image}, median of n, ms)`);
console.log(`${'what'.padEnd(width)}  median     min     max   n`);
for (const r of rows) {
  const f = (v) => v.toFixed(1).padStart(7);
  console.log(`${r.what.padEnd(width)}  ${f(r.median)} ${f(r.min)} ${f(r.max)} ${String(r.n).padStart(3)}`);
}
const execOverhead = rows.find((r) => r.what.startsWith('sandbox.exec')).median;
const cliExec = rows.find((r) => r.what.startsWith('docker exec')).median;
console.log(`per-exec overhead over the docker CLI's exec: ${(execOverhead - cliExec).toFixed(1)} ms`);
