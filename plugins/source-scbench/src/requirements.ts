import type { Requirements } from '@longhaul/core';
import { codeOnly, importedModules, position } from './python-code.js';
import { stdlibModules } from './stdlib-modules.js';

/**
 * Programs SlopCodeBench's multi-language problems call from their tests (toolchains and runners).
 * Upstream's image simply has them all; its problem configs do not list them, so the source finds
 * them in the test files.
 */
const knownPrograms = [
  'uv',
  'uvx',
  'node',
  'npm',
  'npx',
  'deno',
  'bun',
  'tsc',
  'gcc',
  'g++',
  'clang',
  'clang++',
  'make',
  'cmake',
  'rustc',
  'cargo',
  'go',
  'java',
  'javac',
  'ruby',
  'sqlite3',
];

/** Those distinctive enough to be told apart from prose when they start a command string. */
const distinctPrograms = [
  'uv',
  'uvx',
  'npm',
  'npx',
  'deno',
  'tsc',
  'gcc',
  'g++',
  'clang',
  'clang++',
  'cmake',
  'rustc',
  'cargo',
  'javac',
  'sqlite3',
];

const alternatives = (names: readonly string[]) => names.map((name) => name.replace(/[+]/g, '\\+')).join('|');
const escaped = alternatives(knownPrograms);
/** A list literal as a process's argv: the first argument of a call that starts one, or a statement's value. */
const argvList = new RegExp(
  String.raw`(?<call>\b(?:run|Popen|call|check_call|check_output|create_subprocess_exec|spawn)\(\s*)?\[\s*(["'])(${escaped})\2\s*[,\]]`,
  'g',
);
/** The start of a command string (`"g++ -O2 main.cc"`) or `shutil.which("node")`. */
const commandText = new RegExp(
  `(["'])(${alternatives(distinctPrograms)}) [^"'\\n]*\\1|which\\(\\s*(["'])(${escaped})\\3\\s*\\)`,
  'g',
);

/** Bracket depth at the start of each line of code (strings and comments blanked). */
function depthAtLines(code: string): number[] {
  const depths = [0];
  let depth = 0;
  for (const char of code) {
    if (char === '(' || char === '[' || char === '{') depth++;
    else if (char === ')' || char === ']' || char === '}') depth = Math.max(0, depth - 1);
    else if (char === '\n') depths.push(depth);
  }
  return depths;
}

/**
 * The programs of `knownPrograms` that these test sources run, each with where it is first run
 * (`file:line`): the first item of an argv list passed to a call that starts a process or bound by
 * a statement of its own (`cmd = ["go", "run", …]`), the start of a command string, or looked up
 * with `shutil.which`. A list that is data (`{"languages": ["go"]}`, `languages=["go"]`) is not a
 * program the tests run.
 */
export function programsCalled(files: readonly { path: string; source: string }[]): Map<string, string> {
  const found = new Map<string, string>();
  const note = (name: string, file: { path: string; source: string }, offset: number) => {
    if (!found.has(name)) found.set(name, `${file.path}:${position(file.source, offset).line}`);
  };
  for (const file of files) {
    const code = codeOnly(file.source);
    const depths = depthAtLines(code);
    for (const match of file.source.matchAll(argvList)) {
      if (code[match.index] === ' ') continue; // inside a string or a comment
      const { line } = position(file.source, match.index);
      const before = file.source.slice(file.source.lastIndexOf('\n', match.index) + 1, match.index);
      const statement =
        depths[line - 1] === 0 &&
        /^\s*[A-Za-z_][\w.]*\s*(?::[^=]+)?=\s*$/.test(before) &&
        !before.includes('==');
      if (match.groups!.call !== undefined || statement) note(match[3]!, file, match.index);
    }
    for (const match of file.source.matchAll(commandText)) note((match[2] ?? match[4])!, file, match.index);
  }
  return new Map([...found].sort(([a], [b]) => a.localeCompare(b)));
}

