import { execFile } from 'node:child_process';
import { existsSync, realpathSync } from 'node:fs';
import { chmod, chown, cp, mkdir, mkdtemp, realpath, rm, stat } from 'node:fs/promises';
import { arch, platform, release, tmpdir } from 'node:os';
import { basename, dirname, isAbsolute, join, posix, relative, resolve } from 'node:path';
import { promisify } from 'node:util';
import {
  assetExcludes,
  ClassifiedError,
  type Environment,
  excludeMatcher,
  FolderJudgeArea,
  FolderWorkspace,
  missingRequirements,
  parseSize,
  requirementsIssues,
  requirementsProbe,
  requirementsProblem,
  requiresNothing,
  type SandboxSpec,
  type SnapshotStore,
  type Task,
} from '@longhaul/core';
import { confineScript, hardenedPath, hardeningTools, type ReadOnlyMount } from './bubblewrap.js';
import { type Containment, PlainContainment } from './containment.js';
import { HardenedContainment } from './hardened-containment.js';
import { LocalSandbox, type LocalSandboxDirs } from './local-sandbox.js';
import type { LocalOptions } from './options.js';
import { SandboxControls } from './sandbox-controls.js';
import { folderPrefix, reclaimSandboxes, writeLabel } from './sandbox-label.js';
import { limitMechanism } from './sandbox-limits.js';
import { runHostAddress } from './sandbox-network.js';
import {
  chownTree,
  claimSandboxUser,
  privilegeDropProblem,
  reachablePath,
  releaseSandboxUser,
  type SandboxUser,
  unreachableFolder,
} from './sandbox-user.js';

/** Where plain commands look for programs when the runner has no PATH. */
const defaultPath = '/usr/local/bin:/usr/bin:/bin';

function lastLines(text: string, count = 20): string {
  return text.trimEnd().split('\n').slice(-count).join('\n');
}

