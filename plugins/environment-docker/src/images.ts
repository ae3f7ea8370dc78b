import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join } from 'node:path';
import {
  ClassifiedError,
  type EnvironmentNeeds,
  pythonPackagesOf,
  readDirectoryFiles,
  versionAtLeast,
} from '@longhaul/core';
import type Docker from 'dockerode';
import { packFiles } from './archive.js';
import { type BaseRecipe, baseImageRef, baseToolchains, baseVariants, followProgress } from './base-image.js';
import { dockerfileNeeds } from './dockerfile.js';
import { dockerName } from './labels.js';
import { chooseImage, declaredContents, normalName, profiles } from './profiles.js';

export interface ResolvedImage {
  ref: string;
  /** The image id (sha256 of its configuration): what lock.json records. */
  id: string;
  /** Made by `longhaul images build`: the agent user and the workspace are already there. */
  base: boolean;
}

export interface ImageRequest {
  taskId: string;
  taskRoot: string;
  needs: EnvironmentNeeds;
  /** The environment's `image` option. */
  image?: string;
  buildTimeoutMs: number;
  /** The environment's `buildNetwork` option: a Dockerfile's build may reach the network. */
  buildNetwork?: boolean;
}

async function inspect(docker: Docker, ref: string): Promise<ResolvedImage | undefined> {
  const info = await docker
    .getImage(ref)
    .inspect()
    .catch(() => undefined);
  if (info === undefined) return undefined;
  return { ref, id: info.Id, base: info.Config?.Labels?.['longhaul.image'] === 'base' };
}

const dockerfileMissing = (taskId: string, path: string) =>
  `task ${taskId}: environment.dockerfile ${path} does not exist`;

/**
 * Builds a task's Dockerfile (context: its directory) as longhaul/task-<id>:<hash of the context>,
 * so an unchanged context is built once. The build gets `LONGHAUL_BASE` (the base image) as a
 * build argument: `ARG LONGHAUL_BASE` / `FROM ${LONGHAUL_BASE}` extends it without a registry.
 */
async function buildDockerfile(docker: Docker, request: ImageRequest, path: string): Promise<ResolvedImage> {
  if (!existsSync(path)) throw new ClassifiedError('sandbox', dockerfileMissing(request.taskId, path));
  const files = await readDirectoryFiles(dirname(path));
  const hash = createHash('sha256');
  for (const f of files) hash.update(`${f.path}\0${f.mode}\0`).update(f.data).update('\0');
  const ref = `longhaul/task-${dockerName(request.taskId).toLowerCase()}:${hash.digest('hex').slice(0, 12)}`;
  const existing = await inspect(docker, ref);
  if (existing !== undefined) return existing;
  const context = packFiles(files, new Date(0));
  const signal = AbortSignal.timeout(request.buildTimeoutMs);
  try {
    const stream = await docker.buildImage(
      context as unknown as NodeJS.ReadableStream,
      {
        t: ref,
        dockerfile: basename(path),
        buildargs: { LONGHAUL_BASE: baseImageRef(baseFor(request.taskId, request.needs)) },
        labels: { 'longhaul.task': request.taskId },
        // No network unless the user consents: a build that downloads is refused at `check`.
        networkmode: request.buildNetwork ? 'default' : 'none',
        abortSignal: signal,
      } as Docker.ImageBuildOptions,
    );
    await followProgress(docker, stream);
  } catch (error) {
    throw new ClassifiedError(
      'sandbox',
      `task ${request.taskId}: building ${path} failed: ${(error as Error).message}`,
      {
        cause: error,
      },
    );
  }
  const built = await inspect(docker, ref);
  if (built === undefined)
    throw new ClassifiedError('sandbox', `task ${request.taskId}: the build of ${path} made no image`);
  return built;
}

type ImageSource =
  | { dockerfile: string }
  | { named: string }
  | { base: string; suite: string; profile?: string; needs?: string[]; pip?: boolean };

/**
 * The base image for a task: Debian 12's unless the task needs a newer python3 than 3.11, then the
 * oldest release whose python3 is new enough (Debian 13: 3.13).
 */
export function baseFor(taskId: string, needs: EnvironmentNeeds): BaseRecipe {
  const python = needs.requires?.python;
  const variant = baseVariants.find((item) => python === undefined || versionAtLeast(item.python, python));
  if (variant === undefined)
    throw new ClassifiedError(
      'sandbox',
      `task ${taskId} needs python3 >= ${python}, newer than any base image has (${baseVariants.map((item) => `${item.recipe.suite}: ${item.python}`).join(', ')}); give the task an environment.image or dockerfile`,
    );
  return variant.recipe;
}

/** Where a task's image comes from: its Dockerfile, a named image, else the base image. */
function imageSource(request: ImageRequest): ImageSource {
  const { needs } = request;
  if (needs.dockerfile !== undefined)
    return {
      dockerfile: isAbsolute(needs.dockerfile) ? needs.dockerfile : join(request.taskRoot, needs.dockerfile),
    };
  const named = needs.image ?? request.image;
  if (named !== undefined) return { named };
  const missing = (needs.toolchains ?? []).filter((t) => !baseToolchains.includes(t.toLowerCase()));
  if (missing.length > 0) {
    throw new ClassifiedError(
      'sandbox',
      `task ${request.taskId} needs toolchains the base image lacks (${missing.join(', ')}); give the task an environment.dockerfile or image`,
    );
  }
  const choice = chooseImage(needs.requires, baseFor(request.taskId, needs));
  if (choice.kind === 'base') return { base: baseImageRef(choice.recipe), suite: choice.recipe.suite };
  const base = choice.kind === 'pip' ? choice.ref : baseImageRef(choice.recipe);
  const { recipe } = profiles[choice.profile];
  const needed = choice.kind === 'pip' ? choice.needs : beyondBase(needs.requires);
  return { base, suite: recipe.suite, profile: choice.profile, needs: needed, pip: choice.kind === 'pip' };
}

