import { basename, dirname, join, relative } from 'node:path';
import { referencedPaths } from './data-files.js';
import { codeOnly, importedModules, position } from './python-code.js';
import type { PythonTree } from './requirements.js';
import { stdlibModules } from './stdlib-modules.js';

type File = PythonTree['files'][number];

/** A folder under tests/ the tests read as input (a project to search, a corpus): its Python files are data. */
export interface DataFolder {
  /** Relative to the problem directory, e.g. `tests/data/checkpoint_1/proj`. */
  path: string;
  /** How many Python files it holds. */
  files: number;
  /** Where the tests name it: `file:line`. */
  readAt: string;
}

/** A module a test-side file imports that the agent's program provides, so nothing installs it. */
export interface AgentModule {
  module: string;
  /** `file:line` of the import. */
  importedAt: string;
  /** Why it is the agent's, in words: a reference solution holds it, or the tests hand its name to the program. */
  because: string;
}

export interface TestCode {
  /** The test-side code: what pytest imports and the scripts the tests run; its `local` holds the agent's modules too. */
  code: PythonTree;
  data: DataFolder[];
  agentModules: AgentModule[];
}

/** conftest.py and the test files at the top of tests/: what upstream's runner hands pytest. */
function isEntry(testsDir: string, file: File): boolean {
  const name = basename(file.path);
  return (
    dirname(file.path) === testsDir &&
    (name === 'conftest.py' ||
      (name.startsWith('test_') && name.endsWith('.py')) ||
      name.endsWith('_test.py'))
  );
}

/**
 * Whether importing `module` runs `file` (`path` relative to tests/, without `.py`): it is that
 * module or a package `__init__` on its way, from tests/ as pytest puts it on sys.path; a one-part
 * name also matches a file of that name anywhere (tests put their helper folders on sys.path).
 */
function runsFile(module: string, path: string): boolean {
  const dotted = path.replaceAll('/', '.');
  const parts = module.split('.');
  if (parts.some((_, index) => dotted === `${parts.slice(0, index + 1).join('.')}.__init__`)) return true;
  if (dotted === module) return true;
  const stem = path.split('/').at(-1) === '__init__' ? path.split('/').at(-2) : path.split('/').at(-1);
  return parts.length === 1 && stem === module;
}

/** Every string literal that is a bare module name (`"dynamic_py_buffer"`), with where it first appears. */
function moduleNameLiterals(files: readonly File[]): Map<string, string> {
  const found = new Map<string, string>();
  for (const file of files) {
    const code = codeOnly(file.source);
    for (const match of file.source.matchAll(/(["'])([A-Za-z_][A-Za-z0-9_]*)\1/g)) {
      // codeOnly blanks a literal's content: a quote followed by a blank is a real literal's start.
      if (code[match.index] !== match[1] || code[match.index + 1] !== ' ') continue;
      if (!found.has(match[2]!))
        found.set(match[2]!, `${file.path}:${position(file.source, match.index).line}`);
    }
  }
  return found;
}

/**
 * Splits the Python files under `testsDir` into the code the tests run and the data they read.
 * The code is what pytest imports (conftest.py, the test files, the modules they import, and so
 * on) and every other file no folder of data holds (a script the tests run, like
 * `tests/assets/run.py`). Data is a Python file under a folder the code names as a path
 * (`Path(__file__).parent / "data" / "checkpoint_1" / "proj"`) that the code neither imports nor
 * names itself: a sample project the agent's program is run against, never run by the tests.
 * A module the code imports is the agent's, not a requirement, when a reference solution holds it
 * (`solutionModules`) or when a script the tests run imports it and the tests hand its name to the
 * agent's program as a string (`"dynamic_py_buffer"`: the program writes that module).
 */
export function splitTestCode(
  testsDir: string,
  problemDir: string,
  tree: PythonTree,
  solutionModules: ReadonlyMap<string, string>,
): TestCode {
  const imported = new Set<File>(tree.files.filter((file) => isEntry(testsDir, file)));
  for (let grew = true; grew; ) {
    grew = false;
    const modules = new Set(
      [...imported].flatMap((file) => importedModules(file.source).map((item) => item.module)),
    );
    for (const file of tree.files) {
      const path = relative(testsDir, file.path).replace(/\.py$/, '');
      if (imported.has(file) || ![...modules].some((module) => runsFile(module, path))) continue;
      imported.add(file);
      grew = true;
    }
  }
  const named = new Map<string, string>();
  for (const file of imported)
    for (const reference of referencedPaths(file.source))
      if (!named.has(reference.path)) named.set(reference.path, `${file.path}:${reference.line}`);
  const isData = (file: File) => {
    if (imported.has(file)) return false;
    const path = relative(testsDir, file.path);
    if (named.has(path)) return false;
    return [...named.keys()].some((folder) => path.startsWith(`${folder}/`));
  };
  // Each data file counts for the deepest folder named that holds it (`data/checkpoint_1/proj`, not `data`).
  const folders = new Map<string, number>();
  for (const file of tree.files.filter(isData)) {
    const path = relative(testsDir, file.path);
    const [folder] = [...named.keys()]
      .filter((candidate) => path.startsWith(`${candidate}/`))
      .sort((a, b) => b.length - a.length);
    folders.set(folder!, (folders.get(folder!) ?? 0) + 1);
  }
  const data = [...folders].map(([folder, files]) => ({
    path: relative(problemDir, join(testsDir, folder)),
    files,
    readAt: named.get(folder)!,
  }));
  const code = tree.files.filter((file) => !isData(file));
  // The modules the tests hold themselves, by the code's files only: a sample project's `yaml.py` is no module of theirs.
  const local = new Set<string>();
  for (const file of code) {
    const parts = relative(testsDir, file.path).split('/');
    for (const part of parts.slice(0, -1)) local.add(part);
    local.add(basename(file.path, '.py'));
  }
  const literals = moduleNameLiterals([...imported]);
  const agentModules: AgentModule[] = [];
  for (const file of code)
    for (const { module, line } of importedModules(file.source)) {
      const top = module.split('.')[0]!;
      if (stdlibModules.has(top) || local.has(top) || agentModules.some((item) => item.module === top))
        continue;
      const importedAt = `${file.path}:${line}`;
      const held = solutionModules.get(top);
      if (held !== undefined)
        agentModules.push({ module: top, importedAt, because: `a reference solution holds it (${held})` });
      else if (!imported.has(file) && literals.has(top))
        agentModules.push({
          module: top,
          importedAt,
          because: `the tests hand that name to the agent's program (${literals.get(top)})`,
        });
    }
  return {
    code: { files: code, local: new Set([...local, ...agentModules.map((item) => item.module)]) },
    data: data.sort((a, b) => a.path.localeCompare(b.path)),
    agentModules,
  };
}

/**
 * What validate says of a task's tests, one line each: the folders read as data (their imports are
 * not required) and the imports left to the agent's program.
 */
export function testCodeNotes(task: { id: string; metadata?: Record<string, unknown> }): string[] {
  const data = (task.metadata?.testData ?? []) as DataFolder[];
  const modules = (task.metadata?.agentModules ?? []) as AgentModule[];
  return [
    ...(data.length > 0
      ? [
          `task ${task.id}: read as data, not as code to run (what they import is not required): ${data
            .map((folder) => `${folder.path}/ (${folder.files} .py files, read at ${folder.readAt})`)
            .join(', ')}`,
        ]
      : []),
    ...modules.map(
      (item) =>
        `task ${task.id}: ${item.module}, imported at ${item.importedAt}, is not required: ${item.because}`,
    ),
  ];
}
