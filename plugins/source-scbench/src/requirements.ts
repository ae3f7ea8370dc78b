import type { Requirements } from '@longhaul/core';

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
/**
 * A program name as a test runs it: the first item of an argv list (`["uv", …]`), the start of a
 * command string (`"uv run x"`), or looked up with `shutil.which("node")`.
 */
const programUse = new RegExp(
  `\\[\\s*(["'])(${escaped})\\1\\s*[,\\]]|(["'])(${alternatives(distinctPrograms)}) [^"'\\n]*\\3|which\\(\\s*(["'])(${escaped})\\5\\s*\\)`,
  'g',
);

/** The programs of `knownPrograms` that these test sources run, each with where it is first run (`file:line`). */
export function programsCalled(files: readonly { path: string; source: string }[]): Map<string, string> {
  const found = new Map<string, string>();
  for (const file of files)
    for (const match of file.source.matchAll(programUse)) {
      const name = (match[2] ?? match[4] ?? match[6])!;
      const line = file.source.slice(0, match.index).split('\n').length;
      if (!found.has(name)) found.set(name, `${file.path}:${line}`);
    }
  return new Map([...found].sort(([a], [b]) => a.localeCompare(b)));
}

/** `httpx>=0.27`, `uvicorn[standard]` → the distribution name pip would install. */
export function distributionName(requirement: string): string {
  return /^\s*([A-Za-z0-9][A-Za-z0-9._-]*)/.exec(requirement)?.[1] ?? requirement.trim();
}

/** The first word of a command line (`python3 main.py` → python3). */
function program(command: string): string | undefined {
  return command.trim().split(/\s+/)[0] || undefined;
}

/**
 * What a problem needs where it runs: python3 at `python` or later when set; pytest and
 * pytest-timeout (longhaul's invocation of the suite: SlopCodeBench's runner always adds both)
 * and the config's `test_dependencies`; the entry command's program and those the tests call.
 */
export function problemRequirements(input: {
  python?: { version: string; origin: string };
  testDependencies: { names: readonly string[]; origin: string };
  entryCommand: string;
  testFiles: readonly { path: string; source: string }[];
}): Requirements {
  const origins: Record<string, string> = {};
  if (input.python) origins.python = input.python.origin;
  const declared = input.testDependencies.names.map(distributionName);
  for (const name of declared) origins[name] = input.testDependencies.origin;
  const called = programsCalled(input.testFiles);
  for (const [name, where] of called) origins[name] ??= where;
  const entry = program(input.entryCommand);
  return {
    ...(input.python ? { python: input.python.version } : {}),
    pythonPackages: [...new Set(['pytest', 'pytest-timeout', ...declared])],
    commands: [...new Set([...(entry && !entry.includes('/') ? [entry] : []), ...called.keys()])],
    origins,
  };
}
