import { execFile, spawn } from 'node:child_process';
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
  readFile,
  rename,
  rm,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
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

/**
 * A recipe debootstrap builds: a Debian release and the packages it adds to minbase. A `profile`
 * names an image made for one benchmark (`longhaul images build --profile NAME`), kept in its own
 * repository (`longhaul/NAME`) beside the base images.
 */
export interface BaseRecipe {
  readonly version: number;
  readonly suite: 'bookworm' | 'trixie';
  readonly packages: readonly string[];
  /**
   * Installed by apt inside the new root after debootstrap: debootstrap's own resolver follows
   * neither virtual packages nor alternatives (rustc's `libc-dev`), apt does.
   */
  readonly aptPackages?: readonly string[];
  readonly profile?: string;
}

/** The base images there are, each with the python3 its Debian release ships, oldest first. */
export const baseVariants: readonly { recipe: BaseRecipe; python: string }[] = [
  { recipe: baseRecipe, python: '3.11' },
  { recipe: trixieRecipe, python: '3.13' },
];

export type BaseSuite = BaseRecipe['suite'];

/** Where a recipe's image lives: `longhaul/base`, or `longhaul/<profile>` for a profile's. */
export function repositoryOf(recipe: BaseRecipe): string {
  return recipe.profile === undefined ? baseRepository : `longhaul/${recipe.profile}`;
}

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
  return `${repositoryOf(recipe)}:${baseImageHash(recipe)}`;
}

