import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { quickstartPackages, repoRoot, spawnCli, workDir } from './fixtures/resume/spawn-cli.js';
import { runCli } from './run-cli.js';

const work = workDir('longhaul-model-refs-', [
  ...quickstartPackages,
  'harnesses/ide',
  'plugins/memory-projectguard',
  'plugins/scorer-faithfulness',
]);
const ideOracle = join(repoRoot, 'examples/ide-oracle.yaml');

/** The problem lines `validate` prints (warnings and the count left out), and its exit code. */
async function validate(args: string[]): Promise<{ code: number; problems: string[] }> {
  const result = await runCli(['validate', ...args], repoRoot);
  const problems = result.stderr
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('warning:') && !/^\d+ problems? found$/.test(line));
  return { code: result.code, problems };
}

/** examples/ide-oracle.yaml with `change` applied, written beside the test's runs. */
async function ideExperiment(name: string, change: (text: string) => string): Promise<string> {
  const text = (await readFile(ideOracle, 'utf8')).replace('path: ../problems', `path: ${repoRoot}/problems`);
  const file = join(work(), `${name}.yaml`);
  const changed = change(text);
  expect(changed).not.toBe(text);
  await writeFile(file, changed);
  return file;
}

describe('validate checks every model a plugin names', () => {
  it("refuses a harness's model that is not under models:, at the --set argument that gave it", async () => {
    expect(await validate([ideOracle, '--set', 'harness.options.model=orcale'])).toEqual({
      code: 2,
      problems: [
        "--set:1:23: harness.options.model: harness 'ide' names model 'orcale', which is not one of the experiment's models (oracle); add it under models: or name one of those (the value of --set argument 1, at its character 23) (did you mean 'oracle'?)",
      ],
    });
  });

  it("refuses it at the option's line and column in the file", async () => {
    const file = await ideExperiment('misspelt', (text) => text.replace('model: oracle', 'model: orcale'));
    expect(await validate([file])).toEqual({
      code: 2,
      problems: [
        `${file}:20:5: harness.options.model: harness 'ide' names model 'orcale', which is not one of the experiment's models (oracle); add it under models: or name one of those (did you mean 'oracle'?)`,
      ],
    });
  });

  it('leaves alone a provider the harness calls directly, and a model that is there', async () => {
    expect((await validate([ideOracle, '--set', 'harness.options.model=anthropic:claude-x'])).code).toBe(0);
    expect((await validate([ideOracle])).code).toBe(0);
  });

  it("checks a memory's and a judge's models, and a default no models: entry serves", async () => {
    const file = await ideExperiment('judges', (text) =>
      text
        .replace('memory: none', 'memory: { id: projectguard, options: { extractor: oracle } }')
        .replace('scorers: [tests]', 'scorers: [tests, { id: faithfulness, options: { model: jugde } }]'),
    );
    expect(await validate([file])).toEqual({
      code: 2,
      problems: [
        `${file}:25:1: memory: memory 'projectguard' option forecaster defaults to model 'forecaster', which is not one of the experiment's models (oracle); add it under models: or set forecaster`,
        `${file}:26:49: scorers[1].options.model: scorer 'faithfulness' names model 'jugde', which is not one of the experiment's models (oracle); add it under models: or name one of those`,
      ],
    });
  });

  it('a run whose model fails every request scores nothing, counts every step errored and exits 3', async () => {
    // A scripted model with no replies: every request the harness makes fails at the gateway.
    const file = await ideExperiment('failing', (text) =>
      text.replace('oracle: { backend: oracle }', 'oracle: { backend: scripted, replies: [] }'),
    );
    const runDir = join(work(), 'failing-run');
    const result = await spawnCli(['run', file, '--run-dir', runDir], work()).done;
    expect(result.code).toBe(3);
    expect(result.stdout).toMatch(
      /^condition +trials +steps +scored +errored +cancelled +strict +iso +core .*\nide\/checkpoints\/none +1 +4 +0 +4 +0 +– +– +– /m,
    );
    expect(result.stderr).toContain(
      `1 of 1 trial did not finish: 1 error:scripted — rates are over scored steps; see longhaul report ${runDir}\n`,
    );
  }, 300_000);
});
