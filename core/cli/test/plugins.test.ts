import { afterEach, describe, expect, it } from 'vitest';
import { makeProject } from '../../kernel/test/fixtures/config/project.js';
import { runCli } from './run-cli.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function project(installed: string[]) {
  const made = await makeProject(installed);
  cleanups.push(made.remove);
  return made.dir;
}

describe('longhaul plugins', () => {
  it('lists kind, id, package@version and description of installed plugins', async () => {
    const result = await runCli(['plugins'], await project(['harness-echo']));
    expect(result).toEqual({
      code: 0,
      stdout: [
        'KIND     ID    PACKAGE                      DESCRIPTION',
        'harness  echo  @fixture/harness-echo@2.0.0  Repeats the prompt back',
        '',
      ].join('\n'),
      stderr: '',
    });
  });

  it('filters by kind and refuses a kind that does not exist', async () => {
    const cwd = await project(['harness-echo']);
    expect((await runCli(['plugins', 'scorer'], cwd)).stdout).toBe(
      `no scorer plugins installed under ${cwd}\n`,
    );
    const bad = await runCli(['plugins', 'harnesses'], cwd);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/expected one of harness, environment/);
  });

  it('lists the working plugins, then exits 2 naming a package that cannot be loaded', async () => {
    const cwd = await project(['harness-echo', 'no-default']);
    const result = await runCli(['plugins'], cwd);
    expect(result.code).toBe(2);
    expect(result.stdout).toMatch(/^KIND .*\nharness {2}echo {2}/);
    expect(result.stderr).toMatch(
      /package\.json: plugin package '@fixture\/installed-no-default' has no default export.*\n1 problem found\n$/,
    );
    // Asking for a kind the broken package does not declare shows no problem.
    expect(await runCli(['plugins', 'harness'], cwd)).toMatchObject({ code: 0, stderr: '' });
  });
});

describe('longhaul schema', () => {
  it('leaves out packages that cannot be loaded, saying so on stderr', async () => {
    const result = await runCli(['schema'], await project(['harness-echo', 'mismatch']));
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).$defs.harnessRef.anyOf[0].anyOf).toHaveLength(1);
    expect(result.stderr).toMatch(/^left out: .*@fixture\/mismatch.*declares harness 'declared'/);
  });

  it('prints a JSON Schema whose refs offer the installed plugins and their options', async () => {
    const result = await runCli(['schema'], await project(['harness-echo']));
    expect(result.code).toBe(0);
    const schema = JSON.parse(result.stdout);
    expect(schema.$defs.harnessRef.anyOf[0].anyOf).toEqual([
      { const: 'echo', description: 'Repeats the prompt back' },
    ]);
    expect(schema.$defs.harnessRef.anyOf[1].allOf[0].then.properties.options.properties.prefix).toMatchObject(
      {
        type: 'string',
        default: '> ',
      },
    );
  });
});