/** Import names whose distribution (what pip installs, what `importlib.metadata` knows) is named otherwise. */
const distributions: Record<string, string> = {
  _pytest: 'pytest',
  yaml: 'PyYAML',
  ruamel: 'ruamel.yaml',
  PIL: 'Pillow',
  bs4: 'beautifulsoup4',
  dateutil: 'python-dateutil',
  dotenv: 'python-dotenv',
  multipart: 'python-multipart',
  sklearn: 'scikit-learn',
  cv2: 'opencv-python',
  attr: 'attrs',
  jwt: 'PyJWT',
  git: 'GitPython',
  serial: 'pyserial',
  docx: 'python-docx',
  magic: 'python-magic',
  Crypto: 'pycryptodome',
  OpenSSL: 'pyOpenSSL',
  google: 'protobuf',
  pkg_resources: 'setuptools',
  tree_sitter: 'tree-sitter',
  tree_sitter_python: 'tree-sitter-python',
  tree_sitter_javascript: 'tree-sitter-javascript',
  tree_sitter_languages: 'tree-sitter-languages',
  sqlalchemy: 'SQLAlchemy',
  jinja2: 'Jinja2',
  markupsafe: 'MarkupSafe',
  websocket: 'websocket-client',
  zmq: 'pyzmq',
  nacl: 'PyNaCl',
  psycopg2: 'psycopg2-binary',
};

/**
 * The distributions these sources import, each with where it is first imported (`file:line`):
 * every `import x` / `from x import …` that is not relative, not of the standard library, not one
 * of `local` (the modules the directory holds itself) and not optional (inside a `try` that
 * catches ImportError, or under `if TYPE_CHECKING:`).
 */
export function packagesImported(
  files: readonly { path: string; source: string }[],
  local: ReadonlySet<string>,
): Map<string, string> {
  const found = new Map<string, string>();
  for (const file of files)
    for (const { module, line } of importedModules(file.source)) {
      const top = module.split('.')[0]!;
      if (stdlibModules.has(top) || local.has(top) || (top.startsWith('_') && top !== '_pytest')) continue;
      const name = distributions[top] ?? top;
      if (!found.has(name)) found.set(name, `${file.path}:${line}`);
    }
  return found;
}

/** `httpx>=0.27`, `uvicorn[standard]` → the distribution name pip would install. */
export function distributionName(requirement: string): string {
  return /^\s*([A-Za-z0-9][A-Za-z0-9._-]*)/.exec(requirement)?.[1] ?? requirement.trim();
}

/** The first word of a command line (`python3 main.py` → python3). */
function program(command: string): string | undefined {
  return command.trim().split(/\s+/)[0] || undefined;
}

/** Python sources with the modules their directory holds itself (imported by name, never installed). */
export interface PythonTree {
  files: readonly { path: string; source: string }[];
  local: ReadonlySet<string>;
}

/**
 * What a problem needs where it runs: python3 at `python` or later when set; the interpreter that
 * runs the hidden tests (`testPython`, probed itself) with pytest and pytest-timeout (longhaul's
 * invocation of the suite: SlopCodeBench's runner always adds both), the config's
 * `test_dependencies` and every package the tests and conftests import (upstream's runner also
 * installs jsonschema and deepdiff for every suite, so tests import them undeclared); python3 on
 * PATH with every package a reference solution imports (the agent's code is run where the
 * solution was, by the entry command); the entry command's program and those the tests run.
 */
export function requirementsOf(input: {
  python?: { version: string; origin: string };
  testPython: string;
  testDependencies: { names: readonly string[]; origin: string };
  entryCommand: string;
  tests: PythonTree;
  solutions: readonly PythonTree[];
}): Requirements {
  const origins: Record<string, string> = {};
  if (input.python) origins.python = input.python.origin;
  const declared = input.testDependencies.names.map(distributionName);
  for (const name of declared) origins[name] = input.testDependencies.origin;
  const imported = packagesImported(input.tests.files, input.tests.local);
  // pytest is the runner's own; where a test imports it says nothing the user needs.
  for (const [name, where] of imported) if (name !== 'pytest') origins[name] ??= where;
  const solutionNeeds = new Map<string, string>();
  for (const solution of input.solutions)
    for (const [name, where] of packagesImported(solution.files, solution.local))
      if (!solutionNeeds.has(name)) solutionNeeds.set(name, where);
  for (const [name, where] of solutionNeeds) origins[name] ??= `the reference solution needs it: ${where}`;
  const called = programsCalled(input.tests.files);
  for (const [name, where] of called) origins[name] ??= where;
  const entry = program(input.entryCommand);
  return {
    ...(input.python ? { python: input.python.version } : {}),
    pythonPackages: [...solutionNeeds.keys()],
    interpreters: {
      [input.testPython]: [...new Set(['pytest', 'pytest-timeout', ...declared, ...imported.keys()])],
    },
    commands: [...new Set([...(entry && !entry.includes('/') ? [entry] : []), ...called.keys()])],
    origins,
  };
}
