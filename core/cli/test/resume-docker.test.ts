import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { runIdOf } from '@longhaul/core';
import { baseImageRef, connectDocker, labels } from '@longhaul/environment-docker';
import { prerequisites } from '@longhaul/testkit/prerequisites';
import { describe, expect, it } from 'vitest';
import { readEvents, repoRoot, spawnCli, waitForEvent, workDir } from './fixtures/resume/spawn-cli.js';

const run = promisify(execFile);
const example = join(import.meta.dirname, 'fixtures/docker-tally.yaml');

/** What Docker and iptables still hold of a run: containers, volumes, networks, firewall chains. */
async function leftovers(runId: string) {
  const docker = await connectDocker();
  const filters = JSON.stringify({ label: [`${labels.run}=${runId}`] });
  const [containers, volumes, networks] = await Promise.all([
    docker.listContainers({ all: true, filters }),
    docker.listVolumes({ filters }),
    docker.listNetworks({ filters }),
  ]);
  const { stdout } = await run('iptables', ['-w', '-S']);
  const chains = networks.map((n) => `LONGHAUL-${n.Id.slice(0, 12)}`);
  return {
    containers: containers.length,
    volumes: volumes.Volumes?.length ?? 0,
    networks: networks.length,
    chains: chains.filter((chain) => stdout.includes(`-N ${chain}`)),
  };
}

const dockerReady = prerequisites.docker([baseImageRef()]);
const work = workDir('longhaul-resume-docker-', [
  'core/kernel',
  'core/cli',
  'plugins/source-longhaul',
  'harnesses/oracle',
  'plugins/environment-docker',
  'plugins/scripts',
  'plugins/memory-basic',
  'plugins/scorer-tests',
  'plugins/reporter-summary',
]);

describe.skipIf(!dockerReady)('a docker run killed with SIGKILL and resumed', () => {
  it('leaves nothing of the killed attempt: resume removes its containers, network and firewall chain first', async () => {
    const runDir = join(work(), `docker-killed-${process.pid}-${Date.now()}`);
    const runId = runIdOf(runDir);
    const attempt = spawnCli(['run', example, '--run-dir', runDir], repoRoot);
    await waitForEvent(runDir, (e) => e.type === 'turn.start' && e.steps.includes(1), 300_000, attempt);
    attempt.child.kill('SIGKILL');
    await attempt.done;
    const killed = await leftovers(runId);
    expect(killed.containers).toBeGreaterThan(0);
    expect(killed.networks).toBe(1);
    expect(killed.chains).toHaveLength(1);

    const resumed = await spawnCli(['resume', runDir], repoRoot).done;
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(await leftovers(runId)).toEqual({ containers: 0, volumes: 0, networks: 0, chains: [] });

    // The leftovers went before the resumed attempt's first turn, not when it ended.
    const events = await readEvents(runDir);
    const resumedAt = events.findLastIndex((e) => e.type === 'run.start');
    const reclaimed = events.findIndex(
      (e) => e.type === 'log' && e.message.includes('removed what the interrupted attempt left'),
    );
    const firstTurn = events.findIndex((e, i) => i > resumedAt && e.type === 'turn.start');
    expect(reclaimed).toBeGreaterThan(resumedAt);
    expect(reclaimed).toBeLessThan(firstTurn);
    const message = (events[reclaimed] as { message: string }).message;
    expect(message).toMatch(/container longhaul-/);
    expect(message).toContain(`network longhaul-${runId}-none`);
    expect(message).toContain('firewall chain LONGHAUL-');
  }, 1_800_000);
});
