import { definePlugin, tokens } from '@longhaul/core';
import { DockerEnvironment } from './environment.js';
import { dockerGuarantee } from './guarantee.js';
import { dockerOptions } from './options.js';

export { agentUser } from './archive.js';
export {
  type BaseImageBuild,
  type BaseSuite,
  type BuiltImage,
  baseImageRef,
  baseRecipe,
  baseVariants,
  buildBaseImage,
  contentsOf,
  defaultCacheDir,
  type ImageContents,
  recipeOf,
  trixieRecipe,
} from './base-image.js';
export { connectDocker, DockerEnvironment } from './environment.js';
export type { DockerExecResult } from './exec.js';
export { dockerGuarantee } from './guarantee.js';
export { labels } from './labels.js';
export { type DockerOptions, dockerOptions, parseSize } from './options.js';
export { type BuiltProfile, buildProfileImage, type ProfileImageBuild } from './profile-image.js';
export {
  chooseImage,
  declaredContents,
  type ImageChoice,
  type ProfileName,
  pipLayerDockerfile,
  pipLayerRef,
  profiles,
  scbenchPipLayer,
  scbenchRecipe,
} from './profiles.js';
export { type PruneOptions, type PruneReport, prune, removedNames } from './prune.js';
export { DockerSandbox } from './sandbox.js';
export { scbenchDebianHolds, scbenchDebianPackages, scbenchPackages } from './scbench-packages.js';

export default definePlugin({
  kind: 'environment',
  id: 'docker',
  description:
    'One container per trial (per step with a script asking for a fresh sandbox) on an internal network, with offline-built base images',
  options: dockerOptions,
  guarantees: (options) => [dockerGuarantee(options)],
  register(bind, options) {
    bind(tokens.Environment).toDynamicValue(
      (ctx) =>
        new DockerEnvironment(
          options,
          ctx.get(tokens.SnapshotStore, { optional: true }),
          ctx.get(tokens.Run, { optional: true })?.baseDir,
        ),
    );
  },
});
