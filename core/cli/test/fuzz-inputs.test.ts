import {
  cp,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rename,
  rm,
  stat,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ConfigIssue, isConfigError, loadExperiment, PluginRegistry } from '@longhaul/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, repoRoot, spawnCli } from './fixtures/resume/spawn-cli.js';
import { mutate, type Random, seeded } from './fuzz/mutate.js';

/**
 * Malformed experiment and task files, made from the shipped examples/ and problems/ with a fixed
 * seed, must each end in a ConfigError whose issues name a file (with line and column where the
 * problem is in the file's content), never in another exception, a hang or a run directory.
 */
const seed = 15;
const experimentCases = 220;
const taskCases = 220;
/** Far above what a load takes; a case that reaches it is a hang. */
const caseLimitMs = 30_000;

interface Outcome {
  label: string;
  file: string;
  issues?: ConfigIssue[];
  /** Why the case failed the test, if it did. */
  fault?: string;
}

let work: string;
let registry: PluginRegistry;
beforeAll(async () => {
  await ensureBuilt();
  work = await mkdtemp(join(tmpdir(), 'longhaul-fuzz-'));
  // Mutated examples sit where the originals' relative paths (../problems/...) still resolve.
  await mkdir(join(work, 'examples'));
  // The longhaul source loads every task under its path before `tasks:` picks some: a problems
  // folder of one cut-down task (and quire, for slump) keeps a load in milliseconds.
  await prepareTask(join(work, 'problems', 'worklog'));
  await symlink(join(repoRoot, 'problems', 'quire'), join(work, 'problems', 'quire'));
  await symlink(join(repoRoot, 'plugins'), join(work, 'plugins'));
  registry = await PluginRegistry.discover({ cwd: repoRoot, baseDir: join(work, 'examples'), extra: [] });
}, 300_000);
afterAll(() => rm(work, { recursive: true, force: true }));

/** Loads `file` in-process and judges the outcome. */
async function judge(label: string, file: string, discover: boolean): Promise<Outcome> {
  let timer: NodeJS.Timeout | undefined;
  const hang = new Promise<'hang'>((resolve) => {
    timer = setTimeout(() => resolve('hang'), caseLimitMs);
  });
  const load = loadExperiment(file, { cwd: repoRoot, env: {}, ...(discover ? {} : { registry }) }).then(
    () => ({ label, file }),
    (error: unknown): Outcome => {
      if (!isConfigError(error)) {
        return { label, file, fault: `uncaught ${(error as Error)?.stack ?? String(error)}` };
      }
      return { label, file, issues: error.issues, fault: issueFault(error.issues) };
    },
  );
  const outcome = await Promise.race([load, hang]).finally(() => clearTimeout(timer));
  return outcome === 'hang' ? { label, file, fault: `no answer within ${caseLimitMs} ms` } : outcome;
}

/** What is wrong with the issues of a ConfigError, if anything. */
function issueFault(issues: ConfigIssue[]): string | undefined {
  for (const issue of issues) {
    if (!issue.file) return `an issue names no file: ${issue.message}`;
    if (/\n/.test(issue.message)) return `an issue spans several lines: ${issue.message}`;
    // A source that threw something other than a ConfigError: a crash wearing an issue.
    if (/could not load its tasks/.test(issue.message)) return `a source crashed: ${issue.message}`;
    const aboutContent = issue.message.startsWith('invalid YAML') || issue.key !== undefined;
    const inAFile = /\.ya?ml$/.test(issue.file) && issue.file !== '--set';
    if (aboutContent && inAFile && (issue.line === undefined || issue.column === undefined)) {
      if (!/^(is |cannot read)/.test(issue.message))
        return `no line:column for ${issue.file}: ${issue.key ?? ''} ${issue.message}`;
    }
  }
  return undefined;
}

function report(outcomes: Outcome[]): string[] {
  return outcomes.filter((o) => o.fault).map((o) => `${o.label} (${o.file}): ${o.fault}`);
}

