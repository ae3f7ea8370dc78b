import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream, existsSync } from 'node:fs';
import {
  appendFile,
  chmod,
  chown,
  copyFile,
  cp,
  mkdir,
  mkdtemp,
  rename,
  rm,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type Docker from 'dockerode';
import { agentUser } from './archive.js';

/**
 * The project's base image: Debian minbase with the toolchains tasks need, made without any image
 * registry (debootstrap from a Debian mirror, then `docker import`). Node is the host's own node
 * binary (and npm), so sandboxes run the same Node version as the runner; Debian's nodejs lags.
 */
export const baseRecipe = {
  version: 1,
  suite: 'bookworm',
  packages: [
    'python3',
    'python3-pytest',
    'python3-pytest-timeout',
    'python3-yaml',
    'git',
    'ca-certificates',
    'procps',
  ],
} as const;

/**
 * The same recipe on Debian 13 (trixie), whose python3 is 3.13: for tasks that need a newer Python
 * than Debian 12's 3.11 (SlopCodeBench's solutions may use 3.12 syntax). Its hash differs from
 * the Debian 12 recipe's, so both images live side by side.
 */
export const trixieRecipe = { ...baseRecipe, suite: 'trixie' } as const;

export type BaseRecipe = typeof baseRecipe | typeof trixieRecipe;

/** The base images there are, each with the python3 its Debian release ships, oldest first. */
export const baseVariants: readonly { recipe: BaseRecipe; python: string }[] = [
  { recipe: baseRecipe, python: '3.11' },
  { recipe: trixieRecipe, python: '3.13' },
];

export type BaseSuite = BaseRecipe['suite'];

export function recipeOf(suite: BaseSuite = 'bookworm'): BaseRecipe {
  const variant = baseVariants.find((item) => item.recipe.suite === suite);
  if (variant === undefined)
    throw new Error(`no base image for Debian ${suite} (there are: bookworm, trixie)`);
  return variant.recipe;
}

export const baseRepository = 'longhaul/base';

/** Toolchains the base image provides, as tasks name them in `environment.toolchains`. */
export const baseToolchains = [
  'python',
  'python3',
  'pytest',
  'node',
  'nodejs',
  'npm',
  'git',
  'shell',
  'bash',
  'sh',
];

function npmDirectory(): string | undefined {
  const dir = join(dirname(process.execPath), '..', 'lib', 'node_modules', 'npm');
  return existsSync(join(dir, 'package.json')) ? dir : undefined;
}

/** The recipe hash that names the base image; it changes with the recipe, the Node version and the CPU. */
export function baseImageHash(recipe: BaseRecipe = baseRecipe): string {
  const inputs = JSON.stringify({ recipe, node: process.version, arch: process.arch });
  return createHash('sha256').update(inputs).digest('hex').slice(0, 12);
}

export function baseImageRef(recipe: BaseRecipe = baseRecipe): string {
  return `${baseRepository}:${baseImageHash(recipe)}`;
}

export interface BaseImageBuild {
  /** The Debian release: bookworm (12, Python 3.11; the default) or trixie (13, Python 3.13). */
  suite?: BaseSuite;
  mirror?: string;
  /** Keeps downloaded packages and the finished root filesystem between builds. */
  cacheDir?: string;
  /** Rebuild even when the image exists. */
  force?: boolean;
  log?: (line: string) => void;
}

export interface BuiltImage {
  ref: string;
  id: string;
  built: boolean;
}

export function defaultCacheDir(): string {
  return join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'longhaul', 'images');
}

function runTool(command: string, args: string[], log: (line: string) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const tail: string[] = [];
    const keep = (chunk: Buffer) => {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) {
        tail.push(line);
        if (tail.length > 20) tail.shift();
        log(line);
      }
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.on('error', (error) =>
      reject(
        new Error(`cannot run ${command} (${error.message}); install it (apt-get install -y ${command})`),
      ),
    );
    child.on('close', (code) =>
      code === 0 ? resolve() : reject(new Error(`${command} exited with ${code}:\n${tail.join('\n')}`)),
    );
  });
}

