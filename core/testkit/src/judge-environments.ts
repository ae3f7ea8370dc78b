import { type Environment, type PluginKind, PluginRegistry, type SnapshotStore } from '@longhaul/core';
import { instantiatePlugin, type ServiceName } from './conformance/instantiate.js';
import type { JudgeEnvironment } from './conformance/judge-integrity.js';
import { prerequisite, prerequisites } from './prerequisites.js';

/** A task the environments are asked about: the default image, no network, nothing to set up. */
const probeTask = { id: 'judge-integrity', root: process.cwd(), environment: {} };

/**
 * A plugin of another package, found among the installed ones the way the CLI finds them and made
 * as the kernel makes it: for a test that needs a plugin its own package may not import (a
 * source's grading judged by the scorer that runs it).
 */
export async function installedPlugin<T>(
  kind: PluginKind,
  id: string,
  options: unknown = {},
  services: Partial<Record<ServiceName, unknown>> = {},
  cwd = process.cwd(),
): Promise<T> {
  const registry = await PluginRegistry.discover({ cwd });
  await registry.load([{ kind, id }]);
  const found = registry.get(kind, id);
  if (!found) throw new Error(`the ${kind} plugin '${id}' is not installed (from ${cwd})`);
  return instantiatePlugin<T>(found.definition, options, services);
}

/**
 * The shipped environments a judge must hold in, found among the installed plugins the way the
 * CLI finds them (testkit imports no plugin): `local` (plain), `local-bubblewrap` and `docker`.
 * Each one this machine lacks (bubblewrap, a Docker daemon with the base image) is left out with
 * the prerequisites' line, or fails the test file under CI.
 */
export async function judgeEnvironments(cwd = process.cwd()): Promise<JudgeEnvironment[]> {
  const registry = await PluginRegistry.discover({ cwd });
  await registry.load([
    { kind: 'environment', id: 'local' },
    { kind: 'environment', id: 'docker' },
  ]);
  const definition = (id: string) => {
    const found = registry.get('environment', id);
    if (!found) throw new Error(`the environment plugin '${id}' is not installed (from ${cwd})`);
    return found.definition;
  };
  const make = (id: string, options: Record<string, unknown>) => (snapshots: SnapshotStore) =>
    instantiatePlugin<Environment>(definition(id), options, { SnapshotStore: snapshots });
  const environments: JudgeEnvironment[] = [{ name: 'local', isolated: false, make: make('local', {}) }];
  if (prerequisites.bubblewrap())
    environments.push({
      name: 'local-bubblewrap',
      isolated: true,
      make: make('local', { isolation: 'bubblewrap' }),
    });
  const docker = make('docker', {});
  const dockerReady = await prerequisite({
    name: "Docker with longhaul's base image",
    install: 'install the Debian package docker.io, start dockerd and run `longhaul images build`',
    probe: async () => {
      const { FakeSnapshotStore } = await import('./fakes/snapshot-store.js');
      try {
        const problems = await docker(new FakeSnapshotStore()).check?.([probeTask]);
        return problems && problems.length > 0 ? problems.join('; ') : undefined;
      } catch (error) {
        return (error as Error).message;
      }
    },
  });
  if (dockerReady) environments.push({ name: 'docker', isolated: true, make: docker });
  return environments;
}
