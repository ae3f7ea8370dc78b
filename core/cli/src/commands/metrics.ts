import { readFile, stat } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import { badInputExitCode, noValue } from '@longhaul/core/light';
import type {
  CcVariant,
  DiscoveryOptions,
  HistoryCommit,
  MetricsOptions,
  QualitySummary,
  SizeTerm,
  SourceFile,
} from '@longhaul/metrics';
import { type Command, CommanderError, InvalidArgumentError } from 'commander';
import { collect } from '../print-error.js';

interface MetricsFlags {
  json: boolean;
  git?: string;
  commits: number;
  ref: string;
  ccThreshold: number;
  sizeTerm: SizeTerm;
  ccVariant: CcVariant;
  exclude: string[];
  defaultExcludes: boolean;
  rules: boolean;
  top: number;
  threads: number;
}

function positiveInteger(value: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number <= 0) throw new InvalidArgumentError('expected a positive integer');
  return number;
}

function oneOf<T extends string>(values: readonly T[]) {
  return (value: string): T => {
    if (!values.includes(value as T)) throw new InvalidArgumentError(`expected one of ${values.join(', ')}`);
    return value as T;
  };
}

function badInput(message: string): never {
  process.stderr.write(`${message}\n`);
  throw new CommanderError(badInputExitCode, 'longhaul.badInput', message);
}

/** The scores as the `quality` scorer keys them. */
function scoreKeys(summary: QualitySummary): Record<string, number | null> {
  return Object.fromEntries(Object.entries(summary).map(([key, value]) => [`quality.${key}`, value]));
}

/** A value nothing was measured over (a ratio of no lines, no callables) is a dash, never 0. */
const format = (value: number | null) =>
  value === null ? noValue : Number.isInteger(value) ? String(value) : value.toFixed(3);

const dashNote = `${noValue}: nothing to measure it over (no code, no callables, no earlier snapshot, or the rule pack off), not 0`;

/** `longhaul metrics PATH` and `longhaul metrics --git REPO`: code-quality metrics outside a run. */
export function register(program: Command): void {
  program
    .command('metrics')
    .description(
      'Measure code quality (erosion, verbosity, clones, slop rules, complexity) of a directory or file, or of a git history',
    )
    .argument('[path]', 'directory or source file to measure')
    .option('--json', 'print one JSON object with the quality.* keys', false)
    .option('--git <repo>', 'sample source-touching commits of this repository instead of measuring a path')
    .option('--commits <n>', 'with --git: how many commits at most', positiveInteger, 30)
    .option('--ref <ref>', 'with --git: where the history ends', 'HEAD')
    .option('--cc-threshold <n>', 'high-complexity threshold for erosion', positiveInteger, 10)
    .option(
      '--size-term <term>',
      'size term of mass: none, sqrt or linear',
      oneOf(['none', 'sqrt', 'linear']),
      'sqrt',
    )
    .option('--cc-variant <variant>', 'reference or radon', oneOf(['reference', 'radon']), 'reference')
    .option('--exclude <pattern>', 'leave out paths (.gitignore syntax; repeatable)', collect, [])
    .option(
      '--no-default-excludes',
      'measure virtualenvs, node_modules, build output, docs and generated code too',
    )
    .option('--no-rules', 'skip the slop rule pack')
    .option('--top <n>', 'how many of the most complex callables to list', positiveInteger, 10)
    .option('--threads <n>', 'worker threads analyzing files side by side', positiveInteger, 1)
    .action(async (path: string | undefined, flags: MetricsFlags) => {
      const metrics: Partial<MetricsOptions> = {
        ccThreshold: flags.ccThreshold,
        sizeTerm: flags.sizeTerm,
        ccVariant: flags.ccVariant,
        rules: flags.rules,
        threads: flags.threads,
      };
      const discovery: DiscoveryOptions = { exclude: flags.exclude, defaultExcludes: flags.defaultExcludes };
      if (flags.git) {
        if (path) badInput('give either a PATH or --git REPO, not both');
        await history(flags.git, flags, metrics, discovery);
        return;
      }
      if (!path) badInput('missing PATH (a directory or source file), or use --git REPO');
      await measurePath(path, flags, metrics, discovery);
    });
}

