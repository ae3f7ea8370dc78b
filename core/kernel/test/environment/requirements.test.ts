import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  missingRequirements,
  requirementsIssues,
  requirementsProbe,
  requiresNothing,
} from '../../src/environment/requirements.js';

const debianPath = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

function probe(requires: Parameters<typeof requirementsProbe>[0], path = debianPath): string[] {
  const [command, ...args] = requirementsProbe(requires);
  const output = execFileSync(command!, args, { encoding: 'utf8', env: { PATH: path } });
  return missingRequirements(requires, output);
}

// A version manager's shim first on PATH: a python3 that sees none of Debian's packages.
const shims = mkdtempSync(join(tmpdir(), 'longhaul-shim-'));
const shim = join(shims, 'python3');
writeFileSync(shim, '#!/bin/sh\nexec /usr/bin/python3 -I -S "$@"\n');
chmodSync(shim, 0o755);
afterAll(() => rmSync(shims, { recursive: true, force: true }));

describe('requirements probe', () => {
  it('finds nothing missing on a host that has it all', () => {
    expect(probe({ python: '3', pythonPackages: ['pytest', 'pytest-timeout'], commands: ['sh'] })).toEqual(
      [],
    );
  });

  it('names a Python too old, packages not installed and programs not on PATH', () => {
    const missing = probe({
      python: '99.1',
      pythonPackages: ['pytest', 'no-such-dist-longhaul'],
      commands: ['sh', 'no-such-program-longhaul'],
    });
    expect(missing).toHaveLength(3);
    expect(missing[0]).toMatch(/^python3 >= 99\.1, python3 is 3\.\d+\.\d+$/);
    expect(missing[1]).toBe('Python packages no-such-dist-longhaul');
    expect(missing[2]).toBe('programs on PATH: no-such-program-longhaul');
  });

  it('says python3 is not on PATH when it is not', () => {
    const requires = { python: '3.12' };
    const [, ...args] = requirementsProbe(requires);
    const output = execFileSync('/bin/sh', args, { encoding: 'utf8', env: { PATH: '/nonexistent' } });
    expect(missingRequirements(requires, output)).toEqual(['python3 >= 3.12, not on PATH']);
  });

  it('names where each missing requirement was stated', () => {
    const requires = {
      python: '3.12',
      commands: ['uv', 'git'],
      origins: { python: 'config.yaml:9', uv: 'tests/test_checkpoint_1.py:9' },
    };
    expect(missingRequirements(requires, 'python 3.11.2\ncommand-missing uv\ncommand-missing git\n')).toEqual(
      [
        'python3 >= 3.12 (config.yaml:9), python3 is 3.11.2',
        'programs on PATH: uv (tests/test_checkpoint_1.py:9), git',
      ],
    );
  });

  it('refuses names that could break out of the probe script', () => {
    expect(requirementsIssues({ commands: ["uv'; rm -rf /; '"] })).toHaveLength(1);
    expect(requirementsIssues({ python: 'latest' })).toEqual(["python 'latest' is not a version like 3.12"]);
    expect(() => requirementsProbe({ pythonPackages: ['$(id)'] })).toThrow(/not a package or program name/);
    expect(
      requirementsIssues({ python: '>=3.12', commands: ['g++'], pythonPackages: ['pytest_timeout'] }),
    ).toEqual([]);
  });

  it('asks the interpreter named for its packages, not the python3 first on PATH', () => {
    const path = `${shims}:${debianPath}`;
    const tests = { interpreters: { '/usr/bin/python3': ['pytest', 'pytest-timeout'] } };
    expect(probe(tests, path)).toEqual([]);
    // python3 on PATH (the shim) is asked only for what python3 must have.
    expect(probe({ ...tests, pythonPackages: ['pytest-timeout'] }, path)).toEqual([
      'Python packages pytest-timeout',
    ]);
    expect(
      probe({ interpreters: { [shim]: ['pytest'] }, origins: { pytest: 'the runner' } }, debianPath),
    ).toEqual([`Python packages in ${shim}: pytest (the runner)`]);
  });

  it('holds every interpreter to the Python version and says when one is not there', () => {
    expect(probe({ python: '99', interpreters: { '/usr/bin/python3': [] } })).toEqual([
      expect.stringMatching(/^python3 >= 99, python3 is 3\.\d+\.\d+$/),
      expect.stringMatching(/^\/usr\/bin\/python3 >= 99, \/usr\/bin\/python3 is 3\.\d+\.\d+$/),
    ]);
    expect(probe({ interpreters: { '/nonexistent/python3': ['pytest'] } })).toEqual([
      '/nonexistent/python3, not there',
    ]);
    expect(requirementsIssues({ interpreters: { "/usr/bin/python3'; id; '": [] } })).toHaveLength(1);
    expect(requirementsIssues({ interpreters: { '/usr/bin/python3': ['$(id)'] } })).toHaveLength(1);
  });

  it('knows when there is nothing to check', () => {
    expect(requiresNothing(undefined)).toBe(true);
    expect(requiresNothing({ commands: [] })).toBe(true);
    expect(requiresNothing({ commands: ['uv'] })).toBe(false);
    expect(requiresNothing({ interpreters: { '/usr/bin/python3': [] } })).toBe(false);
  });
});
