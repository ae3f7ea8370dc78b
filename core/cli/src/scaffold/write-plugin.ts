import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { fsReason } from '@longhaul/core';
import { cliDir, findInstalled, type InstalledPackage } from './installed-packages.js';
import { packageNameProblem, pluginIdFor, type ScaffoldKind, scaffoldKinds } from './package-name.js';
import { workspaceRootFor } from './workspace-root.js';

export const templatesDir = join(cliDir, 'templates');
const installNoteFile = 'install-note.md';

/** What `longhaul new` was asked for. */
export interface NewPluginRequest {
  kind: string;
  name: string;
  /** Where to write; default `<cwd>/<name without its scope>`. */
  dir?: string;
  cwd: string;
}

export interface WrittenPlugin {
  dir: string;
  id: string;
  kind: ScaffoldKind;
  /** `workspace`: a member of the npm workspace around it; `standalone`: a package of its own. */
  layout: 'workspace' | 'standalone';
  /** The workspace's root folder, for a member. */
  workspaceRoot?: string;
  files: string[];
}

/** Bad input to `longhaul new`: one line, and nothing was written. */
export class NewPluginError extends Error {}

/**
 * Writes a plugin package of `kind` from the templates. Everything is checked and rendered before
 * anything is written, and the files go to a temporary folder beside `dir` that is renamed into
 * place, so bad input or a failed write leaves nothing behind.
 */
export async function writePlugin(request: NewPluginRequest): Promise<WrittenPlugin> {
  const kind = request.kind as ScaffoldKind;
  if (!scaffoldKinds.includes(kind)) {
    throw new NewPluginError(`unknown kind '${request.kind}': expected one of ${scaffoldKinds.join(', ')}`);
  }
  const problem = packageNameProblem(request.name);
  if (problem) throw new NewPluginError(`invalid package name '${request.name}': it ${problem}`);
  const id = pluginIdFor(kind, request.name);
  if (!/^[A-Za-z0-9._-]+$/.test(id)) {
    throw new NewPluginError(
      `invalid package name '${request.name}': the plugin id '${id}' may hold only letters, digits and . _ -`,
    );
  }
  const dir = resolve(request.cwd, request.dir ?? request.name.slice(request.name.indexOf('/') + 1));
  await checkTarget(dir);

  const root = workspaceRootFor(dir);
  const layout = root === undefined ? 'standalone' : 'workspace';
  const files = new Map<string, string>();
  for (const part of ['common', layout, kind]) await readTemplates(join(templatesDir, part), '', files);
  // The layout's paragraph on how the package gets its dependencies goes into the README.
  const installNote = (files.get(installNoteFile) ?? '').trim();
  files.delete(installNoteFile);
  const rootPath = root === undefined ? '' : relative(dir, root);
  const values = { name: request.name, id, kind, root: rootPath, installNote };
  for (const [path, text] of files) files.set(path, fill(text, values));
  files.set('package.json', packageJson(files.get('package.json') ?? '{}', layout));

  const temp = join(dirname(dir), `.${basename(dir)}.new-${process.pid}`);
  try {
    for (const [path, text] of files) {
      await mkdir(dirname(join(temp, path)), { recursive: true });
      await writeFile(join(temp, path), text);
    }
    // rename(2) replaces a missing or empty folder in one step.
    await rename(temp, dir);
  } catch (error) {
    await rm(temp, { recursive: true, force: true });
    throw new NewPluginError(`${dir}: cannot write the plugin: ${fsReason(error)}`);
  }
  return { dir, id, kind, layout, ...(root ? { workspaceRoot: root } : {}), files: [...files.keys()].sort() };
}

async function checkTarget(dir: string): Promise<void> {
  const info = await stat(dir).catch(() => undefined);
  if (info === undefined) {
    await mkdir(dirname(dir), { recursive: true }).catch((error: unknown) => {
      throw new NewPluginError(`${dirname(dir)}: cannot make the folder: ${fsReason(error)}`);
    });
    return;
  }
  if (!info.isDirectory()) throw new NewPluginError(`${dir} exists and is not a folder`);
  if ((await readdir(dir)).length > 0) throw new NewPluginError(`${dir} exists and is not empty`);
}

/** Reads every file under `dir` into `files`, keyed by its path in the new package. */
async function readTemplates(dir: string, prefix: string, files: Map<string, string>): Promise<void> {
  if (!existsSync(dir)) return;
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = prefix + entry.name;
    if (entry.isDirectory()) await readTemplates(join(dir, entry.name), `${path}/`, files);
    // npm leaves files named .gitignore out of a package, so the template is named without the dot.
    else files.set(path === 'gitignore' ? '.gitignore' : path, await readFile(join(dir, entry.name), 'utf8'));
  }
}

function fill(text: string, values: Record<string, string>): string {
  return text.replace(/\{\{(\w+)\}\}/g, (whole, key: string) => values[key] ?? whole);
}

/**
 * The package.json: inside a workspace it depends on the workspace's own @longhaul packages by
 * version; outside, on the ones installed beside this CLI by `file:` path, so `npm install` needs
 * no registry for them. The tools the package builds and tests with are linked the same way when
 * the CLI's install has them, and otherwise come from the registry at the template's versions.
 */
function packageJson(template: string, layout: 'workspace' | 'standalone'): string {
  const manifest = JSON.parse(template) as Record<string, Record<string, string> | unknown>;
  const core = findInstalled('@longhaul/core', cliDir);
  const testkit = findInstalled('@longhaul/testkit', cliDir);
  if (!core || !testkit) {
    throw new NewPluginError(
      `cannot find ${core ? '@longhaul/testkit' : '@longhaul/core'} installed beside longhaul (${cliDir}); reinstall @longhaul/cli`,
    );
  }
  const zod = core.dependencies.zod ?? '*';
  const dependencies = { ...(manifest.dependencies as Record<string, string>) };
  const devDependencies = { ...(manifest.devDependencies as Record<string, string>) };
  if (layout === 'workspace') {
    manifest.peerDependencies = { '@longhaul/core': `^${core.version}` };
    Object.assign(dependencies, { zod });
    Object.assign(devDependencies, { '@longhaul/core': core.version, '@longhaul/testkit': testkit.version });
  } else {
    const link = (found: InstalledPackage | undefined, fallback: string) =>
      found ? `file:${found.dir}` : fallback;
    Object.assign(dependencies, {
      '@longhaul/core': link(core, core.version),
      zod: link(findInstalled('zod', core.dir), zod),
    });
    devDependencies['@longhaul/testkit'] = link(testkit, testkit.version);
    for (const [name, version] of Object.entries(devDependencies)) {
      if (!name.startsWith('@longhaul/')) devDependencies[name] = link(findInstalled(name, cliDir), version);
    }
  }
  manifest.dependencies = sorted(dependencies);
  manifest.devDependencies = sorted(devDependencies);
  return `${JSON.stringify(manifest, null, 2)}\n`;
}

function sorted(record: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => a.localeCompare(b)));
}
