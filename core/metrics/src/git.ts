import { execFile, spawn } from 'node:child_process';
import { posix } from 'node:path';
import { promisify } from 'node:util';
import type { DiscoveryOptions, SourceFile } from './discovery.js';
import { isGenerated, SourceFilter } from './discovery.js';
import { languageOfPath } from './languages/registry.js';
import type { MetricsOptions } from './options.js';
import { type Phase, progressOf, progressPhases, spread } from './progress.js';
import { analyzeProject, type QualitySummary } from './project.js';

const run = promisify(execFile);

async function git(repo: string, args: string[]): Promise<string> {
  try {
    const { stdout } = await run('git', ['-C', repo, ...args], { maxBuffer: 1 << 30, encoding: 'utf8' });
    return stdout;
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr?.trim();
    throw new Error(`git ${args[0]} in ${repo} failed${stderr ? `: ${stderr}` : ''}`);
  }
}

export interface HistoryCommit {
  sha: string;
  /** Commit time, ISO 8601. */
  date: string;
  subject: string;
  /** Position on the normalized progress axis, 0 (first sampled commit) to 1 (last). */
  progress: number;
  phase: Phase;
  summary: QualitySummary;
}

export interface HistoryOptions {
  /** At most this many commits (default 30). */
  commits?: number;
  /** Where history ends (default HEAD). */
  ref?: string;
  discovery?: DiscoveryOptions;
  metrics?: Partial<MetricsOptions>;
  /** Called after each measured commit (for progress output). */
  onCommit?(commit: HistoryCommit, index: number, total: number): void;
}

/** First-parent commits, oldest first, that change at least one source file the filter selects. */
export async function sourceTouchingCommits(
  repo: string,
  ref = 'HEAD',
  discovery: DiscoveryOptions = {},
): Promise<{ sha: string; date: string; subject: string }[]> {
  const log = await git(repo, [
    'log',
    '--first-parent',
    '--reverse',
    '--format=%x00%H%x01%cI%x01%s',
    '--name-only',
    ref,
  ]);
  const filter = new SourceFilter(discovery);
  const commits: { sha: string; date: string; subject: string }[] = [];
  for (const block of log.split('\0').slice(1)) {
    const [header = '', ...paths] = block.split('\n');
    const [sha = '', date = '', subject = ''] = header.split('\x01');
    if (paths.some((path) => path && filter.select(path))) commits.push({ sha, date, subject });
  }
  return commits;
}

/** Reads blobs with one `git cat-file --batch` process. */
async function readBlobs(repo: string, ids: string[]): Promise<Map<string, string>> {
  const result = new Map<string, string>();
  if (!ids.length) return result;
  const child = spawn('git', ['-C', repo, 'cat-file', '--batch'], { stdio: ['pipe', 'pipe', 'pipe'] });
  const chunks: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<void>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve() : reject(new Error(`git cat-file exited with ${code}`)),
    );
  });
  child.stdin.end(`${ids.join('\n')}\n`);
  await done;
  const out = Buffer.concat(chunks);
  let at = 0;
  const decoder = new TextDecoder();
  while (at < out.length) {
    const newline = out.indexOf(10, at);
    const [id = '', , size = '0'] = out.subarray(at, newline).toString('latin1').split(' ');
    const start = newline + 1;
    const end = start + Number(size);
    result.set(id, decoder.decode(out.subarray(start, end)));
    at = end + 1;
  }
  return result;
}

/** The sources of one commit's tree. */
export async function sourcesAtCommit(
  repo: string,
  sha: string,
  discovery: DiscoveryOptions = {},
): Promise<SourceFile[]> {
  const tree = await git(repo, ['ls-tree', '-r', '-z', '--full-tree', sha]);
  const entries = tree
    .split('\0')
    .filter(Boolean)
    .map((line) => {
      const tab = line.indexOf('\t');
      const [, type = '', id = ''] = line.slice(0, tab).split(' ');
      return { type, id, path: line.slice(tab + 1) };
    })
    .filter((entry) => entry.type === 'blob');
  const filter = new SourceFilter(discovery);
  const gitignores = entries.filter((entry) => posix.basename(entry.path) === '.gitignore');
  const ignoreTexts = await readBlobs(
    repo,
    gitignores.map((entry) => entry.id),
  );
  for (const entry of gitignores) {
    const dir = posix.dirname(entry.path);
    filter.addGitignore(dir === '.' ? '' : dir, ignoreTexts.get(entry.id) ?? '');
  }
  for (const entry of entries) {
    if (posix.basename(entry.path) === 'pyvenv.cfg') filter.addVirtualenv(posix.dirname(entry.path));
  }
  const selected = entries.filter((entry) => languageOfPath(entry.path) && filter.select(entry.path));
  const texts = await readBlobs(
    repo,
    selected.map((entry) => entry.id),
  );
  return selected
    .map((entry) => ({ path: entry.path, text: texts.get(entry.id) ?? '' }))
    .filter((file) => !(filter.skipGenerated && isGenerated(file.text)))
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/**
 * Samples up to `commits` source-touching commits of a repository, evenly over its history, and
 * measures each on SlopCodeBench's normalized progress axis (churn against the sampled commit
 * before it).
 */
export async function measureHistory(repo: string, options: HistoryOptions = {}): Promise<HistoryCommit[]> {
  const all = await sourceTouchingCommits(repo, options.ref, options.discovery);
  const picked = spread(all.length, options.commits ?? 30).map((index) => all[index]!);
  const phases = progressPhases(picked.length);
  const result: HistoryCommit[] = [];
  let previous: SourceFile[] | undefined;
  for (const [index, commit] of picked.entries()) {
    const sources = await sourcesAtCommit(repo, commit.sha, options.discovery);
    const report = await analyzeProject(sources, options.metrics, previous);
    const measured: HistoryCommit = {
      ...commit,
      progress: progressOf(index, picked.length),
      phase: phases[index]!,
      summary: report.summary,
    };
    result.push(measured);
    options.onCommit?.(measured, index, picked.length);
    previous = sources;
  }
  return result;
}
