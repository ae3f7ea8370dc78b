import { createHash } from 'node:crypto';
import { pythonPackagesOf, type Requirements, versionAtLeast } from '@longhaul/core';
import { type BaseRecipe, baseImageHash, baseImageRef, baseRecipe, baseVariants } from './base-image.js';
import { scbenchDebianHolds, scbenchDebianPackages } from './scbench-packages.js';

/**
 * SlopCodeBench's profile: Debian 13 (python3 3.13, at least the 3.12 upstream runs) with every
 * Debian package of `scbenchPackages`, the table of what upstream's problems import and run:
 * Python packages and the Go and Rust toolchains of its multi-language problems. Everything comes
 * from the Debian mirror: no network beyond it.
 */
export const scbenchRecipe: BaseRecipe = {
  version: 2,
  suite: 'trixie',
  profile: 'scbench',
  packages: baseRecipe.packages,
  aptPackages: scbenchDebianPackages().filter(
    (name) => !(baseRecipe.packages as readonly string[]).includes(name),
  ),
};

/**
 * What Debian does not package, installed with pip on top of the profile's image, only when the
 * user consents to network during the build (`--build-network`). Exact pins at the lowest
 * versions upstream's pyproject.toml accepts (pyarrow>=20.0.0, tree-sitter>=0.25.0,
 * tree-sitter-language-pack>=0.6.0); uv and duckdb, which it does not list, at releases of the same
 * months as upstream's `uv:python3.12-trixie-slim` image.
 */
export const scbenchPipLayer = {
  version: 1,
  profile: 'scbench',
  packages: {
    uv: '0.8.0',
    pyarrow: '20.0.0',
    duckdb: '1.3.0',
    'tree-sitter': '0.25.0',
    'tree-sitter-language-pack': '0.6.0',
  } as Record<string, string>,
  commands: ['uv', 'uvx'],
} as const;

export const profiles = { scbench: { recipe: scbenchRecipe, pipLayer: scbenchPipLayer } } as const;
export type ProfileName = keyof typeof profiles;

export function profileOf(name: string): (typeof profiles)[ProfileName] {
  const profile = profiles[name as ProfileName];
  if (profile === undefined)
    throw new Error(`no image profile ${name} (there are: ${Object.keys(profiles).join(', ')})`);
  return profile;
}

/** The pip layer's image: its own repository, tagged by the profile image and the pins. */
export function pipLayerRef(name: ProfileName = 'scbench'): string {
  const { recipe, pipLayer } = profiles[name];
  const hash = createHash('sha256')
    .update(JSON.stringify({ base: baseImageHash(recipe), pipLayer }))
    .digest('hex')
    .slice(0, 12);
  return `longhaul/${name}-pip:${hash}`;
}

/** The pip layer's Dockerfile: the pins, installed into the system python3 beside Debian's packages. */
export function pipLayerDockerfile(name: ProfileName = 'scbench'): string {
  const { recipe, pipLayer } = profiles[name];
  const pins = Object.entries(pipLayer.packages).map(([pkg, version]) => `${pkg}==${version}`);
  return [
    `FROM ${baseImageRef(recipe)}`,
    // Debian marks its python3 as externally managed; these packages are not Debian's to clash with.
    `RUN pip install --no-cache-dir --break-system-packages ${pins.join(' ')}`,
    '',
  ].join('\n');
}

/** PEP 503's normal form of a distribution name: `Ruamel_Yaml` and `ruamel.yaml` are one package. */
export function normalName(name: string): string {
  return name.toLowerCase().replace(/[-_.]+/g, '-');
}

/**
 * The Python distributions (pip names) and programs each image is made to hold, for choosing one
 * before it exists on the host. The images' labels record what they really hold; a test keeps
 * these lists inside those labels.
 */
const baseHolds = {
  pythonPackages: ['pytest', 'pytest-timeout', 'pyyaml'],
  commands: ['python3', 'git', 'node', 'npm', 'npx', 'bash', 'sh'],
};

export const declaredContents = {
  base: baseHolds,
  scbench: {
    pythonPackages: [...new Set([...baseHolds.pythonPackages, ...scbenchDebianHolds().pythonPackages])],
    commands: [...new Set([...baseHolds.commands, ...scbenchDebianHolds().commands])],
  },
};

/** Where a task without an image of its own runs: a base image, a profile's, or its pip layer. */
export type ImageChoice =
  | { kind: 'base'; recipe: BaseRecipe }
  | { kind: 'profile'; recipe: BaseRecipe; profile: ProfileName }
  | { kind: 'pip'; profile: ProfileName; ref: string; needs: string[] };

/** What of `requires` (packages and programs) an image holding `holds` lacks, by normal name. */
function lacking(
  requires: Requirements,
  holds: { pythonPackages: readonly string[]; commands: readonly string[] },
) {
  const packages = new Set(holds.pythonPackages.map(normalName));
  const commands = new Set(holds.commands);
  return [
    ...pythonPackagesOf(requires).filter((name) => !packages.has(normalName(name))),
    ...(requires.commands ?? []).filter((name) => !commands.has(name)),
  ];
}

/**
 * The smallest image that holds what the task requires: the base image its Python asks for when
 * that holds everything; else the scbench profile's Debian image; else its pip layer when that
 * holds the rest. When none holds it all, the base image: the requirements check then names
 * what is missing there.
 */
export function chooseImage(requires: Requirements | undefined, base: BaseRecipe): ImageChoice {
  if (requires === undefined || lacking(requires, declaredContents.base).length === 0)
    return { kind: 'base', recipe: base };
  const python = requires.python;
  const fits = (recipe: BaseRecipe) =>
    python === undefined ||
    versionAtLeast(baseVariants.find((item) => item.recipe.suite === recipe.suite)?.python ?? '0', python);
  const { recipe, pipLayer } = profiles.scbench;
  if (!fits(recipe)) return { kind: 'base', recipe: base };
  const missing = lacking(requires, declaredContents.scbench);
  if (missing.length === 0) return { kind: 'profile', recipe, profile: 'scbench' };
  const fromPip = lacking(requires, {
    pythonPackages: [...declaredContents.scbench.pythonPackages, ...Object.keys(pipLayer.packages)],
    commands: [...declaredContents.scbench.commands, ...pipLayer.commands],
  });
  if (fromPip.length === 0) return { kind: 'pip', profile: 'scbench', ref: pipLayerRef(), needs: missing };
  // Nothing holds it all: the image that holds the most, where the check names only what no image has.
  return missing.length < lacking(requires, declaredContents.base).length
    ? { kind: 'profile', recipe, profile: 'scbench' }
    : { kind: 'base', recipe: base };
}
