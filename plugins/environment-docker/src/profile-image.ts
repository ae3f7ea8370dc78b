import type Docker from 'dockerode';
import { packFiles } from './archive.js';
import {
  type BaseImageBuild,
  type BuiltImage,
  buildBaseImage,
  contentsLabels,
  contentsOf,
  followProgress,
} from './base-image.js';
import { type ProfileName, pipLayerDockerfile, pipLayerRef, profileOf } from './profiles.js';

export interface ProfileImageBuild extends Omit<BaseImageBuild, 'suite' | 'recipe'> {
  profile: ProfileName;
  /**
   * The user's consent to network during the build: then what Debian does not package is added
   * with pip from PyPI, as a layer on the profile's Debian image. Without it nothing but the
   * Debian mirror is used.
   */
  buildNetwork?: boolean;
  /** Limit for the pip layer's build. */
  buildTimeoutMs?: number;
}

export interface BuiltProfile {
  /** The profile's Debian image. */
  debian: BuiltImage;
  /** Its pip layer, with `buildNetwork` only. */
  pip?: BuiltImage;
  /** What the profile's image lacks without the pip layer (pip names with their pins). */
  withoutNetwork: string[];
}

/**
 * Builds a profile's image from Debian packages (debootstrap, as the base images), then, with the
 * user's consent to network, its pip layer: `docker build` of a Dockerfile that pip-installs the
 * pinned packages, labelled with the Debian image's contents plus the pins.
 */
export async function buildProfileImage(docker: Docker, options: ProfileImageBuild): Promise<BuiltProfile> {
  const { recipe, pipLayer } = profileOf(options.profile);
  const debian = await buildBaseImage(docker, { ...options, recipe });
  const pins = Object.entries(pipLayer.packages).map(([name, version]) => `${name}==${version}`);
  if (!options.buildNetwork) return { debian, withoutNetwork: pins };
  const log = options.log ?? (() => {});
  const ref = pipLayerRef(options.profile);
  if (!options.force) {
    const existing = await docker
      .getImage(ref)
      .inspect()
      .catch(() => undefined);
    if (existing !== undefined)
      return { debian, pip: { ref, id: existing.Id, built: false }, withoutNetwork: [] };
  }
  const parent = await docker.getImage(debian.ref).inspect();
  const held = contentsOf(parent.Config?.Labels ?? undefined) ?? { pythonPackages: [], commands: [] };
  const contents = {
    ...held,
    pythonPackages: [...held.pythonPackages, ...pins],
    commands: [...new Set([...held.commands, ...pipLayer.commands])],
  };
  log(`pip layer (network): ${pins.join(' ')} → ${ref}`);
  const dockerfile = pipLayerDockerfile(options.profile);
  const context = packFiles(
    [{ path: 'Dockerfile', mode: 0o644, data: Buffer.from(dockerfile) }],
    new Date(0),
  );
  const [repo, tag] = ref.split(':');
  const stream = await docker.buildImage(
    context as unknown as NodeJS.ReadableStream,
    {
      t: `${repo}:${tag}`,
      labels: contentsLabels(contents),
      abortSignal: AbortSignal.timeout(options.buildTimeoutMs ?? 1_800_000),
    } as Docker.ImageBuildOptions,
  );
  await followProgress(docker, stream);
  const built = await docker.getImage(ref).inspect();
  return { debian, pip: { ref, id: built.Id, built: true }, withoutNetwork: [] };
}
