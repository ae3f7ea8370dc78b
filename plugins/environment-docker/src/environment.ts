import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chown, readdir } from 'node:fs/promises';
import { posix, resolve } from 'node:path';
import {
  assetExcludes,
  ClassifiedError,
  type Environment,
  excludeMatcher,
  FolderWorkspace,
  missingRequirements,
  readDirectoryFiles,
  removeStaleStampsFolders,
  requirementsIssues,
  requirementsProbe,
  requirementsProblem,
  requiresNothing,
  type SandboxSpec,
  type SnapshotStore,
  type Task,
} from '@longhaul/core';
import type Docker from 'dockerode';
import { agentUser, packFiles } from './archive.js';
import { baseImageRef, baseRecipe } from './base-image.js';
import { Containment } from './containment.js';
import { dockerClient, isLocalEndpoint, type TlsFiles } from './endpoint.js';
import {
  type ImageRequest,
  imageProblem,
  plainImageRef,
  type ResolvedImage,
  resolveImage,
} from './images.js';
import { dockerName, labels, ownerLabel } from './labels.js';
import { acquireNetwork, forgetNetwork, NetworkGone, type RunNetwork, releaseNetwork } from './network.js';
import { type DockerOptions, parseSize } from './options.js';
import { ContainerCgroup, runsInContainer } from './proc.js';
import { prune, removedNames } from './prune.js';
import { probeImage } from './requirements.js';
import { DockerSandbox } from './sandbox.js';
import { workspaceVolume } from './volume.js';

/** Makes the agent user and the workspace in images that were not built by `longhaul images build`. */
function agentSetup(workspace: string): string {
  const { name, uid, gid, home } = agentUser;
  return [
    `grep -q '^${name}:' /etc/passwd 2>/dev/null || echo '${name}:x:${uid}:${gid}:${name}:${home}:/bin/sh' >> /etc/passwd`,
    `grep -q '^${name}:' /etc/group 2>/dev/null || echo '${name}:x:${gid}:' >> /etc/group`,
    `mkdir -p ${home} '${workspace}'`,
    `chown ${uid}:${gid} ${home} '${workspace}'`,
  ].join(' && ');
}

/** The host folder of a container's writable layer, where its storage driver names one (overlay2). */
function upperDir(info: Docker.ContainerInspectInfo): string[] {
  const upper = (info.GraphDriver?.Data as Record<string, unknown> | undefined)?.UpperDir;
  return typeof upper === 'string' && upper.startsWith('/') ? [upper] : [];
}

/** How long a daemon may take to answer a ping before its endpoint counts as dead. */
const pingTimeoutMs = 30_000;
/** Times a sandbox tries to join its run's network when other processes of the run keep removing it. */
const networkAttempts = 3;

/**
 * A connection to the Docker daemon (the default one, or `endpoint`) that says what to do when
 * there is none. A dead endpoint is a sandbox fault after at most 30 s, never a hang.
 */
