import { join } from 'node:path';
import { ConfigError, formatIssue, type Task } from '@longhaul/core';
import { describe, expect, it } from 'vitest';
import { referencedPaths } from '../src/data-files.js';
import plugin, { ScbenchSource } from '../src/index.js';
import { distributionName, programsCalled } from '../src/requirements.js';

const fixtures = join(import.meta.dirname, 'fixtures/requirements');

function load(options: Record<string, unknown>): Promise<Task[]> {
  return new ScbenchSource(plugin.options.parse({ path: fixtures, ...options })).load({ baseDir: '/' });
}

describe('source scbench: what a problem needs', () => {
  it("puts the config's Python version, its test_dependencies and the programs its tests call in the task's needs", async () => {
    const [pep701, uvrun] = await load({ problems: ['pep701', 'uvrun'] });
    expect(pep701!.environment.requires).toEqual({
      python: '3.12',
      pythonPackages: [],
      interpreters: { '/usr/bin/python3': ['pytest', 'pytest-timeout'] },
      commands: ['python3'],
      origins: { python: `${join(fixtures, 'pep701/config.yaml')}:11` },
    });
    expect(uvrun!.environment.requires).toEqual({
      pythonPackages: [],
      interpreters: { '/usr/bin/python3': ['pytest', 'pytest-timeout'] },
      commands: ['python3', 'uv'],
      origins: {
        'pytest-timeout': `${join(fixtures, 'uvrun/config.yaml')}:10`,
        uv: `${join(fixtures, 'uvrun/tests/test_checkpoint_1.py')}:9`,
      },
    });
  });

  it('takes the Python version of the source option for problems whose config names none', async () => {
    const [uvrun] = await load({
      problems: ['uvrun'],
      requiresPython: '>=3.12',
      entryCommand: 'uv run {entry_file}',
    });
    expect(uvrun!.environment.requires).toMatchObject({
      python: '3.12',
      commands: ['uv'],
      origins: { python: 'source option requiresPython' },
    });
  });

  it('refuses a problem whose tests read a data file the checkout lacks, at the line that reads it', async () => {
    const error = await load({ problems: ['lostdata'] }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConfigError);
    const file = join(fixtures, 'lostdata/tests/test_checkpoint_1.py');
    expect((error as ConfigError).issues.map(formatIssue)).toEqual([
      expect.stringContaining(
        `${file}:7:21: the tests read ${join(fixtures, 'lostdata/tests/data/cases.json')}, which is not there`,
      ),
    ]);
  });

  it('finds programs as tests run them, not every mention of the word', () => {
    const source = [
      'subprocess.run(["uv", "run", "x.py"])',
      'subprocess.run("g++ -O2 main.cc", shell=True)',
      'shutil.which("rustc")',
      'subprocess.run(["node"])',
      'assert out == "go"',
      'note = "make sure"',
    ].join('\n');
    expect([...programsCalled([{ path: 't.py', source }])]).toEqual([
      ['g++', 't.py:2'],
      ['node', 't.py:4'],
      ['rustc', 't.py:3'],
      ['uv', 't.py:1'],
    ]);
    expect(distributionName('httpx>=0.27')).toBe('httpx');
    expect(distributionName('uvicorn[standard]')).toBe('uvicorn');
  });

  it('follows paths built from the test file, directly and through a module-level name', () => {
    const source = [
      'from pathlib import Path',
      'CASES = Path(__file__).resolve().parent / "data" / "cases"',
      'ONE = CASES / "one.json"',
      'root = Path(__file__).parent.parent / "solutions"',
      'f = Path(__file__).parent / f"{name}.json"',
    ].join('\n');
    expect(referencedPaths(source).map((ref) => `${ref.line}:${ref.path}`)).toEqual([
      '2:data/cases',
      '3:data/cases/one.json',
      '4:../solutions',
    ]);
  });
});
