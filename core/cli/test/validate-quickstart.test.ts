import { readdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCli } from './run-cli.js';

// The repository root: its node_modules hold the built-in plugins as workspace packages.
const root = fileURLToPath(new URL('../../..', import.meta.url));

describe('examples/quickstart.yaml with the built-in plugins', () => {
  it('validates: one task, one condition, one trial, warning that the local environment isolates nothing', async () => {
    const result = await runCli(['validate', 'examples/quickstart.yaml'], root);
    expect(result).toMatchObject({
      code: 0,
      stdout: 'examples/quickstart.yaml: valid: 1 task, 1 condition, 1 trial\n',
    });
    expect(result.stderr).toMatch(
      // A second line where the host gives plain sandboxes no cgroups (not root, no cgroup v2).
      /^warning: environment 'local' has no isolation: .*isolation: bubblewrap.*\n(warning: environment 'local' \(isolation: none\) cannot end every process .*\n)?$/,
    );
  });

  it('does not warn when the local environment is hardened', async () => {
    const result = await runCli(
      [
        'validate',
        'examples/quickstart.yaml',
        '--set',
        'environment={id: local, options: {isolation: bubblewrap}}',
      ],
      root,
    );
    expect(result).toMatchObject({ code: 0, stderr: '' });
  });

  it('lists the worklog task and its four steps', async () => {
    const result = await runCli(['tasks', 'examples/quickstart.yaml'], root);
    expect(result.code).toBe(0);
    expect(result.stdout.split('\n')[1]).toMatch(/^worklog\s+4\s+longhaul\s/);
  });

  it('rejects a misspelt harness given with --set, suggesting the installed one, and writes nothing', async () => {
    const before = await readdir(`${root}/examples`);
    const result = await runCli(['validate', 'examples/quickstart.yaml', '--set', 'harness=oracel'], root);
    expect(result.code).toBe(2);
    expect(result.stderr.split('\n')[0]).toMatch(
      /^--set:1:9: harness: unknown harness 'oracel' \(installed: .*oracle.*\) \(did you mean 'oracle'\?\)$/,
    );
    expect(await readdir(`${root}/examples`)).toEqual(before);
  });
});
