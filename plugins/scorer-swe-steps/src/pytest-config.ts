import { readFile } from 'node:fs/promises';
import { join, posix } from 'node:path';

/** The files pytest looks for in each folder, in its order. */
const configNames = ['pytest.ini', '.pytest.ini', 'pyproject.toml', 'tox.ini', 'setup.cfg'] as const;

/** Whether a file of that name holds pytest's configuration (a pytest.ini does, even empty). */
function holdsPytestConfig(name: (typeof configNames)[number], text: string): boolean {
  if (name === 'pyproject.toml') return /^\s*\[\s*tool\s*\.\s*pytest\s*\.\s*ini_options\s*\]/m.test(text);
  if (name === 'tox.ini') return /^\s*\[\s*pytest\s*\]/m.test(text);
  if (name === 'setup.cfg') return /^\s*\[\s*tool:pytest\s*\]/m.test(text);
  return true;
}

/** The deepest folder holding every one of `paths` (repository-relative), `.` for the root. */
function commonFolder(paths: readonly string[]): string {
  const folders = paths.map((path) => posix.dirname(path).split('/'));
  const common: string[] = [];
  for (let index = 0; folders.length > 0 && index < folders[0]!.length; index++) {
    const part = folders[0]![index]!;
    if (part === '.' || !folders.every((parts) => parts[index] === part)) break;
    common.push(part);
  }
  return common.length > 0 ? common.join('/') : '.';
}

/**
 * The configuration file pytest reads when it runs `modules` in the gold tree, as pytest finds it:
 * from the folder holding them all up to the repository's root, the first file of `configNames`
 * in each folder that holds pytest's section. Undefined when the gold tree has none. The scorer
 * names it with `-c`, so no configuration file the agent wrote is ever read.
 */
export async function goldPytestConfig(
  gold: string,
  modules: readonly string[],
): Promise<string | undefined> {
  for (let folder = commonFolder(modules); ; folder = posix.dirname(folder)) {
    for (const name of configNames) {
      const path = folder === '.' ? name : `${folder}/${name}`;
      const text = await readFile(join(gold, path), 'utf8').catch(() => undefined);
      if (text !== undefined && holdsPytestConfig(name, text)) return path;
    }
    if (folder === '.') return undefined;
  }
}
