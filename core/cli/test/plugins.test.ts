import { realpath } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
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
  it('lists kind, id, package@version, where it came from and description, from manifests', async () => {
    const cwd = await project(['harness-echo']);
    const result = await runCli(['plugins'], cwd);
    const dir = await realpath(join(cwd, 'node_modules/@fixture/harness-echo'));
    expect(result).toEqual({
      code: 0,
      stdout: [
        `KIND     ID    PACKAGE                      FROM${' '.repeat(dir.length)}  DESCRIPTION`,
        `harness  echo  @fixture/harness-echo@2.0.0  cwd ${dir}  Repeats the prompt back`,
        '',
      ].join('\n'),
      stderr: '',
    });
  });

  it('fits a narrow terminal: where the row is too wide, where it came from and what it does go below', async () => {
    const cwd = await project(['harness-echo']);
    vi.stubEnv('COLUMNS', '60');
    const result = await runCli(['plugins'], cwd);
    vi.unstubAllEnvs();
    const dir = await realpath(join(cwd, 'node_modules/@fixture/harness-echo'));
    expect(result.stdout).toBe(
      [
        'KIND     ID    PACKAGE',
        'harness  echo  @fixture/harness-echo@2.0.0',
        `    cwd ${dir}`,
        '    Repeats the prompt back',
        '',
      ].join('\n'),
    );
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

  it('imports no plugin: a package that fails to import is listed like any other', async () => {
    const result = await runCli(['plugins'], await project(['broken', 'no-default']));
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/\nscorer {4}lonely {2}@fixture\/installed-no-default@1\.0\.0 /);
  });

  it('lists the working plugins, then exits 2 naming packages that declare the same plugin', async () => {
    const cwd = await project(['harness-echo', 'harness-echo-copy', 'no-default']);
    const result = await runCli(['plugins'], cwd);
    expect(result.code).toBe(2);
    expect(result.stdout).toMatch(
      /^KIND .*\nscorer {2}lonely {2}@fixture\/installed-no-default@1\.0\.0 {2}cwd [^\n]*\n$/,
    );
    expect(result.stderr).toMatch(/harness 'echo' is defined by two packages.*\n1 problem found\n$/);
    // Asking for a kind the clash is not about shows no problem.
    expect(await runCli(['plugins', 'scorer'], cwd)).toMatchObject({ code: 0, stderr: '' });
  });
});

describe('longhaul plugins show', () => {
  it("prints a plugin's options with type, default and description", async () => {
    const cwd = await project(['options']);
    const result = await runCli(['plugins', 'show', 'tuned'], cwd);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const lines = result.stdout.split('\n');
    expect(lines[0]).toMatch(/^harness tuned \(@fixture\/options@1\.0\.0, .*options\)$/);
    expect(lines[1]).toBe('A harness with options of every shape');
    expect(lines.slice(3)).toEqual([
      'OPTION       TYPE            DEFAULT               DESCRIPTION',
      'model        string          (required)            Model name under models:',
      'effort       "low" | "high"  "low"                 How hard to think',
      'retries      integer         3                     Retries per turn',
      'limits       object          {"cpus":2,"tags":[]}  Resource limits',
      'limits.cpus  number          2                     CPUs',
      'limits.tags  string[]        []',
      'env          map of string   {}                    Extra environment variables',
      'seed         integer | null  null                  Fixed seed, or none',
      '',
    ]);
  });

  it('says when a plugin is unknown, and why one cannot be imported', async () => {
    const cwd = await project(['options', 'no-default']);
    const unknown = await runCli(['plugins', 'show', 'tuner'], cwd);
    expect(unknown).toMatchObject({ code: 2, stdout: '' });
    expect(unknown.stderr).toMatch(
      /^plugins show: tuner: no plugin 'tuner' is installed \(see longhaul plugins\)\n/,
    );
    const broken = await runCli(['plugins', 'show', 'scorer/lonely'], cwd);
    expect(broken.code).toBe(2);
    expect(broken.stderr).toMatch(/plugin package '@fixture\/installed-no-default' has no default export/);
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