export async function connectDocker(docker?: Docker, endpoint?: string, tls?: TlsFiles): Promise<Docker> {
  const client = docker ?? dockerClient(endpoint, tls);
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      client.ping(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer in ${pingTimeoutMs / 1000} s`)), pingTimeoutMs);
      }),
    ]);
    return client;
  } catch (error) {
    const where = endpoint ?? process.env.DOCKER_HOST ?? '/var/run/docker.sock';
    throw new ClassifiedError(
      'sandbox',
      `cannot reach the Docker daemon at ${where} (${(error as Error).message}); start dockerd or set DOCKER_HOST`,
      { cause: error },
    );
  } finally {
    clearTimeout(timer);
  }
}

function parseMount(
  spec: string,
  baseDir: string,
): { Type: 'bind'; Source: string; Target: string; ReadOnly: true } {
  const [path = '', target] = spec.split(':');
  const source = resolve(baseDir, path);
  if (!existsSync(source))
    throw new ClassifiedError('sandbox', `docker option mounts: host path ${source} does not exist`);
  return { Type: 'bind', Source: source, Target: target ?? source, ReadOnly: true };
}

/**
 * Opens one container per sandbox (so per trial, and per scorer run over a snapshot) on the run's
 * network. Hidden tests never meet the agent: scorers open their own sandbox from the step's
 * snapshot and copy the cases into that one only.
 */
export class DockerEnvironment implements Environment {
  /** One connection per endpoint of the `host` option (one, the default daemon, without it). */
  private readonly daemons: { endpoint?: string; docker?: Promise<Docker> }[];
  private next = 0;
  private readonly images = new Map<string, ResolvedImage>();
  /** The named or base images `check` found for its tasks. */
  private readonly planned = new Set<string>();
  /** Daemons whose storage driver refused a size quota: the disk watch alone limits their sandboxes. */
  private readonly quotaless = new WeakSet<Docker>();

  constructor(
    private readonly options: DockerOptions,
    private readonly store?: SnapshotStore,
    /** Relative host paths in `mounts` start here: the experiment file's directory. */
    private readonly baseDir = process.cwd(),
    private readonly client?: Docker,
  ) {
    const hosts = [options.host ?? []].flat();
    this.daemons = hosts.length === 0 ? [{}] : hosts.map((endpoint) => ({ endpoint }));
  }

  private connect(
    daemon = this.daemons[0] as { endpoint?: string; docker?: Promise<Docker> },
  ): Promise<Docker> {
    daemon.docker ??= connectDocker(this.client, daemon.endpoint, this.options.tls);
    daemon.docker.catch(() => {
      daemon.docker = undefined;
    });
    return daemon.docker;
  }

  async open(spec: SandboxSpec): Promise<DockerSandbox> {
    // Round-robin over the endpoints: trials spread evenly over the daemons.
    const daemon = this.daemons[this.next++ % this.daemons.length] as (typeof this.daemons)[number];
    if (!isLocalEndpoint(daemon.endpoint))
      throw new ClassifiedError(
        'sandbox',
        `docker option host: ${daemon.endpoint} is a remote daemon; sandboxes need one on this machine (unix://), because the environment kills process trees, reads cgroup counters and guards the host from here`,
      );
    const docker = await this.connect(daemon);
    const image = await resolveImage(docker, {
      taskId: spec.task.id,
      taskRoot: spec.task.root,
      needs: spec.needs,
      image: this.options.image,
      buildTimeoutMs: this.options.buildTimeoutMs,
      buildNetwork: this.options.buildNetwork,
    });
    this.images.set(image.ref, image);
    const workspace = this.workspaceFor(spec.needs);
    const mode = this.options.network ?? spec.needs.network ?? 'none';
    for (let attempt = 1; ; attempt++) {
      const network = await acquireNetwork(docker, {
        runId: spec.runId,
        mode,
        firewall: this.options.firewall,
        hostPorts: this.options.hostPorts,
      });
      let container: Docker.Container | undefined;
      try {
        container = await this.create(docker, spec, image, network, workspace);
        return await this.prepare(docker, container, spec, image, network, workspace);
      } catch (error) {
        await container?.remove({ force: true, v: true }).catch(() => undefined);
        // Another process of the run removed the network between acquiring and attaching: make it again.
        const gone = error instanceof NetworkGone;
        if (gone) await forgetNetwork(network);
        else await releaseNetwork(docker, network);
        if (gone && attempt < networkAttempts) continue;
        if (error instanceof ClassifiedError) throw error;
        throw new ClassifiedError(
          'sandbox',
          `opening a docker sandbox for ${spec.trialId} failed: ${(error as Error).message}`,
          { cause: error },
        );
      }
    }
  }

  /** Where a task's workspace goes: the option, else where the task asks for it, else /workspace. */
  private workspaceFor(needs: SandboxSpec['needs']): string {
    return this.options.workspace ?? needs.workspace ?? '/workspace';
  }

  private async create(
    docker: Docker,
    spec: SandboxSpec,
    image: ResolvedImage,
    network: RunNetwork,
    workspace: string,
  ) {
    const memory = parseSize(this.options.memory);
    const disk = parseSize(this.options.disk);
    const tags = {
      [labels.run]: spec.runId,
      [labels.trial]: spec.trialId,
      [labels.purpose]: spec.purpose,
      [labels.task]: spec.task.id,
      [labels.owner]: ownerLabel(),
    };
    const config = (quota: boolean): Docker.ContainerCreateOptions => ({
      name: dockerName(`longhaul-${spec.trialId}-${spec.purpose}-${randomBytes(3).toString('hex')}`),
      Image: image.ref,
      Entrypoint: ['sleep'],
      Cmd: ['infinity'],
      Labels: tags,
      Hostname: 'sandbox',
      WorkingDir: workspace,
      HostConfig: {
        Init: true,
        NetworkMode: network.name,
        Memory: memory,
        MemorySwap: memory,
        NanoCpus: Math.round(this.options.cpus * 1e9),
        PidsLimit: this.options.pids,
        // No file grows past the disk limit; the sandbox's disk watch counts the files together.
        Ulimits: [{ Name: 'fsize', Soft: disk, Hard: disk }],
        ...(quota ? { StorageOpt: { size: String(disk) } } : {}),
        SecurityOpt: ['no-new-privileges'],
        CapDrop: ['NET_RAW'],
        Mounts: [
          {
            Type: 'volume',
            Source: '',
            Target: workspace,
            VolumeOptions: { NoCopy: false, Labels: tags, DriverConfig: { Name: 'local', Options: {} } },
          },
          ...this.options.mounts.map((m) => parseMount(m, this.baseDir)),
        ],
      },
    });
    const container = await this.createQuoted(docker, config);
    try {
      await container.start();
    } catch (error) {
      // A container that never started is still the daemon's (e.g. its network was removed meanwhile).
      await container.remove({ force: true, v: true }).catch(() => undefined);
      if (/network \S+ not found/.test(String(error))) throw new NetworkGone(network.name, { cause: error });
      throw error;
    }
    return container;
  }

  /**
   * Creates the container with a size quota on its writable layer, or without one on a daemon
   * whose storage driver has none (overlay2 on ext4): its disk watch limits it there alone.
   */
  private async createQuoted(
    docker: Docker,
    config: (quota: boolean) => Docker.ContainerCreateOptions,
  ): Promise<Docker.Container> {
    if (!this.quotaless.has(docker)) {
      try {
        return await docker.createContainer(config(true));
      } catch (error) {
        if (!/storage-opt/i.test(String(error))) throw error;
        this.quotaless.add(docker);
      }
    }
    return docker.createContainer(config(false));
  }

  private async prepare(
    docker: Docker,
    container: Docker.Container,
    spec: SandboxSpec,
    image: ResolvedImage,
    network: RunNetwork,
    workspace: string,
  ): Promise<DockerSandbox> {
    const info = await container.inspect();
    if (!(await runsInContainer(info.State.Pid, info.Id))) {
      throw new ClassifiedError(
        'sandbox',
        'the Docker daemon runs on another machine: the docker environment needs it on this host (it kills process trees, reads cgroup counters and guards the host from here)',
      );
    }
    const attached = info.NetworkSettings.Networks[network.name];
    // The name found a network made again by another process of the run: this one's is gone.
    if (attached !== undefined && attached.NetworkID !== network.id) throw new NetworkGone(network.name);
    const ip = attached?.IPAddress;
    if (!ip)
      throw new ClassifiedError(
        'sandbox',
        `container ${info.Id.slice(0, 12)} got no address on ${network.name}`,
      );
    let disposed = false;
    const cgroup = await ContainerCgroup.of(info.State.Pid);
    const volume = await workspaceVolume(info, workspace);
    // A fresh volume at a path the image lacks (a task's /app) is root's: the agent works in it.
    await chown(volume.root, volume.owner.uid, volume.owner.gid);
    const files = new FolderWorkspace(
      volume.root,
      excludeMatcher([...this.options.excludes, ...assetExcludes(spec.needs)]),
      parseSize(this.options.maxFileSize),
      { inside: workspace, owner: volume.owner },
    );
    const sandbox = new DockerSandbox({
      docker,
      container,
      ip,
      hostAddress: network.gateway,
      cgroup,
      containment: await Containment.of(cgroup, info.State.Pid),
      options: this.options,
      store: this.store,
      files,
      workspace,
      diskPaths: [volume.root, ...upperDir(info)],
      beforeCommand: async () => network.firewall?.refresh(),
      dispose: async () => {
        if (disposed) return;
        disposed = true;
        await files.dispose();
        await container.remove({ force: true, v: true }).catch((error: { statusCode?: number }) => {
          if (error.statusCode !== 404)
            throw new ClassifiedError('sandbox', `removing container ${info.Id.slice(0, 12)} failed`, {
              cause: error,
            });
        });
        await releaseNetwork(docker, network);
      },
    });
    if (!image.base) await this.rootScript(sandbox, agentSetup(workspace), 'creating the agent user');
    // The volume starts with what the image holds at that path (a Dockerfile's WORKDIR after
    // `COPY . .`, its build's outputs), root's: the agent works on it as on the seed.
    if ((await readdir(volume.root)).length > 0)
      await this.rootScript(
        sandbox,
        `chown -R ${agentUser.uid}:${agentUser.gid} '${workspace}'`,
        "handing the image's workspace to the agent",
      );
    if (spec.from !== undefined) {
      await sandbox.restore(spec.from);
    }
    // A snapshot never holds the task's assets: a sandbox opened on one gets them from the seed.
    const seeded = spec.from === undefined ? undefined : (spec.needs.assets ?? []);
    if (spec.task.seed !== undefined && seeded?.length !== 0) {
      const seed = await readDirectoryFiles(spec.task.seed);
      // A snapshot may hold a link where an asset's folder goes: the archive must not follow it.
      for (const asset of seeded ?? []) await files.plainFolders(posix.dirname(asset));
      const wanted = seeded
        ? seed.filter((file) =>
            seeded.some((asset) => file.path === asset || file.path.startsWith(`${asset}/`)),
          )
        : seed;
      await container.putArchive(packFiles(wanted), { path: workspace });
    }
    const setup = spec.needs.setup ?? [];
    for (const command of setup) await this.rootScript(sandbox, command, `setup command "${command}"`);
    if (setup.length > 0) {
      await this.rootScript(
        sandbox,
        `chown -R ${agentUser.uid}:${agentUser.gid} '${workspace}'`,
        'handing the workspace to the agent',
      );
    }
    return sandbox;
  }

  private async rootScript(sandbox: DockerSandbox, script: string, what: string): Promise<void> {
    const result = await sandbox.exec(['sh', '-c', script], {
      user: 'root',
      timeoutMs: this.options.setupTimeoutMs,
    });
    if (result.exitCode !== 0) {
      const output = `${result.stdout}${result.stderr}`.trim().split('\n').slice(-20).join('\n');
      throw new ClassifiedError(
        'sandbox',
        `${what} failed (exit ${result.exitCode}${result.timedOut ? ', timed out' : ''}):\n${output}`,
      );
    }
  }

  /**
   * Removes the containers, volumes, networks and firewall chains of runs whose process is dead
   * (with `runId`, only that run's), and the stamps folders of dead processes: what a killed run
   * left behind.
   */
  async reclaim(options: { runId?: string }): Promise<{ removed: string[] }> {
    const removed: string[] = [];
    // prune also drops this host's firewall chains: only daemons on this machine are reclaimed.
    for (const daemon of this.daemons.filter((d) => isLocalEndpoint(d.endpoint)))
      removed.push(...removedNames(await prune(await this.connect(daemon), { runId: options.runId })));
    // The stamps of a killed runner's sandboxes, kept in the system's temp folder (see FolderWorkspace).
    for (const name of await removeStaleStampsFolders()) removed.push(`stamps folder ${name}`);
    return { removed };
  }

  /**
   * What keeps tasks from running: an image missing or not buildable, or (probed once per image in
   * a throwaway container) what the task's image lacks of its `environment.requires`.
   */
  async check(tasks: Pick<Task, 'id' | 'root' | 'environment'>[]): Promise<string[]> {
    const request = (task: Pick<Task, 'id' | 'root' | 'environment'>): ImageRequest => ({
      taskId: task.id,
      taskRoot: task.root,
      needs: task.environment,
      image: this.options.image,
      buildTimeoutMs: this.options.buildTimeoutMs,
      buildNetwork: this.options.buildNetwork,
    });
    const problems: string[] = tasks.flatMap((task) => this.workspaceProblem(task));
    // Every endpoint must be up and hold the images: a trial may land on any of them.
    for (const daemon of this.daemons) {
      let docker: Docker;
      try {
        docker = await this.connect(daemon);
      } catch (error) {
        problems.push((error as Error).message);
        continue;
      }
      const where = daemon.endpoint === undefined ? '' : ` (on ${daemon.endpoint})`;
      const probes = new Map<string, Promise<string>>();
      for (const task of tasks) {
        const problem = await imageProblem(docker, request(task));
        if (problem !== undefined) {
          problems.push(`${problem}${where}`);
          continue;
        }
        const planned = plainImageRef(request(task));
        if (planned !== undefined) this.planned.add(planned);
        const requires = task.environment.requires;
        if (requires === undefined || requiresNothing(requires)) continue;
        const issues = requirementsIssues(requires);
        if (issues.length > 0) {
          problems.push(`task ${task.id}: environment.requires: ${issues.join('; ')}`);
          continue;
        }
        if (planned === undefined) continue;
        // One probe per image and question; tasks asking the same share it.
        const key = JSON.stringify([planned, requirementsProbe(requires)]);
        if (!probes.has(key)) probes.set(key, probeImage(docker, planned, requires, this.options.env));
        const missing = missingRequirements(requires, await probes.get(key)!);
        if (missing.length > 0)
          problems.push(requirementsProblem(task.id, `in image ${planned}${where}`, missing));
      }
    }
    return [...new Set(problems)];
  }

  /** Why a task's workspace cannot go where it must: the `workspace` option puts it elsewhere, or at /judge. */
  private workspaceProblem(task: Pick<Task, 'id' | 'environment'>): string[] {
    const { workspace: wanted, workspaceRequired } = task.environment;
    const workspace = this.workspaceFor(task.environment);
    if (!posix.isAbsolute(workspace))
      return [`task ${task.id}: environment.workspace ${workspace} is not an absolute path`];
    if (`${workspace.replace(/\/+$/, '')}/`.startsWith('/judge/') || workspace === '/')
      return [
        `task ${task.id}: the workspace cannot be at ${workspace}: that is where the judge's area goes`,
      ];
    if (
      workspaceRequired !== undefined &&
      wanted !== undefined &&
      posix.normalize(wanted) !== posix.normalize(workspace)
    )
      return [
        `task ${task.id} needs its workspace at ${wanted} (${workspaceRequired}), but the docker option workspace puts it at ${workspace}: leave the option out`,
      ];
    return [];
  }

  /** Docker's version and the id of every image this environment used (or would use): for lock.json. */
  async describe(): Promise<Record<string, unknown>> {
    const docker = await this.connect();
    const version = await docker.version();
    const images: Record<string, string> = {};
    for (const [ref, image] of this.images) images[ref] = image.id;
    // Before any sandbox opened (lock.json is written first at the start of a run): the images
    // `check` found for the tasks, else the default one.
    if (this.images.size === 0) {
      for (const ref of this.planned.size > 0 ? this.planned : [this.options.image ?? baseImageRef()]) {
        const id = await docker
          .getImage(ref)
          .inspect()
          .then((i) => i.Id)
          .catch(() => undefined);
        if (id !== undefined) images[ref] = id;
      }
    }
    return { engine: version.Version, api: version.ApiVersion, images, baseRecipe };
  }
}
