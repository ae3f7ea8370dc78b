import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { readDirectoryFiles, sha256 } from '@longhaul/core';
import { execa } from 'execa';
import { MineInputError } from './window.js';

/**
 * How the repository's environment is made: a Dockerfile (its directory is the build context),
 * or an image plus commands run on it. Built once per recipe into an image that validation, the
 * agent's sandbox and the scorer all use.
 */
export interface Recipe {
  /** A Dockerfile; `ARG LONGHAUL_BASE` / `FROM ${LONGHAUL_BASE}` extends the base image offline. */
  dockerfile?: string;
  /** The image `install` runs on (default: the base image). */
  from?: string;
  /** Shell commands run on `from` at build time, one `RUN` each. */
  install?: string[];
  /** Network while building (never during validation or agent turns); default none. */
  buildNetwork?: boolean;
}

/** What the dataset records of the environment it was validated in. */
export interface BuiltImage {
  /** The image reference tasks ask for: `longhaul/swe-steps-<name>:<hash>`. */
  image: string;
  /** Docker's image id (sha256 of its configuration). */
  imageId: string;
  /** sha256 of the recipe: the Dockerfile and every file of its context, or the image and commands. */
  recipeHash: string;
}

/** Docker's id of an image, or undefined when there is none. */
export async function imageIdOf(ref: string): Promise<string | undefined> {
  const result = await execa('docker', ['image', 'inspect', '--format', '{{.Id}}', ref], { reject: false });
  return result.exitCode === 0 ? String(result.stdout).trim() : undefined;
}

/**
 * Builds the recipe into `longhaul/swe-steps-<name>:<hash>` unless that image exists already (same
 * recipe, same context: nothing to do). The build runs with `--network none` unless the recipe
 * asks for network; `base` is given as the build argument LONGHAUL_BASE.
 */
export async function buildRecipe(
  recipe: Recipe,
  name: string,
  base: string,
  log: (line: string) => void = () => undefined,
): Promise<BuiltImage> {
  if (recipe.dockerfile && (recipe.from || recipe.install?.length))
    throw new MineInputError('a recipe is a Dockerfile or an image with install commands, not both');
  const work = await mkdtemp(join(tmpdir(), 'longhaul-swe-steps-recipe-'));
  try {
    let dockerfile = recipe.dockerfile;
    if (!dockerfile) {
      dockerfile = join(work, 'Dockerfile');
      const lines = [`FROM ${recipe.from ?? base}`, ...(recipe.install ?? []).map((c) => `RUN ${c}`)];
      await writeFile(dockerfile, `${lines.join('\n')}\n`);
    } else {
      await readFile(dockerfile).catch(() => {
        throw new MineInputError(`--dockerfile ${recipe.dockerfile}: no such file`);
      });
    }
    const context = dirname(dockerfile);
    const parts = [`network:${recipe.buildNetwork === true}`, `base:${base}`];
    for (const file of await readDirectoryFiles(context))
      parts.push(`${file.path}\0${file.mode}\0${sha256(file.data)}`);
    const recipeHash = sha256(parts.join('\n'));
    const image = `longhaul/swe-steps-${name.toLowerCase().replace(/[^a-z0-9._-]/g, '-')}:${recipeHash.slice(0, 12)}`;
    const existing = await imageIdOf(image);
    if (existing) return { image, imageId: existing, recipeHash };
    log(
      `building the environment ${image} from ${recipe.dockerfile ?? `${recipe.from ?? base} + ${recipe.install?.length ?? 0} commands`}${recipe.buildNetwork ? ' (with network)' : ''}`,
    );
    const result = await execa(
      'docker',
      [
        'build',
        '--network',
        recipe.buildNetwork ? 'default' : 'none',
        '--build-arg',
        `LONGHAUL_BASE=${base}`,
        '--label',
        'longhaul.image=swe-steps',
        '--label',
        `longhaul.recipe=${recipeHash}`,
        '-t',
        image,
        '-f',
        dockerfile,
        context,
      ],
      { reject: false, all: true },
    );
    if (result.exitCode !== 0) {
      const tail = String(result.all ?? '')
        .trim()
        .split('\n')
        .slice(-6)
        .join('\n');
      throw new MineInputError(
        `building the environment from ${recipe.dockerfile ?? basename(dockerfile)} failed${recipe.buildNetwork ? '' : ' (no network: pass --build-network if it downloads)'}:\n${tail}`,
      );
    }
    const id = await imageIdOf(image);
    if (!id) throw new MineInputError(`the build of ${image} made no image`);
    return { image, imageId: id, recipeHash };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
