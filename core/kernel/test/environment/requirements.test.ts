import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import {
  missingRequirements,
  requirementsIssues,
  requirementsProbe,
  requiresNothing,
} from '../../src/environment/requirements.js';

const debianPath = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

function probe(requires: Parameters<typeof requirementsProbe>[0]): string[] {
  const [command, ...args] = requirementsProbe(requires);
  const output = execFileSync(command!, args, { encoding: 'utf8', env: { PATH: debianPath } });
  return missingRequirements(requires, output);
}

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

  it('knows when there is nothing to check', () => {
    expect(requiresNothing(undefined)).toBe(true);
    expect(requiresNothing({ commands: [] })).toBe(true);
    expect(requiresNothing({ commands: ['uv'] })).toBe(false);
  });
});
