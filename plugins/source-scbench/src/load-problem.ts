import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, extname, join, relative } from 'node:path';
import {
  ConfigError,
  type ConfigIssue,
  checkYaml,
  type PytestSuite,
  pytestSuiteKey,
  type Requirements,
  readDirectoryFiles,
  readYaml,
  type Step,
  sha256,
  type Task,
} from '@longhaul/core';
import { type ConfigFile, configFileSchema, markerGroup } from './config-file.js';
import { dataFileIssues } from './data-files.js';
import { assemble, cacheDir } from './materialize.js';
import { optionsSchema, type ScbenchOptions } from './options.js';
import { type PythonTree, requirementsOf } from './requirements.js';
import { renderSpec } from './spec-text.js';
import { splitTestCode, type TestCode } from './test-code.js';

const ignored = new Set(['__pycache__', '.pytest_cache', '.DS_Store']);

async function isDir(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined))?.isDirectory() ?? false;
}

async function exists(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined)) !== undefined;
}

async function hashProblem(root: string): Promise<string> {
  const files = (await readDirectoryFiles(root)).filter(
    (file) => !file.path.split('/').some((part) => ignored.has(part)),
  );
  return `sha256:${sha256(files.map((file) => `${file.path}\0${sha256(file.data)}\n`).join(''))}`;
}

/**
 * The Python sources under `dir` and the modules it holds itself: every `.py` file's stem and every
 * directory's name, at any depth (tests and solutions put helpers on `sys.path` their own ways).
 */
async function pythonTree(dir: string): Promise<PythonTree> {
  if (!(await isDir(dir))) return { files: [], local: new Set() };
  const files = (await readDirectoryFiles(dir)).filter(
    (file) => !file.path.split('/').some((part) => ignored.has(part)),
  );
  const local = new Set<string>();
  for (const file of files) {
    const parts = file.path.split('/');
    for (const part of parts.slice(0, -1)) local.add(part);
    if (file.path.endsWith('.py')) local.add(basename(file.path, '.py'));
  }
  return {
    files: files
      .filter((file) => file.path.endsWith('.py'))
      .map((file) => ({ path: join(dir, file.path), source: Buffer.from(file.data).toString('utf8') })),
    local,
  };
}

export function entryFileOf(entry: string): string {
  return extname(entry) ? entry : `${entry}.py`;
}

type ProblemYaml = Awaited<ReturnType<typeof readYaml>>;

/** Each checkpoint's reference solution as Python sources (empty where there is none). */
function solutionTrees(root: string, config: ConfigFile): Promise<PythonTree[]> {
  return Promise.all(
    Object.keys(config.checkpoints).map((name) => pythonTree(join(root, 'solutions', name))),
  );
}

/** The tests' code apart from their data, with the modules the reference solutions hold (see `splitTestCode`). */
async function testCodeOf(root: string, solutions: readonly PythonTree[]): Promise<TestCode> {
  const held = new Map<string, string>();
  for (const solution of solutions)
    for (const file of solution.files) {
      const module = basename(file.path, '.py');
      if (!held.has(module)) held.set(module, relative(root, file.path));
    }
  const testsDir = join(root, 'tests');
  return splitTestCode(testsDir, root, await pythonTree(testsDir), held);
}

/** What the problem needs where it runs, each with the file that asks for it (see `requirementsOf`). */
function requirementsOfProblem(
  root: string,
  config: ConfigFile,
  yaml: ProblemYaml,
  options: Pick<ScbenchOptions, 'entryCommand' | 'requiresPython' | 'python'>,
  tests: PythonTree,
  solutions: readonly PythonTree[],
): Requirements {
  const configPath = join(root, 'config.yaml');
  const at = (key: string) => {
    const where = yaml.locate([key]);
    return where ? `${configPath}:${where.line}` : configPath;
  };
  const python = config.requires_python ?? options.requiresPython;
  return requirementsOf({
    python:
      python === undefined
        ? undefined
        : {
            version: python.replace(/^\s*>=\s*/, '').trim(),
            origin: config.requires_python ? at('requires_python') : 'source option requiresPython',
          },
    testPython: options.python,
    testDependencies: { names: config.test_dependencies, origin: at('test_dependencies') },
    entryCommand: options.entryCommand.replaceAll('{entry_file}', entryFileOf(config.entry_file)),
    tests,
    solutions,
  });
}