async function measurePath(
  path: string,
  flags: MetricsFlags,
  metrics: Partial<MetricsOptions>,
  discovery: DiscoveryOptions,
): Promise<void> {
  const { analyzeProject, languageOfPath, readSourceTree } = await import('@longhaul/metrics');
  const target = resolve(path);
  const info = await stat(target).catch(() => badInput(`${path}: no such file or directory`));
  let sources: SourceFile[];
  if (info.isDirectory()) sources = await readSourceTree(target, discovery);
  else {
    if (!languageOfPath(target)) badInput(`${path}: not a source file of a supported language`);
    sources = [{ path: basename(target), text: await readFile(target, 'utf8'), file: target }];
  }
  const report = await analyzeProject(sources, metrics);
  if (flags.json) {
    process.stdout.write(`${JSON.stringify(scoreKeys(report.summary))}\n`);
    return;
  }
  const { summary } = report;
  const lines = [`${path}: ${summary.files} files, ${summary.loc} LOC, ${summary.callables} callables`];
  for (const [key, value] of Object.entries(summary)) {
    if (['files', 'loc', 'callables'].includes(key)) continue;
    lines.push(`  ${key.padEnd(24)} ${format(value)}`);
  }
  if (Object.values(summary).includes(null)) lines.push(`  (${dashNote})`);
  const top = [...report.callables].sort((a, b) => b.cc - a.cc).slice(0, flags.top);
  if (top.length) {
    lines.push('', 'most complex callables (CC, cognitive, SLOC):');
    for (const callable of top) {
      lines.push(
        `  ${String(callable.cc).padStart(4)} ${String(callable.cognitive).padStart(5)} ${String(callable.sloc).padStart(5)}  ${callable.file}:${callable.startLine} ${callable.qualifiedName}`,
      );
    }
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}

const columns = [
  'loc',
  'erosion',
  'verbosity',
  'clone_ratio',
  'violation_rate',
  'max_cc',
  'cognitive_complexity',
] as const;

async function history(
  repo: string,
  flags: MetricsFlags,
  metrics: Partial<MetricsOptions>,
  discovery: DiscoveryOptions,
): Promise<void> {
  const { measureHistory } = await import('@longhaul/metrics');
  const info = await stat(resolve(repo)).catch(() => undefined);
  if (!info?.isDirectory()) badInput(`${repo}: no such directory`);
  const print = (commit: HistoryCommit) => {
    const cells = columns.map((key) => format(commit.summary[key]).padStart(key.length));
    process.stdout.write(
      `${commit.progress.toFixed(2)}  ${commit.phase.padEnd(5)}  ${commit.sha.slice(0, 10)}  ${commit.date.slice(0, 10)}  ${cells.join('  ')}\n`,
    );
  };
  if (!flags.json) process.stdout.write(`progress  phase  commit      date        ${columns.join('  ')}\n`);
  const commits = await measureHistory(resolve(repo), {
    commits: flags.commits,
    ref: flags.ref,
    discovery,
    metrics,
    ...(flags.json ? {} : { onCommit: print }),
  }).catch((error: Error) => badInput(error.message));
  if (flags.json) {
    const rows = commits.map(({ summary, ...commit }) => ({ ...commit, ...scoreKeys(summary) }));
    process.stdout.write(`${JSON.stringify({ repo, commits: rows })}\n`);
  } else if (!commits.length) process.stdout.write(`${repo}: no commit changes a source file\n`);
  else if (commits.some((commit) => columns.some((key) => commit.summary[key] === null)))
    process.stdout.write(`(${dashNote})\n`);
}