/** Adds what debootstrap does not: Node, the agent user, the workspace; drops docs and package caches. */
async function finishRoot(root: string): Promise<void> {
  await copyFile(process.execPath, join(root, 'usr/local/bin/node'));
  await chmod(join(root, 'usr/local/bin/node'), 0o755);
  const npm = npmDirectory();
  if (npm !== undefined) {
    await cp(npm, join(root, 'usr/local/lib/node_modules/npm'), { recursive: true });
    await symlink('../lib/node_modules/npm/bin/npm-cli.js', join(root, 'usr/local/bin/npm'));
    await symlink('../lib/node_modules/npm/bin/npx-cli.js', join(root, 'usr/local/bin/npx'));
  }
  const { name, uid, gid, home } = agentUser;
  await appendFile(join(root, 'etc/passwd'), `${name}:x:${uid}:${gid}:agent:${home}:/bin/bash\n`);
  await appendFile(join(root, 'etc/group'), `${name}:x:${gid}:\n`);
  await appendFile(join(root, 'etc/shadow'), `${name}:!:19000:0:99999:7:::\n`);
  for (const dir of [home, '/workspace']) {
    await mkdir(join(root, dir), { recursive: true });
    await chown(join(root, dir), uid, gid);
  }
  await writeFile(join(root, 'etc/hostname'), 'sandbox\n');
  for (const dir of [
    'usr/share/doc',
    'usr/share/man',
    'usr/share/info',
    'var/lib/apt/lists',
    'var/cache/apt/archives',
  ]) {
    await rm(join(root, dir), { recursive: true, force: true });
  }
  await mkdir(join(root, 'var/lib/apt/lists/partial'), { recursive: true });
  await mkdir(join(root, 'var/cache/apt/archives/partial'), { recursive: true });
}

async function makeRootTarball(
  tarball: string,
  recipe: BaseRecipe,
  options: BaseImageBuild,
  log: (line: string) => void,
): Promise<void> {
  const cacheDir = options.cacheDir ?? defaultCacheDir();
  const debs = join(cacheDir, 'debs');
  await mkdir(debs, { recursive: true });
  const work = await mkdtemp(join(tmpdir(), 'longhaul-rootfs-'));
  const root = join(work, 'root');
  try {
    log(`debootstrap ${recipe.suite} (minbase + ${recipe.packages.join(', ')})`);
    await runTool(
      'debootstrap',
      [
        '--variant=minbase',
        `--include=${recipe.packages.join(',')}`,
        // One package cache for every release: a file name is a package version, the same everywhere.
        `--cache-dir=${debs}`,
        recipe.suite,
        root,
        options.mirror ?? 'http://deb.debian.org/debian',
      ],
      log,
    );
    await finishRoot(root);
    const partial = `${tarball}.partial`;
    await runTool('tar', ['--numeric-owner', '-C', root, '-cf', partial, '.'], log);
    await rename(partial, tarball);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

export async function followProgress(docker: Docker, stream: NodeJS.ReadableStream): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    docker.modem.followProgress(stream, (error, output: { error?: string }[]) => {
      const failed = error ?? output.find((o) => o.error !== undefined)?.error;
      if (failed) reject(failed instanceof Error ? failed : new Error(String(failed)));
      else resolve();
    });
  });
}

/** Builds longhaul/base:<hash> unless it exists; a cached root filesystem tarball skips debootstrap. */
export async function buildBaseImage(docker: Docker, options: BaseImageBuild = {}): Promise<BuiltImage> {
  const log = options.log ?? (() => {});
  const recipe = recipeOf(options.suite);
  const hash = baseImageHash(recipe);
  const ref = baseImageRef(recipe);
  if (!options.force) {
    const existing = await docker
      .getImage(ref)
      .inspect()
      .catch(() => undefined);
    if (existing !== undefined) return { ref, id: existing.Id, built: false };
  }
  const cacheDir = options.cacheDir ?? defaultCacheDir();
  await mkdir(cacheDir, { recursive: true });
  const tarball = join(cacheDir, `base-${hash}.tar`);
  if (options.force || !existsSync(tarball)) await makeRootTarball(tarball, recipe, options, log);
  else log(`using the cached root filesystem ${tarball}`);
  log(`docker import → ${ref}`);
  const stream = await docker.importImage(createReadStream(tarball), {
    repo: baseRepository,
    tag: hash,
    changes: [
      'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
      'ENV LANG=C.UTF-8',
      'WORKDIR /workspace',
      `LABEL longhaul.image=base longhaul.recipe=${hash} longhaul.suite=${recipe.suite}`,
      'CMD ["/bin/bash"]',
    ],
  });
  await followProgress(docker, stream);
  const id = (await docker.getImage(ref).inspect()).Id;
  return { ref, id, built: true };
}
