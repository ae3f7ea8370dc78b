import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { repoRoot, workDir } from './fixtures/resume/spawn-cli.js';

const execFileAsync = promisify(execFile);
const bin = join(repoRoot, 'core/cli/bin/longhaul.js');
const recorder = join(import.meta.dirname, 'fixtures/record-imports/register.mjs');

/** What the built bin prints for `args` in the repository, and the URL of every module it loaded. */
async function loaded(dir: string, name: string, args: string[]) {
  const log = join(dir, `${name}.log`);
  const result = await execFileAsync(process.execPath, ['--import', recorder, bin, ...args], {
    cwd: repoRoot,
    env: { ...process.env, LONGHAUL_IMPORT_LOG: log },
    timeout: 120_000,
  }).catch((error: { code: number; stdout: string; stderr: string }) => error);
  const modules = [...new Set((await readFile(log, 'utf8')).split('\n').filter(Boolean))];
  return { stdout: result.stdout, stderr: result.stderr, modules };
}

/** What the kernel's entry point and the CLI's action modules pull in; a start-up path needs none. */
const heavy = [
  /\/core\/kernel\/dist\/index\.js$/,
  /\/core\/(gateway|metrics|report)\//,
  /\/node_modules\/(zod|inversify|@inversifyjs|yaml|diff|@ast-grep)\//,
  /\/(plugins|harnesses)\/[^/]+\/dist\//,
];
const heavyIn = (modules: string[]) => modules.filter((url) => heavy.some((pattern) => pattern.test(url)));

describe('start-up paths load neither the kernel nor a plugin', () => {
  const dir = workDir('longhaul-startup-');

  it('--help lists built-in and contributed commands from manifests only', async () => {
    const help = await loaded(dir(), 'help', ['--help']);
    const text = help.stdout.replace(/\s+/g, ' ');
    for (const name of ['run', 'resume', 'retry', 'validate', 'plugins', 'worker'])
      expect(text).toContain(` ${name} `);
    expect(text).toMatch(/ images \[args\.\.\.\] [^(]+\(from @longhaul\/environment-docker\) /);
    expect(heavyIn(help.modules)).toEqual([]);
  }, 300_000);

  it('no command, --version, help CMD and the plugin list do not either', async () => {
    const version = await loaded(dir(), 'version', ['--version']);
    expect(version.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
    const usage = await loaded(dir(), 'none', []);
    expect(usage.stderr).toContain('Usage: longhaul');
    const runHelp = await loaded(dir(), 'help-run', ['help', 'run']);
    expect(runHelp.stdout).toContain('--concurrency <n>');
    const plugins = await loaded(dir(), 'plugins', ['plugins', 'harness']);
    expect(plugins.stdout).toMatch(/\nharness +oracle +@longhaul\/harness-oracle@/);
    for (const { modules } of [version, usage, runHelp, plugins]) expect(heavyIn(modules)).toEqual([]);
  }, 300_000);

  it('a command that does its work loads the kernel then, and the gateway only for models:', async () => {
    const validate = await loaded(dir(), 'validate', ['validate', 'examples/quickstart.yaml']);
    expect(validate.stdout).toContain('examples/quickstart.yaml: valid');
    expect(heavyIn(validate.modules)).toContainEqual(expect.stringMatching(/core\/kernel\/dist\/index\.js$/));
    expect(validate.modules.filter((url) => url.includes('/core/gateway/'))).toEqual([]);
    // Nor what no trial needs before it starts: the local environment's process library, the tests
    // scorer's JSON Schema library (HTTP cases), every kind of diff.
    const unused = /\/node_modules\/(execa|ajv)\/|\/node_modules\/diff\/libesm\/index\.js$/;
    expect(validate.modules.filter((url) => unused.test(url))).toEqual([]);
  }, 300_000);
});
