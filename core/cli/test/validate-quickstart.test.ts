import { readdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCli } from './run-cli.js';

// The repository root: its node_modules hold the built-in plugins as workspace packages.
const root = fileURLToPath(new URL('../../..', import.meta.url));

describe('examples/quickstart.yaml with the built-in plugins', () => {
  it('validates: one task, one condition, one trial, warning that the local environment isolates nothing, and says what it guarantees', async () => {
    const result = await runCli(['validate', 'examples/quickstart.yaml'], root);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /^examples\/quickstart.yaml: valid: 1 task, 1 condition, 1 trial\nenvironment local \(isolation: none\): no isolation .*; limits per sandbox: 512 processes.*, 4g memory.*, 10g disk .*\n$/,
    );
    expect(result.stderr).toMatch(
      // More lines where the host lacks what holds plain sandboxes in (root, cgroups): each says what.
      /^warning: environment 'local' has no isolation: .*isolation: bubblewrap.*\n(warning: environment 'local' (runs the agent's commands as the runner's own user|\(isolation: none\) cannot end every process|cannot hold its sandboxes to) .*\n)*$/,
    );
  });

  it('does not warn of isolation when the local environment is hardened, and says what it guarantees', async () => {
    const result = await runCli(
      [
        'validate',
        'examples/quickstart.yaml',
        '--set',
        'environment={id: local, options: {isolation: bubblewrap}}',
      ],
      root,
    );
    expect(result.code).toBe(0);
    // Only where the host has no cgroups for its limits (not root): a line that says which.
    expect(result.stderr).toMatch(/^(warning: environment 'local' cannot hold its sandboxes to .*\n)?$/);
    expect(result.stdout.split('\n')[1]).toMatch(
      /^environment local \(isolation: bubblewrap\): namespaces of its own/,
    );
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
