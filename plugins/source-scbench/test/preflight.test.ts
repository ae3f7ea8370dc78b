import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, formatIssue, missingRequirements, type Task } from '@longhaul/core';
import { afterEach, describe, expect, it } from 'vitest';
import { referencedPaths } from '../src/data-files.js';
import plugin, { problemRequirements, ScbenchSource } from '../src/index.js';
import { importedModules } from '../src/python-code.js';
import { packagesImported, programsCalled } from '../src/requirements.js';

// Problems in upstream's format, each the shape of a real problem the preflight once got wrong.
const fixtures = join(import.meta.dirname, 'fixtures/preflight');
const temps: string[] = [];

afterEach(async () => {
  await Promise.all(temps.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

function load(path: string, problems?: string[]): Promise<Task[]> {
  return new ScbenchSource(plugin.options.parse({ path, ...(problems ? { problems } : {}) })).load({
    baseDir: '/',
  });
}

async function issuesOf(path: string, problems?: string[]): Promise<string[]> {
  const error = await load(path, problems).catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(ConfigError);
  return (error as ConfigError).issues.map(formatIssue);
}

describe('source scbench: the preflight on upstream-format problems', () => {
  it('asks nothing of a problem whose tests name the runner’s tests/assets, read a real folder there, keep an unused fixture and write "languages": ["go"]', async () => {
    const [rulecheck] = await load(fixtures, ['rulecheck']);
    expect(rulecheck!.environment.requires).toEqual({
      pythonPackages: [],
      interpreters: { '/usr/bin/python3': ['pytest', 'pytest-timeout'] },
      commands: ['python3'],
      origins: {},
    });
    expect(rulecheck!.environment.assets).toEqual(['lookup']);
  });

  it('asks for what the tests import undeclared (deepdiff, which upstream’s runner always installs), at the line that imports it', async () => {
    const [jsonpatch] = await load(fixtures, ['jsonpatch']);
    expect(jsonpatch!.environment.requires).toEqual({
      pythonPackages: [],
      interpreters: { '/usr/bin/python3': ['pytest', 'pytest-timeout', 'deepdiff'] },
      commands: ['python3'],
      origins: { deepdiff: `${fixtures}/jsonpatch/tests/test_checkpoint_1.py:4` },
    });
  });

  it('asks for what the reference solution imports, and a host without it is told the reference solution needs it', async () => {
    const [pricedb] = await load(fixtures, ['pricedb']);
    const requires = pricedb!.environment.requires!;
    // The reference solution runs under python3 on PATH (the entry command), the tests under `python`.
    expect(requires.pythonPackages).toEqual(['duckdb']);
    expect(requires.interpreters).toEqual({ '/usr/bin/python3': ['pytest', 'pytest-timeout'] });
    // What `longhaul validate` prints for a host whose python3 lacks duckdb.
    expect(missingRequirements(requires, 'python 3.13.5\npackage-missing duckdb\n')).toEqual([
      `Python packages duckdb (the reference solution needs it: ${fixtures}/pricedb/solutions/checkpoint_1/pricedb.py:3)`,
    ]);
  });

  it('reads a sample project the tests search as data: its imports (numpy, pandas, seaborn, cryptography) are not required, and validate says so', async () => {
    const [codesearch] = await load(fixtures, ['codesearch']);
    expect(codesearch!.environment.requires).toEqual({
      pythonPackages: [],
      interpreters: { '/usr/bin/python3': ['pytest', 'pytest-timeout'] },
      commands: ['python3'],
      origins: {},
    });
    expect(codesearch!.metadata.testData).toEqual([
      {
        path: 'tests/data/checkpoint_1/proj',
        files: 3,
        readAt: `${fixtures}/codesearch/tests/test_checkpoint_1.py:10`,
      },
    ]);
    expect(plugin.warnings!(plugin.options.parse({ path: fixtures }), { tasks: [codesearch!] })).toEqual([
      `task codesearch: read as data, not as code to run (what they import is not required): tests/data/checkpoint_1/proj/ (3 .py files, read at ${fixtures}/codesearch/tests/test_checkpoint_1.py:10)`,
    ]);
  });

  it('takes a module the tests hand the agent’s program to write as the agent’s, not as a package to install', async () => {
    const [genbuffer] = await load(fixtures, ['genbuffer']);
    expect(genbuffer!.environment.requires?.interpreters).toEqual({
      '/usr/bin/python3': ['pytest', 'pytest-timeout'],
    });
    expect(genbuffer!.environment.requires?.pythonPackages).toEqual([]);
    const note = `task genbuffer: dynamic_py_buffer, imported at ${fixtures}/genbuffer/tests/assets/run.py:5, is not required: the tests hand that name to the agent's program (${fixtures}/genbuffer/tests/test_checkpoint_1.py:22)`;
    expect(plugin.warnings!(plugin.options.parse({ path: fixtures }), { tasks: [genbuffer!] })).toEqual([
      note,
    ]);
  });

  it('still requires what a script the tests run imports, and what a module of data the tests import needs', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'longhaul-scbench-'));
    temps.push(dir);
    for (const name of ['genbuffer', 'codesearch'])
      await cp(join(fixtures, name), join(dir, name), { recursive: true });
    const script = join(dir, 'genbuffer/tests/assets/run.py');
    await writeFile(
      script,
      `import numpy
${await readFile(script, 'utf8')}`,
    );
    const helpers = join(dir, 'codesearch/tests/search_helpers.py');
    // A test that imports a module kept under data/ makes it code, with its imports.
    await writeFile(
      helpers,
      `from data.checkpoint_1.proj.A.I import summary
${await readFile(helpers, 'utf8')}`,
    );
    const [codesearch, genbuffer] = await load(dir);
    expect(genbuffer!.environment.requires?.interpreters?.['/usr/bin/python3']).toContain('numpy');
    expect(codesearch!.environment.requires?.interpreters?.['/usr/bin/python3']).toContain('scipy');
    expect(codesearch!.environment.requires?.interpreters?.['/usr/bin/python3']).not.toContain('numpy');
  });

  it('checks data files by content: an LFS pointer, an empty file and a file joined by os.path that is not there, each at its line', async () => {
    const file = `${fixtures}/ledger/tests/test_checkpoint_1.py`;
    expect(await issuesOf(fixtures, ['ledger'])).toEqual([
      `${file}:9:21: ${fixtures}/ledger/tests/data/cases.json is a Git LFS pointer, not its data (run \`git lfs pull\` in the benchmark's checkout)`,
      `${file}:10:13: the tests read ${fixtures}/ledger/tests/data/expected.txt, which is empty`,
      `${file}:11:12: the tests read ${fixtures}/ledger/tests/data/accounts.json, which is not there (a data file missing from the problem)`,
    ]);
  });

  it('still builds the problems it refuses for their data, and gives them with every issue, so their needs are checked too', async () => {
    const error = (await load(fixtures).catch((caught: unknown) => caught)) as ConfigError;
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.issues).toHaveLength(3);
    expect(error.loaded?.tasks?.map((task) => task.id)).toEqual([
      'codesearch',
      'genbuffer',
      'jsonpatch',
      'ledger',
      'pricedb',
      'rulecheck',
    ]);
  });

  it('finds an LFS pointer in a static asset and in tests/ however the tests reach it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'longhaul-scbench-'));
    temps.push(dir);
    const root = join(dir, 'rulecheck');
    await cp(join(fixtures, 'rulecheck'), root, { recursive: true });
    const pointer = 'version https://git-lfs.github.com/spec/v1\noid sha256:00\nsize 9\n';
    await writeFile(join(root, 'lookup/extensions.json'), pointer);
    await writeFile(join(root, 'tests/assets/projects/small/app.py'), pointer);
    const found = await issuesOf(root);
    expect(found).toEqual([
      `${root}/tests/assets/projects/small/app.py: ${root}/tests/assets/projects/small/app.py is a Git LFS pointer, not its data (run \`git lfs pull\` in the benchmark's checkout)`,
      `${root}/lookup/extensions.json: ${root}/lookup/extensions.json is a Git LFS pointer, not its data (run \`git lfs pull\` in the benchmark's checkout)`,
    ]);
  });

  it('checks the path of a fixture that runs: autouse, or asked for by name in usefixtures', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'longhaul-scbench-'));
    temps.push(dir);
    const root = join(dir, 'rulecheck');
    await cp(join(fixtures, 'rulecheck'), root, { recursive: true });
    const conftest = join(root, 'tests/conftest.py');
    const original = await readFile(conftest, 'utf8');
    const missing = `the tests read ${root}/tests/golden, which is not there (a data file missing from the problem)`;
    await writeFile(
      conftest,
      original.replace(
        '@pytest.fixture(scope="session")\ndef golden_dir',
        '@pytest.fixture(scope="session", autouse=True)\ndef golden_dir',
      ),
    );
    expect(await issuesOf(root)).toEqual([expect.stringContaining(missing)]);
    await writeFile(conftest, original);
    const tests = join(root, 'tests/test_checkpoint_1.py');
    await writeFile(
      tests,
      (await readFile(tests, 'utf8')).replace(
        'def test_go_files_only',
        '@pytest.mark.usefixtures("golden_dir")\ndef test_go_files_only',
      ),
    );
    expect(await issuesOf(root)).toEqual([expect.stringContaining(missing)]);
  });

  it('gives what a problem needs to whoever picks its environment, as its task states it', async () => {
    for (const name of ['rulecheck', 'jsonpatch', 'pricedb', 'codesearch', 'genbuffer']) {
      const [task] = await load(fixtures, [name]);
      expect(await problemRequirements(join(fixtures, name))).toEqual(task!.environment.requires);
    }
    expect(
      await problemRequirements(join(fixtures, 'pricedb'), { entryCommand: 'uv run {entry_file}' }),
    ).toMatchObject({
      commands: ['uv'],
    });
  });
});

