import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import Docker from 'dockerode';
import { describe, expect, it } from 'vitest';
import { chainPrefix, installedChains } from '../src/firewall.js';
import { prune } from '../src/index.js';
import { skipWithoutDocker } from './docker-ready.js';

const fixture = fileURLToPath(new URL('./fixtures/open-and-hang.mjs', import.meta.url));

async function leftovers(docker: Docker, runId: string) {
  const filters = JSON.stringify({ label: [`longhaul.run=${runId}`] });
  const [containers, volumes, networks] = await Promise.all([
    docker.listContainers({ all: true, filters }),
    docker.listVolumes({ filters }),
    docker.listNetworks({ filters }),
  ]);
  return { containers: containers.length, volumes: volumes.Volumes?.length ?? 0, networks: networks.length };
}

if (!skipWithoutDocker()) {
  describe('prune', () => {
    it('removes everything a SIGKILLed run left behind, and nothing of a live one', async () => {
      const docker = new Docker();
      const runId = `prune-${process.pid}-${Date.now()}`;
      const child = spawn(process.execPath, [fixture, runId], { stdio: ['ignore', 'pipe', 'inherit'] });
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString();
      });
      for (let i = 0; i < 300 && !output.includes('ready') && child.exitCode === null; i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(output, 'the fixture process did not open its sandboxes').toContain('ready');
      const networkId = (
        await docker.listNetworks({ filters: JSON.stringify({ label: [`longhaul.run=${runId}`] }) })
      )[0]?.Id;
      expect(await leftovers(docker, runId)).toEqual({ containers: 2, volumes: 2, networks: 1 });

      const whileAlive = await prune(docker, { runId });
      expect(whileAlive.containers).toEqual([]);
      expect(whileAlive.kept).toBeGreaterThan(0);
      expect(await leftovers(docker, runId)).toEqual({ containers: 2, volumes: 2, networks: 1 });

      child.kill('SIGKILL');
      await once(child, 'exit');
      const report = await prune(docker, { runId });
      expect(report.containers).toHaveLength(2);
      expect(await leftovers(docker, runId)).toEqual({ containers: 0, volumes: 0, networks: 0 });
      expect(await installedChains()).not.toContain(`${chainPrefix}${networkId?.slice(0, 12)}`);
    });
  });
}
