import { readFile, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { type JudgeArea, type PytestSuite, readDirectoryFiles } from '@longhaul/core';
import { splitCommand } from '../split-command.js';
import { builtinMarkers } from './categorize.js';
import { reportPluginModule, reportPluginSource } from './report-plugin.js';

/**
 * Where everything of a pytest run lives in the judge area (never in the workspace):
 *
 * ```
 * <judge>/.suite/pytest.ini                 our own, as SlopCodeBench's runner generates it (-c)
 * <judge>/.suite/.evaluation_tests/…        the suite, copied as that runner copies it
 * <judge>/.suite/.evaluation_tests/assets/  the static assets
 * <judge>/plugins/longhaul_judge.py         the report plugin (-p)
 * <judge>/report.jsonl                      what the plugin writes, as root
 * ```
 *
 * `.suite` is pytest's rootdir and conftest boundary. Its name and the tests folder's start with a
 * dot, so neither can be a marker name among a test's keywords (pytest 8 lists folders there).
 */
export const layout = {
  root: '.suite',
  ini: '.suite/pytest.ini',
  tests: '.suite/.evaluation_tests',
  plugins: 'plugins',
  report: 'report.jsonl',
} as const;

/** The pytest.ini SlopCodeBench's runner writes: the built-in markers, then the problem's. */
export function pytestIni(suite: PytestSuite): string {
  const descriptions: Record<string, string> = {
    error: 'error-handling / edge-case tests',
    functionality: 'non-core / nice-to-have tests',
    regression: 'regression tests from prior checkpoints',
  };
  const custom = Object.entries(suite.markers)
    .filter(([name]) => !(builtinMarkers as readonly string[]).includes(name))
    .map(([name, category]) => `    ${name}: ${category} tests`);
  const markers = [...builtinMarkers.map((name) => `    ${name}: ${descriptions[name]}`), ...custom];
  return `[pytest]\ntestpaths = .evaluation_tests\nmarkers =\n${markers.join('\n')}\n`;
}

/**
 * The files of the suite the checkpoint at `index` runs with, as SlopCodeBench's runner copies
 * them: at the top of `tests/`, conftest.py always, a `test_*.py` only when it is this checkpoint's
 * file (or an earlier one's, with `include_prior_tests`), every other file; every folder whole
 * (caches left out).
 */
export async function suiteFiles(suite: PytestSuite, index: number) {
  const checkpoint = suite.checkpoints[index]!;
  const wanted = new Set(
    suite.checkpoints
      .slice(0, index + 1)
      .filter((_item, position) => position === index || checkpoint.includePrior)
      .map((item) => item.file),
  );
  const files = await readDirectoryFiles(suite.testsDir);
  return files.filter((file) => {
    const parts = file.path.split('/');
    if (parts.some((part) => part === '__pycache__' || part === '.pytest_cache')) return false;
    if (parts.length > 1) return true;
    const name = file.path;
    const isTest = name.startsWith('test_') && name.endsWith('.py');
    return !isTest || wanted.has(name);
  });
}

/**
 * Writes the suite, its config, the static assets and the plugin. The program under test may read
 * the suite's data, as upstream's may (a test hands it a sample project under `tests/data/` by
 * path, or an asset): every folder of the suite and every file at its top but Python modules.
 * The test code at the top (conftest.py, the test files, helpers) stays the judge's alone.
 */
export async function installSuite(judge: JudgeArea, suite: PytestSuite, index: number): Promise<void> {
  const shared = new Set<string>();
  for (const file of await suiteFiles(suite, index)) {
    await judge.writeFile(`${layout.tests}/${file.path}`, file.data, { mode: file.mode });
    const [top] = file.path.split('/');
    if (file.path.includes('/') || !file.path.endsWith('.py')) shared.add(top!);
  }
  // Static assets go where SlopCodeBench's runner puts them for the tests: tests/assets/<name>.
  const problem = dirname(suite.testsDir);
  for (const [name, path] of Object.entries(suite.staticAssets)) {
    const source = join(problem, path);
    const target = `${layout.tests}/assets/${name}`;
    if ((await stat(source)).isDirectory()) {
      for (const file of await readDirectoryFiles(source))
        await judge.writeFile(`${target}/${file.path}`, file.data, { mode: file.mode });
    } else {
      await judge.writeFile(target, await readFile(source));
    }
    shared.add('assets');
  }
  for (const path of shared) await judge.share(`${layout.tests}/${path}`);
  await judge.writeFile(layout.ini, pytestIni(suite));
  await judge.writeFile(`${layout.plugins}/${reportPluginModule}.py`, reportPluginSource);
}

/** Quotes one word as a POSIX shell (and Python's shlex) reads it back. */
function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * Starts pytest with nothing of the workspace: `-I` (no current folder, PYTHONPATH or user site
 * on sys.path, so no sitecustomize, usercustomize or .pth of the agent's), `-B` (no bytecode
 * written), our plugin's folder put first on sys.path by this bootstrap, then pytest.main with
 * the arguments that follow.
 */
const bootstrap = 'import sys; sys.path.insert(0, sys.argv.pop(1)); import pytest; sys.exit(pytest.main())';

/**
 * The argv of one pytest run for the checkpoint at `index`: our ini (`-c`), rootdir and conftest
 * boundary in the judge area, the suite's folder as the one path (as upstream passes its tests
 * folder), and the entrypoint wrapped so that the program under test runs confined.
 */
export function pytestArgv(judge: JudgeArea, suite: PytestSuite, index: number): string[] {
  const checkpoint = suite.checkpoints[index]!;
  const at = (path: string) => `${judge.path}/${path}`;
  const entrypoint = judge.confine(splitCommand(suite.entrypoint)).map(shellWord).join(' ');
  return [
    suite.python,
    '-I',
    '-B',
    '-c',
    bootstrap,
    at(layout.plugins),
    '-c',
    at(layout.ini),
    `--rootdir=${at(layout.root)}`,
    `--confcutdir=${at(layout.root)}`,
    '-p',
    reportPluginModule,
    `--longhaul-report=${at(layout.report)}`,
    '-p',
    'no:cacheprovider',
    '-q',
    // Before the conftest's options: pytest reads its paths before it knows those, and argparse
    // takes an unknown option whose value has a blank for a path, which would end the paths there.
    at(layout.tests),
    ...(checkpoint.testTimeoutSeconds !== undefined
      ? [`--timeout=${Math.floor(checkpoint.testTimeoutSeconds)}`]
      : []),
    `--entrypoint=${entrypoint}`,
    `--checkpoint=${checkpoint.name}`,
  ];
}

/**
 * The environment SlopCodeBench's runner gives pytest: the checkpoint and where each asset is.
 * pytest's own variables are emptied: the run takes its options from its argv and ini alone.
 */
export function pytestEnv(judge: JudgeArea, suite: PytestSuite, index: number): Record<string, string> {
  const assets = `${judge.path}/${layout.tests}/assets`;
  return {
    SCBENCH_CHECKPOINT: suite.checkpoints[index]!.name,
    PYTEST_ADDOPTS: '',
    PYTEST_PLUGINS: '',
    ...(Object.keys(suite.staticAssets).length > 0
      ? {
          SCBENCH_ASSETS_DIR: assets,
          ...Object.fromEntries(
            Object.keys(suite.staticAssets).map((name) => [
              `SCBENCH_ASSET_${name.toUpperCase()}`,
              `${assets}/${name}`,
            ]),
          ),
        }
      : {}),
  };
}