describe('source scbench: reading Python sources', () => {
  it('takes a program from an argv a test runs, never from a list that is data', () => {
    const source = [
      'rules = {"languages": ["go"], "banned": ["make"]}',
      'write(languages=["node"])',
      'cmd = ["cargo", "build", "--release"]',
      'subprocess.run(',
      '    ["rustc", "main.rs"],',
      ')',
      'if x == ["javac"]:',
      '    pass',
      'note = "see the notes"  # subprocess.run(["gcc"])',
    ].join('\n');
    expect([...programsCalled([{ path: 't.py', source }])]).toEqual([
      ['cargo', 't.py:3'],
      ['rustc', 't.py:4'],
    ]);
  });

  it('takes packages from imports that always run, not from strings, relative, local, optional or type-only imports', () => {
    const source = [
      'import json, os.path as p',
      'import numpy as np',
      'from ruamel.yaml import YAML',
      'from . import helpers',
      'from helpers import load',
      'SAMPLE = """',
      'import requests',
      '"""',
      'try:',
      '    import orjson',
      'except ImportError:',
      '    orjson = None',
      'if TYPE_CHECKING:',
      '    from pandas import DataFrame',
      'def parse():',
      '    from yaml import safe_load',
      '    return safe_load',
    ].join('\n');
    expect(importedModules(source).map((item) => `${item.line}:${item.module}`)).toEqual([
      '1:json',
      '1:os.path',
      '2:numpy',
      '3:ruamel.yaml',
      '5:helpers',
      '16:yaml',
    ]);
    expect([...packagesImported([{ path: 't.py', source }], new Set(['helpers']))]).toEqual([
      ['numpy', 't.py:2'],
      ['ruamel.yaml', 't.py:3'],
      ['PyYAML', 't.py:16'],
    ]);
  });

  it('follows paths from os.path.join, joinpath and names bound to the tests directory', () => {
    const source = [
      'HERE = os.path.dirname(os.path.abspath(__file__))',
      'CASES = os.path.join(HERE, "data", "cases.json")',
      'ROOT = Path(__file__).absolute().parent',
      'GOLDEN = ROOT / "golden"',
      'one = GOLDEN / "one.txt"',
      'two = Path(__file__).parent.joinpath("data", "two.json")',
      'text = "Path(__file__).parent / \'nowhere\'"',
    ].join('\n');
    expect(referencedPaths(source).map((ref) => `${ref.line}:${ref.path}`)).toEqual([
      '2:data/cases.json',
      '4:golden',
      '5:golden/one.txt',
      '6:data/two.json',
    ]);
  });
});