/** What a task requires that the base images lack, each with the file that asks for it. */
function beyondBase(requires: EnvironmentNeeds['requires']): string[] {
  if (requires === undefined) return [];
  const held = new Set(declaredContents.base.pythonPackages.map(normalName));
  return [
    ...pythonPackagesOf(requires).filter((name) => !held.has(normalName(name))),
    ...(requires.commands ?? []).filter((name) => !declaredContents.base.commands.includes(name)),
  ];
}

const named = (names: readonly string[], origins: Record<string, string> | undefined) =>
  names.map((name) => (origins?.[name] ? `${name} (${origins[name]})` : name)).join(', ');

const missingImage = (
  source: Exclude<ImageSource, { dockerfile: string }>,
  taskId: string,
  origins: Record<string, string> | undefined,
) =>
  'named' in source
    ? `image ${source.named} (task ${taskId}) is not on this Docker host and no registry is used: build or load it first`
    : source.pip
      ? `task ${taskId} needs ${named(source.needs ?? [], origins)}, which Debian does not package: the ${source.profile} image with a pip layer for them (${source.base}) is not on this Docker host; it is built only with network to PyPI: \`longhaul images build --profile ${source.profile} --build-network\``
      : source.profile !== undefined
        ? `the ${source.profile} image ${source.base} (task ${taskId} needs ${named(source.needs ?? [], origins)}, which the base image lacks) is missing: run \`longhaul images build --profile ${source.profile}\` once on this Docker host`
        : source.suite === 'bookworm'
          ? `the base image ${source.base} is missing: run \`longhaul images build\` once on this Docker host`
          : `the Debian ${source.suite} base image ${source.base} (task ${taskId} needs its Python) is missing: run \`longhaul images build --suite ${source.suite}\` once on this Docker host`;

/** The image a task runs in: its own (named or built), else the environment's, else the base image. */
export async function resolveImage(docker: Docker, request: ImageRequest): Promise<ResolvedImage> {
  const source = imageSource(request);
  if ('dockerfile' in source) return buildDockerfile(docker, request, source.dockerfile);
  const found = await inspect(docker, 'named' in source ? source.named : source.base);
  if (found === undefined)
    throw new ClassifiedError(
      'sandbox',
      missingImage(source, request.taskId, request.needs.requires?.origins),
    );
  return found;
}

/** The image a task would run in when it is a named or base image (a Dockerfile's is built at open). */
export function plainImageRef(request: ImageRequest): string | undefined {
  const source = imageSource(request);
  return 'dockerfile' in source ? undefined : 'named' in source ? source.named : source.base;
}

/**
 * Why `resolveImage` would fail for this task, without building anything: a Dockerfile that does
 * not exist, a named or base image missing from the host, toolchains the base image lacks.
 */
export async function imageProblem(docker: Docker, request: ImageRequest): Promise<string | undefined> {
  let source: ImageSource;
  try {
    source = imageSource(request);
  } catch (error) {
    return (error as Error).message;
  }
  if ('dockerfile' in source) return dockerfileProblem(docker, request, source.dockerfile);
  const found = await inspect(docker, 'named' in source ? source.named : source.base);
  return found === undefined
    ? missingImage(source, request.taskId, request.needs.requires?.origins)
    : undefined;
}

/**
 * Why a task's Dockerfile cannot be built here, without building it: it does not exist, an image
 * it starts FROM is not on the host (no registry is used), or it downloads while the build has no
 * network (`buildNetwork`). Each names the Dockerfile's line and the fix.
 */
async function dockerfileProblem(
  docker: Docker,
  request: ImageRequest,
  path: string,
): Promise<string | undefined> {
  if (!existsSync(path)) return dockerfileMissing(request.taskId, path);
  const base = baseImageRef(baseFor(request.taskId, request.needs));
  const needs = dockerfileNeeds(await readFile(path, 'utf8'), { LONGHAUL_BASE: base });
  const problems: string[] = [];
  for (const from of needs.bases) {
    if ((await inspect(docker, from.image)) !== undefined) continue;
    problems.push(
      from.image === base
        ? `${path}:${from.line} starts FROM the base image ${base}, which is missing: run \`longhaul images build\` once on this Docker host`
        : `${path}:${from.line} starts FROM ${from.image}, which is not on this Docker host (no registry is used): pull it where there is network and load it here (\`docker pull ${from.image}\`, \`docker save\` / \`docker load\`), or start the Dockerfile from longhaul's base image (\`ARG LONGHAUL_BASE\` then \`FROM $LONGHAUL_BASE\`)`,
    );
  }
  const download = needs.downloads[0];
  if (download && !request.buildNetwork)
    problems.push(
      `${path}:${download.line} downloads while it builds (${download.text}), and builds have no network: give the docker environment \`buildNetwork: true\` (the build may then reach the network; sandboxes still follow \`network\`)`,
    );
  return problems.length === 0 ? undefined : `task ${request.taskId}: ${problems.join('; ')}`;
}
