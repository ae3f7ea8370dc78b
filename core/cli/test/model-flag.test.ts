import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { repoRoot } from './install-copy.js';
import { runCli } from './run-cli.js';

const quickstart = join(repoRoot, 'examples', 'quickstart.yaml');
const claudeCode = join(repoRoot, 'examples', 'claude-code-oracle.yaml');
// The quickstart's task through a harness that takes a model (the oracle harness takes none);
// the oracle model writes files without the explanation the ide harness asks a real model for.
const ide = 'harness={id: ide, options: {explanation: optional}}';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'longhaul-model-flag-'));
});
afterAll(async () => {
  vi.unstubAllEnvs();
  await rm(dir, { recursive: true, force: true });
});

const problemLines = (stderr: string) =>
  stderr.split('\n').filter((line) => line !== '' && !line.startsWith('warning:'));

describe('longhaul validate --model PROVIDER/NAME', () => {
  it('with the key variable unset, says which variable to export', async () => {
    vi.stubEnv('ANTHROPIC_API_KEY', undefined);
    const result = await runCli(['validate', claudeCode, '--model', 'anthropic/claude-sonnet-4-5'], repoRoot);
    expect(result.code).toBe(2);
    expect(problemLines(result.stderr)).toEqual([
      "--model: environment variable ANTHROPIC_API_KEY is not set on the host (the provider key for model 'claude-sonnet-4-5'); export it before the run",
      '1 problem found',
    ]);
  });

  it('with the key set, binds the model to the harness and makes it the first of models:', async () => {
    vi.stubEnv('OPENAI_API_KEY', 'not-a-real-key');
    const result = await runCli(
      ['validate', claudeCode, '--model', 'openai/gpt-5', '--resolved', '--set', 'script=checkpoints'],
      repoRoot,
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/\nharness:\n {2}- id: claude-code\n(.*\n)*? {6}model: gpt-5\n/);
    expect(result.stdout).toContain(
      '\nmodels:\n  gpt-5:\n    backend: passthrough\n    provider: openai\n    model: gpt-5\n    apiKeyEnv: OPENAI_API_KEY\n  oracle:\n',
    );
    expect(result.stdout).not.toContain('not-a-real-key');
  });

  it('leaves a harness that names its model as the experiment says', async () => {
    vi.stubEnv('ANTHROPIC_API_KEY', 'not-a-real-key');
    const result = await runCli(
      [
        'validate',
        claudeCode,
        '--model',
        'anthropic/claude-sonnet-4-5',
        '--resolved',
        '--set',
        'harness={id: claude-code, options: {model: oracle}}',
      ],
      repoRoot,
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/\n {6}model: oracle\n/);
    expect(result.stdout).not.toMatch(/\n {6}model: claude-sonnet-4-5\n/);
  });

  it('suggests the provider a misspelt one is closest to', async () => {
    const result = await runCli(['validate', quickstart, '--model', 'antropic/claude-sonnet-4-5'], repoRoot);
    expect(result.code).toBe(2);
    expect(problemLines(result.stderr)).toEqual([
      "--model: unknown provider 'antropic' in 'antropic/claude-sonnet-4-5': expected anthropic/NAME, openai/NAME, oracle or replay/RUN_DIR (did you mean 'anthropic'?)",
      '1 problem found',
    ]);
  });

  it("binds a harness's model option by its mark, whatever it is called, and leaves a judge's", async () => {
    vi.stubEnv('ANTHROPIC_API_KEY', 'not-a-real-key');
    const fixture = join(import.meta.dirname, 'fixtures', 'renamed-model');
    const result = await runCli(
      [
        'validate',
        quickstart,
        '--model',
        'anthropic/claude-sonnet-4-5',
        '--resolved',
        '--set',
        `plugins=[${fixture}]`,
        '--set',
        'harness=relay',
        '--set',
        'scorers=[tests, grader]',
        '--set',
        'models={judge: {backend: oracle}}',
      ],
      repoRoot,
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).not.toContain('no harness of this experiment takes a model');
    expect(result.stdout).toMatch(
      /\nharness:\n {2}- id: relay\n {4}label: relay\n {4}options:\n {6}agentModel: claude-sonnet-4-5\n {6}turns: 1\n/,
    );
    expect(result.stdout).toMatch(/\n {2}- id: grader\n {4}label: grader\n {4}options:\n {6}judge: judge\n/);
    expect(result.stdout).toMatch(
      /\nmodels:\n {2}claude-sonnet-4-5:\n(.*\n)*? {2}judge:\n {4}backend: oracle\n/,
    );
  });

  it('warns when no harness of the experiment takes a model', async () => {
    const result = await runCli(['validate', quickstart, '--model', 'oracle'], repoRoot);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(
      'warning: --model oracle: no harness of this experiment takes a model (oracle); the model is added to models: but nothing asks for it\n',
    );
  });
});

describe('longhaul run examples/quickstart.yaml --model', () => {
  // A recording made once with the oracle model, then replayed through --model: every step is
  // answered from the recording, offline, and scores as the recorded run did.
  it('replays a recorded model for the harness, offline, to the same scores', async () => {
    const recorded = join(dir, 'recorded');
    const first = await runCli(
      [
        'run',
        quickstart,
        '--run-dir',
        recorded,
        '--set',
        ide,
        '--set',
        'models={rec: {backend: record, wraps: oracle}, oracle: {backend: oracle}}',
        '--set',
        'harness.options.model=rec',
      ],
      repoRoot,
    );
    expect(first.stdout).toMatch(/\nide\/checkpoints\/none +1 +4 +4 +0 +0 +100\.0%/);
    const replayed = join(dir, 'replayed');
    const result = await runCli(
      ['run', quickstart, '--run-dir', replayed, '--set', ide, '--model', `replay/${recorded}`],
      repoRoot,
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/\nide\/checkpoints\/none +1 +4 +4 +0 +0 +100\.0%/);
    const resolved = await readFile(join(replayed, 'experiment.yaml'), 'utf8');
    expect(resolved).toContain(`\nmodels:\n  rec:\n    backend: replay\n    from: ${recorded}\n`);
    expect(resolved).toMatch(/\n {6}model: rec\n/);
    // Two runs of the quickstart's four steps through the ide tool loop: minutes on a busy machine.
  }, 1_200_000);
});