function within(parent: string, path: string): boolean {
  const rel = relative(parent, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/** Where a hardened sandbox mounts the host's own folders (or its /tmp): no workspace goes there. */
const reserved = [
  '/usr',
  '/bin',
  '/sbin',
  '/lib',
  '/lib32',
  '/lib64',
  '/libx32',
  '/etc',
  '/proc',
  '/dev',
  '/tmp',
];

/**
 * Why a task's workspace cannot go where it asks (`environment.workspace`): under bubblewrap, a
 * path the sandbox's system folders take; without isolation, anywhere but a folder of its own,
 * which a task that requires its path (its tests read /app/...) cannot run with.
 */
function workspaceProblem(task: Pick<Task, 'id' | 'environment'>, hardened: boolean): string[] {
  const { workspace, workspaceRequired } = task.environment;
  if (workspace === undefined) return [];
  if (!posix.isAbsolute(workspace))
    return [`task ${task.id}: environment.workspace ${workspace} is not an absolute path`];
  const path = posix.normalize(workspace).replace(/(.)\/+$/, '$1');
  if (hardened) {
    const taken = path === '/' ? '/' : reserved.find((dir) => path === dir || path.startsWith(`${dir}/`));
    return taken === undefined
      ? []
      : [
          `task ${task.id}: environment.workspace ${workspace} is where a bubblewrap sandbox has its own ${taken}; use another path or the docker environment`,
        ];
  }
  return workspaceRequired === undefined
    ? []
    : [
        `task ${task.id} needs its workspace at ${workspace} (${workspaceRequired}), which local without isolation cannot give: use isolation: bubblewrap or the docker environment`,
      ];
}

/** Opens sandboxes that are temp directories on the host (see LocalSandbox for what that isolates). */
export class LocalEnvironment implements Environment {
  private tools: ReturnType<typeof hardeningTools> | undefined;

  constructor(
    private readonly options: LocalOptions,
    private readonly store?: SnapshotStore,
    /** Relative host paths in `mounts` start here: the experiment file's directory. */
    private readonly baseDir = process.cwd(),
    /** The run directory, which no mount may make visible. */
    private readonly runDir?: string,
  ) {}

  private get base(): string {
    return this.options.root ?? tmpdir();
  }

  async open(spec: SandboxSpec): Promise<LocalSandbox> {
    const hardened = this.options.isolation === 'bubblewrap';
    // Checked before anything is made, so a host that cannot harden leaves nothing behind.
    if (hardened) this.tools ??= hardeningTools();
    const tools = hardened ? await this.tools : undefined;
    const dropping = privilegeDropProblem() === undefined;
    const mounts = hardened ? this.mounts(spec, dropping) : [];
    await mkdir(this.base, { recursive: true });
    const label = `${spec.trialId}-${spec.purpose}`.replace(/[^A-Za-z0-9._-]/g, '-');
    const root = await realpath(await mkdtemp(join(this.base, `${folderPrefix}${label}-`)));
    const id = basename(root);
    let user: SandboxUser | undefined;
    let controls: SandboxControls | undefined;
    let containment: Containment;
    let files: FolderWorkspace;
    let judge: FolderJudgeArea;
    // Beside the workspace, never in it: no pull or snapshot covers it. Plain commands reach it
    // (nothing is isolated there); hardened ones see it only when they run as root.
    const judgeDir = join(root, 'judge');
    const dirs: LocalSandboxDirs = {
      root,
      home: join(root, 'home'),
      tmp: join(root, 'tmp'),
      tmpInside: hardened ? '/tmp' : join(root, 'tmp'),
      path: hardened
        ? hardenedPath
        : dropping
          ? reachablePath(process.env.PATH ?? defaultPath)
          : (process.env.PATH ?? defaultPath),
    };
    // Under bubblewrap the workspace is where the task's programs expect it (IDE-Bench's /app).
    const inside = hardened ? spec.needs.workspace : undefined;
    const owner = { runId: spec.runId, trialId: spec.trialId, purpose: spec.purpose };
    try {
      await writeLabel(root, owner);
      if (dropping) {
        user = await claimSandboxUser(this.options.uids, root);
        // The sandbox's user passes through its folder to the three that are its own.
        await chmod(root, 0o711);
        const blocked = unreachableFolder(root);
        if (blocked !== undefined)
          throw new ClassifiedError(
            'sandbox',
            `environment local: the sandbox's user (uid ${user.uid}) cannot reach ${root}: ${blocked} is closed to other users; set the local option root to a folder every user can pass through (the default, the system temp directory, is)`,
          );
      }
      const workspace = join(root, 'workspace');
      const etc = join(root, 'etc');
      await Promise.all([workspace, dirs.home, dirs.tmp, etc].map((dir) => mkdir(dir)));
      if (user) for (const dir of [workspace, dirs.home, dirs.tmp]) await chown(dir, user.uid, user.gid);
      files = new FolderWorkspace(
        await realpath(workspace),
        excludeMatcher([...this.options.excludes, ...assetExcludes(spec.needs)]),
        parseSize(this.options.maxFileSize),
        {
          ...(user ? { owner: user } : {}),
          ...(inside === undefined ? {} : { inside }),
          // The sandbox's folder, removed with it: its user passes through but cannot list it.
          scratch: root,
        },
      );
      // The sandbox's user holds it too: hardened, its `root` is that user on the host.
      judge = await new FolderJudgeArea(
        judgeDir,
        tools !== undefined,
        tools ? (shared) => confineScript(tools.bwrap, judgeDir, shared) : undefined,
        user,
      ).create();
      controls = await SandboxControls.open(id, this.limitSettings(), user);
      // Again, now with what a reclaim must end and remove if the runner dies.
      await writeLabel(root, {
        ...owner,
        ...(user ? { uid: user.uid } : {}),
        cgroups: controls.limits ? Object.values(controls.limits.v1) : [],
      });
      containment = tools
        ? await HardenedContainment.open({
            tools,
            root,
            paths: {
              workspace: files.root,
              workspaceInside: inside,
              home: dirs.home,
              tmp: dirs.tmp,
              etc,
              judge: judgeDir,
            },
            mounts,
            hostAddress: runHostAddress(spec.runId),
            controls,
          })
        : new PlainContainment(id, controls);
    } catch (error) {
      await controls?.close().catch(() => undefined);
      await rm(root, { recursive: true, force: true });
      if (user) await releaseSandboxUser(user);
      throw error;
    }
    const sandbox = new LocalSandbox(id, files, dirs, this.options, this.store, containment, judge);
    try {
      if (spec.from !== undefined) {
        await sandbox.restore(spec.from);
        // A snapshot may hold a link where an asset's folder goes: the copy must not follow it.
        for (const asset of spec.needs.assets ?? []) await files.plainFolders(dirname(asset));
        await this.copyAssets(spec, files.root, user);
      } else if (spec.task.seed !== undefined) {
        await this.copySeed(spec, files.root);
        // No command of the sandbox has run yet: nothing can swap what the walk goes through.
        if (user) await chownTree(files.root, user);
      }
      await this.setup(spec, sandbox);
    } catch (error) {
      await sandbox.close();
      throw error;
    }
    return sandbox;
  }

  /** The sandbox limits the options ask for, in numbers. */
  private limitSettings() {
    return {
      pids: this.options.pids,
      memoryBytes: parseSize(this.options.memory),
      diskBytes: parseSize(this.options.disk),
    };
  }

  private async copySeed(spec: SandboxSpec, workspace: string): Promise<void> {
    const seed = spec.task.seed!;
    const isDir = await stat(seed).then(
      (s) => s.isDirectory(),
      () => false,
    );
    if (!isDir) {
      throw new ClassifiedError('sandbox', `seed directory ${seed} of task ${spec.task.id} does not exist`);
    }
    await cp(seed, workspace, { recursive: true, verbatimSymlinks: true });
  }

  /**
   * The task's assets are never in a snapshot: a sandbox opened on one gets them from the seed,
   * before any of its commands runs, and its user gets them.
   */
  private async copyAssets(spec: SandboxSpec, workspace: string, user?: SandboxUser): Promise<void> {
    const seed = spec.task.seed;
    if (seed === undefined) return;
    for (const asset of spec.needs.assets ?? []) {
      await cp(join(seed, asset), join(workspace, asset), { recursive: true, verbatimSymlinks: true });
      if (user) await chownTree(join(workspace, asset), user);
    }
  }

  private async setup(spec: SandboxSpec, sandbox: LocalSandbox): Promise<void> {
    for (const command of spec.needs.setup ?? []) {
      const result = await sandbox.exec(['sh', '-c', command], { timeoutMs: this.options.setupTimeoutMs });
      if (result.exitCode === 0 && !result.timedOut) continue;
      const outcome = result.timedOut
        ? `timed out after ${this.options.setupTimeoutMs} ms`
        : `exited with ${result.exitCode}`;
      const output = lastLines(`${result.stdout}\n${result.stderr}`);
      throw new ClassifiedError(
        'sandbox',
        `setup command \`${command}\` of task ${spec.task.id} ${outcome}${output ? `:\n${output}` : ''}`,
      );
    }
  }

  /**
   * The `mounts` option resolved; none may show the task's root (hidden cases) or the run, and
   * each must be reachable by the sandbox's own user (`dropping`: bwrap mounts it as that user).
   */
  private mounts(spec: SandboxSpec, dropping: boolean): ReadOnlyMount[] {
    return this.options.mounts.map((entry) => {
      const [path = '', target] = entry.split(':');
      const written = resolve(this.baseDir, path);
      if (!existsSync(written))
        throw new ClassifiedError('sandbox', `local option mounts: host path ${written} does not exist`);
      // Programs find themselves by their real path (require.resolve follows links).
      const source = realpathSync(written);
      for (const [what, hidden] of [
        ["the task's root (its hidden cases and reference solutions)", spec.task.root],
        ['the run directory', this.runDir],
      ] as const) {
        if (hidden !== undefined && (within(source, hidden) || within(hidden, source)))
          throw new ClassifiedError(
            'sandbox',
            `local option mounts: ${source} would make ${what} visible to the agent (${hidden}); mount only the directories of the programs it needs`,
          );
      }
      const blocked = dropping ? unreachableFolder(source) : undefined;
      if (blocked !== undefined)
        throw new ClassifiedError(
          'sandbox',
          `local option mounts: ${source} cannot be mounted for the sandbox's own user: ${blocked} is closed to other users; mount a copy from a folder every user can pass through`,
        );
      return { source, target: target ?? source };
    });
  }

  /**
   * Refuses tasks whose `environment.requires` this host does not meet (an older python3, a Python
   * package or a program missing), probed with the PATH and `env` its sandboxes' commands get.
   */
  async check(tasks: Pick<Task, 'id' | 'root' | 'environment'>[]): Promise<string[]> {
    const hardened = this.options.isolation === 'bubblewrap';
    const problems: string[] = tasks.flatMap((task) => workspaceProblem(task, hardened));
    const env = {
      ...process.env,
      PATH: hardened ? hardenedPath : (process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin'),
      ...this.options.env,
    };
    const probes = new Map<string, Promise<{ stdout: string }>>();
    for (const task of tasks) {
      const requires = task.environment.requires;
      if (requires === undefined || requiresNothing(requires)) continue;
      const issues = requirementsIssues(requires);
      if (issues.length > 0) {
        problems.push(`task ${task.id}: environment.requires: ${issues.join('; ')}`);
        continue;
      }
      // Tasks of one benchmark mostly ask for the same things: one probe per distinct question.
      const [command, ...args] = requirementsProbe(requires);
      const key = args.join('\0');
      if (!probes.has(key)) probes.set(key, promisify(execFile)(command!, args, { env, timeout: 60_000 }));
      const { stdout } = await probes.get(key)!;
      const missing = missingRequirements(requires, stdout);
      if (missing.length > 0) problems.push(requirementsProblem(task.id, 'on this host', missing));
    }
    return problems;
  }

  /** Removes the sandbox folders of runs whose runner is dead (with `runId`, of that run only). */
  reclaim(options: { runId?: string } = {}): Promise<{ removed: string[] }> {
    return reclaimSandboxes(this.base, options.runId);
  }

  async describe(): Promise<Record<string, unknown>> {
    const user = privilegeDropProblem() === undefined ? 'a uid of its own per sandbox' : 'the runner';
    return {
      environment: 'local',
      isolation: this.options.isolation,
      user,
      limits: {
        pids: {
          limit: this.options.pids,
          by: limitMechanism('pids') ?? (privilegeDropProblem() === undefined ? 'RLIMIT_NPROC' : null),
        },
        memory: { limit: this.options.memory, by: limitMechanism('memory') ?? null },
        disk: { limit: this.options.disk, by: 'RLIMIT_FSIZE and du' },
      },
      platform: platform(),
      arch: arch(),
      release: release(),
      node: process.version,
    };
  }
}