export interface BaseImageBuild {
  /** The Debian release: bookworm (12, Python 3.11; the default) or trixie (13, Python 3.13). */
  suite?: BaseSuite;
  /** Another recipe than the suite's base one (a profile's); wins over `suite`. */
  recipe?: BaseRecipe;
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

/** What an image holds, as its labels record it: python3's version, its distributions, the programs on PATH. */
export interface ImageContents {
  python?: string;
  /** `name==version` of every Python distribution python3 sees, names as their metadata spells them. */
  pythonPackages: string[];
  /** Those of `probedCommands` that are on PATH. */
  commands: string[];
}

/** The programs a contents label looks for: interpreters, toolchains and runners tasks call. */
export const probedCommands = [
  'python3',
  'pip',
  'git',
  'node',
  'npm',
  'npx',
  'bash',
  'go',
  'cargo',
  'rustc',
  'gcc',
  'g++',
  'make',
  'uv',
  'uvx',
  'sqlite3',
  'java',
  'ruby',
] as const;

export const contentLabels = {
  python: 'longhaul.python',
  pythonPackages: 'longhaul.python-packages',
  commands: 'longhaul.commands',
} as const;

/** Reads an image's contents labels back; undefined for an image made without them. */
export function contentsOf(labels: Record<string, string> | undefined): ImageContents | undefined {
  const packages = labels?.[contentLabels.pythonPackages];
  if (labels === undefined || packages === undefined) return undefined;
  const words = (value: string | undefined) => (value ?? '').split(/\s+/).filter(Boolean);
  return {
    ...(labels[contentLabels.python] ? { python: labels[contentLabels.python] } : {}),
    pythonPackages: words(packages),
    commands: words(labels[contentLabels.commands]),
  };
}

/** The labels recording `contents`. */
export function contentsLabels(contents: ImageContents): Record<string, string> {
  return {
    ...(contents.python ? { [contentLabels.python]: contents.python } : {}),
    [contentLabels.pythonPackages]: contents.pythonPackages.join(' '),
    [contentLabels.commands]: contents.commands.join(' '),
  };
}

/** `LABEL` instructions recording `contents`; values are quoted, since they hold spaces. */
export function contentsLabelChanges(contents: ImageContents): string[] {
  return Object.entries(contentsLabels(contents)).map(
    ([key, value]) => `LABEL ${key}=${JSON.stringify(value)}`,
  );
}

const listDistributions = [
  'import importlib.metadata as m, platform',
  'print(platform.python_version())',
  'print(" ".join(sorted({f"{d.metadata[\'Name\']}=={d.version}" for d in m.distributions()}, key=str.lower)))',
].join('\n');

/** What the finished root filesystem holds, asked of its own python3 and shell through chroot. */
async function readContents(root: string): Promise<ImageContents> {
  const env = { PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', LANG: 'C.UTF-8' };
  const commands = (
    await captureTool(
      'chroot',
      [
        root,
        '/bin/sh',
        '-c',
        `for c in ${probedCommands.join(' ')}; do command -v "$c" >/dev/null 2>&1 && echo "$c"; done; true`,
      ],
      env,
    )
  )
    .split('\n')
    .filter(Boolean);
  if (!commands.includes('python3')) return { pythonPackages: [], commands };
  const [python, packages] = (
    await captureTool('chroot', [root, 'python3', '-c', listDistributions], env)
  ).split('\n');
  return { python, pythonPackages: (packages ?? '').split(' ').filter(Boolean), commands };
}

/** A tool's standard output; its error names the command and carries its standard error. */
async function captureTool(command: string, args: string[], env: Record<string, string>): Promise<string> {
  return (await promisify(execFile)(command, args, { env, maxBuffer: 64 << 20, encoding: 'utf8' })).stdout;
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

/**
 * `apt-get install` in the root through chroot, from the mirror debootstrap wrote into its
 * sources.list, with the shared package cache bind-mounted as apt's archive directory.
 */
async function aptInstall(
  root: string,
  debs: string,
  packages: readonly string[],
  log: (line: string) => void,
): Promise<void> {
  log(`apt-get install (in the new root): ${packages.join(', ')}`);
  const archives = join(root, 'var/cache/apt/archives');
  await runTool('mount', ['--bind', debs, archives], log);
  await runTool('mount', ['-t', 'proc', 'proc', join(root, 'proc')], log);
  const apt = ['/usr/bin/env', 'DEBIAN_FRONTEND=noninteractive', 'apt-get', '-q', '-y'];
  try {
    await runTool('chroot', [root, ...apt, 'update'], log);
    await runTool('chroot', [root, ...apt, 'install', '--no-install-recommends', ...packages], log);
  } finally {
    // Lazily: detached at once even when busy, so removing the root afterwards never reaches the cache.
    await runTool('umount', ['--lazy', join(root, 'proc')], log).catch(() => undefined);
    await runTool('umount', ['--lazy', archives], log).catch(() => undefined);
  }
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
    if (recipe.aptPackages !== undefined && recipe.aptPackages.length > 0)
      await aptInstall(root, debs, recipe.aptPackages, log);
    await finishRoot(root);
    const contents = await readContents(root);
    log(
      `contents: python3 ${contents.python ?? '-'}, ${contents.pythonPackages.length} Python distributions, programs: ${contents.commands.join(' ')}`,
    );
    await writeFile(contentsFile(tarball), `${JSON.stringify(contents, null, 2)}\n`);
    const partial = `${tarball}.partial`;
    await runTool('tar', ['--numeric-owner', '-C', root, '-cf', partial, '.'], log);
    await rename(partial, tarball);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/** The contents of a cached root filesystem tarball, kept beside it (a tarball from before they were kept has none). */
const contentsFile = (tarball: string) => `${tarball}.contents.json`;

async function cachedContents(tarball: string): Promise<ImageContents | undefined> {
  try {
    return JSON.parse(await readFile(contentsFile(tarball), 'utf8')) as ImageContents;
  } catch {
    return undefined;
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
  const recipe = options.recipe ?? recipeOf(options.suite);
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
  if (options.force || !existsSync(tarball) || !existsSync(contentsFile(tarball)))
    await makeRootTarball(tarball, recipe, options, log);
  else log(`using the cached root filesystem ${tarball}`);
  const contents = await cachedContents(tarball);
  log(`docker import → ${ref}`);
  const stream = await docker.importImage(createReadStream(tarball), {
    repo: repositoryOf(recipe),
    tag: hash,
    changes: [
      'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
      'ENV LANG=C.UTF-8',
      'WORKDIR /workspace',
      `LABEL longhaul.image=base longhaul.recipe=${hash} longhaul.suite=${recipe.suite}`,
      ...(recipe.profile === undefined ? [] : [`LABEL longhaul.profile=${recipe.profile}`]),
      ...(contents === undefined ? [] : contentsLabelChanges(contents)),
      'CMD ["/bin/bash"]',
    ],
  });
  await followProgress(docker, stream);
  const id = (await docker.getImage(ref).inspect()).Id;
  return { ref, id, built: true };
}