describe(`fuzz (seed ${seed}): malformed files are errors with a location`, () => {
  it(`${experimentCases} mutated experiment files`, async () => {
    const random = seeded(seed);
    const names = (await readdir(join(repoRoot, 'examples'))).filter((name) => name.endsWith('.yaml')).sort();
    const originals = await Promise.all(
      names.map((name) => readFile(join(repoRoot, 'examples', name), 'utf8')),
    );
    const outcomes: Outcome[] = [];
    const mutations = new Set<string>();
    for (let n = 0; n < experimentCases; n++) {
      const index = Math.floor(random() * names.length);
      const file = join(work, 'examples', `case-${n}.yaml`);
      let label: string;
      if (random() < 0.04) {
        label = `#${n} a directory named like ${names[index]}`;
        await mkdir(file);
      } else {
        const mutated = mutate(originals[index]!, random);
        label = `#${n} ${mutated.name} of ${names[index]}`;
        mutations.add(mutated.name);
        await writeFile(file, mutated.text, 'latin1');
      }
      // Discovery reads `plugins:`; a few cases go through it, the rest share one registry.
      outcomes.push(await judge(label, file, n % 20 === 0));
    }
    expect(report(outcomes)).toEqual([]);
    expect(mutations.size).toBeGreaterThan(15);
    // Most mutations must be refused, or the cases test nothing.
    expect(outcomes.filter((o) => o.issues).length).toBeGreaterThan(experimentCases / 2);
  }, 600_000);

  it(`${taskCases} mutated task files`, async () => {
    const random = seeded(seed + 1);
    const problems = join(work, 'tasks');
    await prepareTask(join(problems, 'worklog'));
    const experiment = join(work, 'tasks.yaml');
    await writeFile(
      experiment,
      'source: { id: longhaul, options: { path: ./tasks } }\nharness: oracle\nenvironment: local\n',
    );
    const root = join(problems, 'worklog');
    const yamlFiles = (await readdir(root, { recursive: true }))
      .filter((path) => path.endsWith('.yaml'))
      .sort();
    const outcomes: Outcome[] = [];
    for (let n = 0; n < taskCases; n++) {
      const damage = random() < 0.12 ? structural(random) : undefined;
      if (damage) {
        const path = join(root, damage.path);
        const backup = `${path}.fuzz-backup`;
        await rename(path, backup);
        await (damage.make === 'file' ? writeFile(path, 'not a directory\n') : mkdir(path));
        outcomes.push(await judge(`#${n} ${damage.path} made a ${damage.make}`, path, false));
        await rm(path, { recursive: true, force: true });
        await rename(backup, path);
        continue;
      }
      const target = yamlFiles[Math.floor(random() * yamlFiles.length)]!;
      const path = join(root, target);
      const original = await readFile(path, 'utf8');
      const mutated = mutate(original, random);
      await writeFile(path, mutated.text, 'latin1');
      const outcome = await judge(`#${n} ${mutated.name} of ${target}`, experiment, false);
      outcomes.push({ ...outcome, file: path });
      await writeFile(path, original);
    }
    expect(report(outcomes)).toEqual([]);
    expect(outcomes.filter((o) => o.issues).length).toBeGreaterThan(taskCases / 2);
    // Every case restored what it broke: the task loads again.
    await expect(loadExperiment(experiment, { cwd: repoRoot, env: {}, registry })).resolves.toBeDefined();
  }, 600_000);

  it('`validate` and `run` of malformed files print one-line errors, exit 2 and leave no run directory', async () => {
    const random = seeded(seed + 2);
    const original = await readFile(join(repoRoot, 'examples/quickstart.yaml'), 'utf8');
    const files: string[] = [];
    while (files.length < 2) {
      const file = join(work, 'examples', `spawned-${files.length}.yaml`);
      await writeFile(file, mutate(original, random).text, 'latin1');
      // Only files that do not load: a valid mutation would start a real run.
      const outcome = await judge('spawned', file, false);
      if (outcome.issues) files.push(file);
    }
    const directory = join(work, 'examples', 'a-directory.yaml');
    await mkdir(directory, { recursive: true });
    const runs = [
      ...files.map((file, i) => ['run', file, '--run-dir', join(work, `run-${i}`)]),
      ['validate', directory],
    ];
    const results = await Promise.all(runs.map((args) => spawnCli(args, work).done));
    for (const [i, result] of results.entries()) {
      const context = `${runs[i]!.join(' ')}\n${result.stderr}`;
      expect(result.code, context).toBe(2);
      expect(result.stderr, context).not.toMatch(/\n\s+at /);
      const lines = result.stderr.trimEnd().split('\n');
      expect(lines.at(-1), context).toMatch(/^\d+ problems? found$/);
      for (const line of lines.slice(0, -1)) expect(line, context).toMatch(/^\S[^:]*(:\d+:\d+)?: /);
    }
    const left = (await readdir(work)).filter((name) => name.startsWith('run'));
    expect(left).toEqual([]);
  }, 300_000);
});

/** A copy of the worklog problem cut to two steps of three cases a category: fast to load. */
async function prepareTask(root: string): Promise<void> {
  await cp(join(repoRoot, 'problems/worklog'), root, { recursive: true });
  const steps = join(root, 'steps');
  for (const step of await readdir(steps)) {
    if (!/^0[12]-/.test(step)) {
      await rm(join(steps, step), { recursive: true });
      continue;
    }
    const cases = join(steps, step, 'cases');
    for (const category of await readdir(cases)) {
      const files = (await readdir(join(cases, category))).sort();
      for (const extra of files.slice(3)) await rm(join(cases, category, extra));
    }
  }
  // The later steps' components are disclosed by nobody now; that is allowed.
  expect((await stat(join(steps, '01-csv-summary', 'cases'))).isDirectory()).toBe(true);
}

/** A folder made a file, or a file made a folder, in the task. */
function structural(random: Random): { path: string; make: 'file' | 'directory' } {
  const choices: { path: string; make: 'file' | 'directory' }[] = [
    { path: 'steps/01-csv-summary/cases', make: 'file' },
    { path: 'steps/02-jsonl-and-filters/solution', make: 'file' },
    { path: 'steps', make: 'file' },
    { path: 'task.yaml', make: 'directory' },
    { path: 'components.yaml', make: 'directory' },
    { path: 'steps/01-csv-summary/spec.md', make: 'directory' },
    { path: 'steps/01-csv-summary/step.yaml', make: 'directory' },
    { path: 'steps/01-csv-summary/cases/core', make: 'file' },
  ];
  return choices[Math.floor(random() * choices.length)]!;
}
