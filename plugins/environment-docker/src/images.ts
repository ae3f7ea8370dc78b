import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { basename, dirname, isAbsolute, join } from 'node:path';
import { ClassifiedError, type EnvironmentNeeds, readDirectoryFiles } from '@longhaul/core';
import type Docker from 'dockerode';
import { packFiles } from './archive.js';
import { baseImageRef, baseToolchains, followProgress } from './base-image.js';
import { dockerName } from './labels.js';

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
}

async function inspect(docker: Docker, ref: string): Promise<ResolvedImage | undefined> {
  const info = await docker
    .getImage(ref)
    .inspect()
    .catch(() => undefined);
  if (info === undefined) return undefined;
  return { ref, id: info.Id, base: info.Config?.Labels?.['longhaul.image'] === 'base' };
}

/**
 * Builds a task's Dockerfile (context: its directory) as longhaul/task-<id>:<hash of the context>,
 * so an unchanged context is built once. The build gets `LONGHAUL_BASE` (the base image) as a
 * build argument: `ARG LONGHAUL_BASE` / `FROM ${LONGHAUL_BASE}` extends it without a registry.
 */
async function buildDockerfile(
  docker: Docker,
  request: ImageRequest,
  dockerfile: string,
): Promise<ResolvedImage> {
  const path = isAbsolute(dockerfile) ? dockerfile : join(request.taskRoot, dockerfile);
  if (!existsSync(path)) {
    throw new ClassifiedError(
      'sandbox',
      `task ${request.taskId}: environment.dockerfile ${path} does not exist`,
    );
  }
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
        buildargs: { LONGHAUL_BASE: baseImageRef() },
        labels: { 'longhaul.task': request.taskId },
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

/** The image a task runs in: its own (named or built), else the environment's, else the base image. */
export async function resolveImage(docker: Docker, request: ImageRequest): Promise<ResolvedImage> {
  const { needs } = request;
  if (needs.dockerfile !== undefined) return buildDockerfile(docker, request, needs.dockerfile);
  const named = needs.image ?? request.image;
  if (named !== undefined) {
    const found = await inspect(docker, named);
    if (found === undefined) {
      throw new ClassifiedError(
        'sandbox',
        `image ${named} (task ${request.taskId}) is not on this Docker host and no registry is used: build or load it first`,
      );
    }
    return found;
  }
  const missing = (needs.toolchains ?? []).filter((t) => !baseToolchains.includes(t.toLowerCase()));
  if (missing.length > 0) {
    throw new ClassifiedError(
      'sandbox',
      `task ${request.taskId} needs toolchains the base image lacks (${missing.join(', ')}); give the task an environment.dockerfile or image`,
    );
  }
  const ref = baseImageRef();
  const base = await inspect(docker, ref);
  if (base === undefined) {
    throw new ClassifiedError(
      'sandbox',
      `the base image ${ref} is missing: run \`longhaul images build\` once on this Docker host`,
    );
  }
  return base;
}