/**
 * What one problem directory needs where it runs, as its task's `environment.requires` states it:
 * Python version, Python packages (declared, imported by the tests, imported by the reference
 * solutions) and programs, each with its origin. For choosing an environment or image per problem;
 * a config.yaml that cannot be read is a ConfigError naming where.
 */
export async function problemRequirements(
  root: string,
  options: Partial<Pick<ScbenchOptions, 'entryCommand' | 'requiresPython' | 'python'>> = {},
): Promise<Requirements> {
  const yaml = await readYaml(join(root, 'config.yaml'));
  const checked = checkYaml(yaml, configFileSchema);
  if (!checked.data) throw new ConfigError(checked.issues);
  const solutions = await solutionTrees(root, checked.data);
  return requirementsOfProblem(
    root,
    checked.data,
    yaml,
    optionsSchema.parse({ path: root, ...options }),
    (await testCodeOf(root, solutions)).code,
    solutions,
  );
}

/** Loads one SlopCodeBench problem directory; every problem found goes into `issues`. */
export async function loadProblem(
  root: string,
  options: ScbenchOptions,
  issues: ConfigIssue[],
): Promise<Task | undefined> {
  const before = issues.length;
  const configPath = join(root, 'config.yaml');
  let yaml: ProblemYaml;
  try {
    yaml = await readYaml(configPath);
  } catch (error) {
    if (error instanceof ConfigError) issues.push(...error.issues);
    else
      issues.push({ file: configPath, message: 'missing config.yaml (every problem directory needs one)' });
    return undefined;
  }
  const checked = checkYaml(yaml, configFileSchema);
  if (!checked.data) {
    issues.push(...checked.issues);
    return undefined;
  }
  const config = checked.data;
  const entryFile = entryFileOf(config.entry_file);
  const entryCommand = options.entryCommand.replaceAll('{entry_file}', entryFile);
  const checkpoints = Object.entries(config.checkpoints).sort(([, a], [, b]) => a.order - b.order);
  if (checkpoints.length === 0)
    issues.push(yaml.issue(['checkpoints'], 'a problem needs at least one checkpoint'));
  const orders = checkpoints.map(([, checkpoint]) => checkpoint.order);
  if (new Set(orders).size !== orders.length) {
    issues.push(yaml.issue(['checkpoints'], `checkpoint orders must differ (found ${orders.join(', ')})`));
  }
  for (const [name, asset] of Object.entries(config.static_assets)) {
    if (asset.path.startsWith('/') || asset.path.split('/').includes('..')) {
      issues.push(yaml.issue(['static_assets', name, 'path'], 'must be a path inside the problem directory'));
    } else if (!(await exists(join(root, asset.path)))) {
      issues.push(yaml.issue(['static_assets', name, 'path'], `no such file or directory: ${asset.path}`));
    }
  }
  const testsDir = join(root, 'tests');
  if (!(await exists(join(testsDir, 'conftest.py')))) {
    issues.push({
      file: join(testsDir, 'conftest.py'),
      message: 'missing tests/conftest.py (it declares --entrypoint and --checkpoint)',
    });
  }
  const solutionSources = await solutionTrees(root, config);
  const tests = await testCodeOf(root, solutionSources);
  // The task is still built when only its data is at fault, so what it needs is checked too.
  const dataAt = issues.length;
  const dataIssues = await dataFileIssues(
    testsDir,
    tests.code.files,
    new Set(Object.keys(config.static_assets)),
    Object.values(config.static_assets).map((asset) => join(root, asset.path)),
  );
  const steps: Omit<Step, 'solution'>[] = [];
  const solutions: (string | undefined)[] = [];
  for (const [index, [name]] of checkpoints.entries()) {
    const specFile = join(root, `${name}.md`);
    const spec = await readFile(specFile, 'utf8').catch(() => undefined);
    if (spec === undefined)
      issues.push({ file: specFile, message: `missing ${name}.md (the spec of checkpoint ${name})` });
    const testFile = join(testsDir, `test_${name}.py`);
    if (!(await exists(testFile)))
      issues.push({
        file: testFile,
        message: `missing tests/test_${name}.py (the tests of checkpoint ${name})`,
      });
    const solution = join(root, 'solutions', name);
    solutions.push((await isDir(solution)) ? solution : undefined);
    steps.push({
      id: name,
      index,
      title: config.checkpoints[name]?.state,
      prompt: renderSpec(
        spec ?? '',
        specFile,
        { entry_command: entryCommand, entry_file: entryFile },
        issues,
      ),
      metadata: { checkpoint: name, version: config.checkpoints[name]?.version },
    });
  }
  const fatal = issues.length > before;
  issues.splice(dataAt, 0, ...dataIssues);
  if (fatal) return undefined;
  const hash = await hashProblem(root);
  const assets = Object.values(config.static_assets).map((asset) => asset.path);
  const cache = cacheDir(hash);
  const requires = requirementsOfProblem(root, config, yaml, options, tests.code, solutionSources);
  const suite: PytestSuite = {
    testsDir,
    python: options.python,
    entrypoint: entryCommand,
    checkpoints: checkpoints.map(([name, checkpoint]) => ({
      name,
      file: `test_${name}.py`,
      includePrior: checkpoint.include_prior_tests,
      testTimeoutSeconds: checkpoint.timeout ?? config.timeout,
    })),
    staticAssets: Object.fromEntries(
      Object.entries(config.static_assets).map(([name, asset]) => [name, asset.path]),
    ),
    markers: Object.fromEntries(
      Object.entries(config.markers).map(([name, marker]) => [name, markerGroup(marker.group)]),
    ),
    timeoutMs: Math.round(options.suiteTimeoutSeconds * 1000),
  };
  return {
    id: basename(root),
    title: config.name,
    description: config.description?.trim(),
    source: 'scbench',
    root,
    entrypoint: entryCommand,
    language: 'python',
    // The assets are the problem's: left out of snapshots (and so of quality metrics), as upstream does.
    environment: {
      toolchains: ['python'],
      network: 'none',
      requires,
      ...(assets.length > 0 ? { assets } : {}),
    },
    seed: assets.length > 0 ? await assemble(join(cache, 'seed'), root, assets) : undefined,
    steps: await Promise.all(
      steps.map(async (step, index) => {
        const solution = solutions[index];
        if (!solution || assets.length === 0) return { ...step, solution };
        return {
          ...step,
          solution: await assemble(join(cache, 'solutions', step.id), root, assets, solution),
        };
      }),
    ),
    timeouts: { caseMs: Math.round(config.timeout * 1000) },
    hash,
    metadata: {
      [pytestSuiteKey]: suite,
      entryFile,
      category: config.category,
      difficulty: config.difficulty,
      tags: config.tags,
      author: config.author,
      testDependencies: config.test_dependencies,
      // Said at validate: what was read as data, and which imports are the agent's to provide.
      testData: tests.data,
      agentModules: tests.agentModules,
    },
  };
}

/** Problem directories under `path`: those with a config.yaml, by name. */
export async function problemDirectories(path: string): Promise<string[]> {
  const entries = await readdir(path, { withFileTypes: true });
  const found: string[] = [];
  for (const entry of entries.filter((item) => item.isDirectory() && !item.name.startsWith('.'))) {
    if (await exists(join(path, entry.name, 'config.yaml'))) found.push(join(path, entry.name));
  }
  return found.sort();
}
