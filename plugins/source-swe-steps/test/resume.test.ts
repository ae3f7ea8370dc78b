import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureBuilt, workspaceRoot } from '@longhaul/testkit/build';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cacheWorkspace } from '../src/cache-lock.js';
import type { Manifest } from '../src/index.js';
import { dockerReady } from './base-image.js';
import { buildTally, tallyPlan } from './tally.js';

// Mining at scale through the real CLI and Docker, on the 20 PRs of the tally repository: two
// validations at once, the cheap exclusions made from git before any sandbox, and a run killed
// with SIGKILL in the middle that, run again, validates only what had no result and writes the
// same dataset as a run never interrupted. About three minutes on two busy cores.
const root = workspaceRoot(import.meta.dirname);
const bin = join(root, 'core/cli/bin/longhaul.js');

let work = '';
let repo = '';

interface Mined {
  lines: string[];
  exit: number | null;
}

/** `swe-steps mine` of the tally repository into `out`; `until` may kill it on a stderr line. */
function mine(out: string, until?: (lines: string[], child: ChildProcess) => void): Promise<Mined> {
  const window = ['--since', '2025-02-01', '--until', '2025-02-28'];
  const args = [bin, 'swe-steps', 'mine', repo, ...window, '--out', out, '--reruns', '0', '--jobs', '2'];
  const child = spawn(process.execPath, args, { cwd: work, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  let partial = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    const text = partial + chunk.toString('utf8');
    const split = text.split('\n');
    partial = split.pop()!;
    lines.push(...split);
    until?.(lines, child);
  });
  child.stdout!.resume();
  return new Promise((resolve) => child.on('close', (exit) => resolve({ lines, exit })));
}

const readManifest = async (dir: string): Promise<Manifest> =>
  JSON.parse(await readFile(join(dir, 'dataset.json'), 'utf8'));

/** PR numbers of the lines `[k/n] PR #N: outcome` that were validated in this run (not cached). */
const validatedNow = (lines: string[]) =>
  lines.flatMap((line) => {
    const match = /^\[\d+\/\d+\] PR #(\d+): \S+$/.exec(line);
    return match ? [Number(match[1])] : [];
  });
const fromCache = (lines: string[]) =>
  lines.flatMap((line) => {
    const match = /^\[\d+\/\d+\] PR #(\d+): \S+ \(cached\)$/.exec(line);
    return match ? [Number(match[1])] : [];
  });

/** A run stopped with `signal` once `after` PRs were validated and another was in its sandbox. */
interface Stopped extends Mined {
  /** PRs validated (not from the cache) before the signal, and those in a sandbox at it. */
  finished: number[];
  running: number[];
  /** Validation results in the cache and the run's working directories, right after it ended. */
  results: string[];
  directories: string[];
  containers: string;
}

const started = (lines: string[]) =>
  lines.flatMap((line) => /^PR #(\d+): validating$/.exec(line)?.[1] ?? []).map(Number);

/**
 * `closeOutput`: the reader of its output goes first, as `tee` does on a Ctrl-C at a terminal
 * (the whole foreground group gets the signal): what the run writes after fails with EPIPE.
 */
async function stopped(
  out: string,
  after: number,
  signal: NodeJS.Signals,
  closeOutput = false,
): Promise<Stopped> {
  const cache = join(out, 'cache');
  let poll: NodeJS.Timeout | undefined;
  let prefix: string | undefined;
  let finished: number[] = [];
  let running: number[] = [];
  const mined = await mine(out, (lines, child) => {
    if (poll || validatedNow(lines).length < after) return;
    poll = setInterval(() => {
      if (!prefix) {
        if (existsSync(cache)) void cacheWorkspace(cache).then((workspace) => (prefix = workspace.tmpPrefix));
        return;
      }
      // Inside its sandbox: its working directory is made.
      const inside = started(lines).filter((pr) => !validatedNow(lines).includes(pr));
      if (inside.length === 0 || !readdirSync(tmpdir()).some((entry) => entry.startsWith(prefix!))) return;
      clearInterval(poll);
      finished = validatedNow(lines);
      running = inside;
      if (closeOutput) for (const stream of [child.stdout!, child.stderr!]) stream.destroy();
      child.kill(signal);
    }, 50);
  });
  clearInterval(poll);
  const { tmpPrefix, labels } = await cacheWorkspace(cache);
  const [label] = Object.entries(labels).map(([key, value]) => `${key}=${value}`);
  return {
    ...mined,
    finished,
    running,
    results: await readdir(join(cache, 'validation')),
    directories: (await readdir(tmpdir())).filter((entry) => entry.startsWith(tmpPrefix)),
    containers: String(
      (await execa('docker', ['ps', '--all', '--quiet', '--filter', `label=${label}`])).stdout,
    ),
  };
}

let whole: Mined;
let killed: Stopped;
let interrupted: Stopped;
let piped: Stopped;
let resumed: Mined;
const inSandbox = tallyPlan.flatMap((kind, index) =>
  kind === 'feature' || kind === 'no-fail-to-pass' ? [index + 1] : [],
);

beforeAll(async () => {
  if (!dockerReady) return;
  await ensureBuilt(['core/cli', 'plugins/source-swe-steps', 'plugins/environment-docker'], root);
  work = await mkdtemp(join(tmpdir(), 'longhaul-swe-steps-resume-'));
  repo = await buildTally(work);
  whole = await mine(join(work, 'whole'));
  // The same mining killed with SIGKILL in the middle, then run again and stopped with Ctrl-C
  // (SIGINT), then run again to the end.
  killed = await stopped(join(work, 'resumed'), 3, 'SIGKILL');
  interrupted = await stopped(join(work, 'resumed'), 2, 'SIGINT');
  resumed = await mine(join(work, 'resumed'));
  piped = await stopped(join(work, 'piped'), 1, 'SIGINT', true);
}, 1_200_000);

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

describe.skipIf(!dockerReady)('mining 20 PRs with two jobs, killed and resumed (Docker)', () => {
  it('excludes the docs, config, untested and test-only PRs from git before any sandbox starts', () => {
    expect(whole.exit).toBe(0);
    const history = whole.lines.findIndex((line) => line.includes('first-parent commits in the window'));
    const firstSandbox = whole.lines.findIndex((line) => line.endsWith(': validating'));
    expect(history).toBeGreaterThanOrEqual(0);
    expect(history).toBeLessThan(firstSandbox);
    expect(whole.lines[history]).toBe(
      '20 first-parent commits in the window, 20 PRs: 8 excluded from git alone (docs-only 2, config-only 2, no-test-change 2, no-source-change 2), 12 to validate',
    );
    const sandboxed = whole.lines
      .flatMap((line) => /^PR #(\d+): validating$/.exec(line)?.[1] ?? [])
      .map(Number);
    expect(sandboxed.sort((a, b) => a - b)).toEqual(inSandbox);
  });

  it('validates two PRs at once', () => {
    // Before the first PR is done, the second has started: two sandboxes run side by side.
    const starts = whole.lines.filter((line) => line.endsWith(': validating'));
    const firstDone = whole.lines.findIndex((line) => /^\[\d+\/20\] PR #\d+: \S+$/.test(line));
    expect(whole.lines.indexOf(starts[1]!)).toBeLessThan(firstDone);
  });

  it('mines the PRs as the plan says', async () => {
    const manifest = await readManifest(join(work, 'whole'));
    const outcome = (kind: string) => (kind === 'feature' ? 'validated' : kind);
    expect(manifest.prs.map((pr) => [pr.pr_number, pr.excluded?.reason ?? pr.status])).toEqual(
      tallyPlan.map((kind, index) => [index + 1, outcome(kind)]),
    );
    expect(manifest.prs[0]!.fail_to_pass).toEqual([
      'tests/test_add.py::test_add_first',
      'tests/test_add.py::test_add_second',
    ]);
    expect(manifest.environment.runtime?.python).toMatch(/^3\./);
  });

  it('killed in the middle, it validates again only the PRs that had no result', () => {
    expect(killed.exit).toBeNull();
    expect(killed.finished.length).toBeGreaterThanOrEqual(3);
    // What SIGKILL leaves: the working directories of the validations it was running.
    expect(killed.directories.length).toBeGreaterThan(0);
    const cached = fromCache(interrupted.lines);
    // Every PR finished before the kill comes from the cache, and only those with a result.
    for (const pr of killed.finished) expect(cached).toContain(pr);
    expect(cached.length).toBe(killed.results.length);
    const again = validatedNow(interrupted.lines);
    expect(again.filter((pr) => cached.includes(pr))).toEqual([]);
    // The PRs that were in a sandbox when it died start over.
    for (const pr of killed.running.filter((pr) => !cached.includes(pr)))
      expect(started(interrupted.lines)).toContain(pr);
  });

  it('stopped with Ctrl-C, it removes its containers, caches what it finished and says how to resume', () => {
    expect(interrupted.exit).toBe(130);
    expect(interrupted.lines).toContain(
      `swe-steps mine: stopped: ${interrupted.results.length} PRs have a validation result in the cache; run the same command again to resume`,
    );
    expect(interrupted.containers.trim()).toBe('');
    expect(interrupted.directories).toEqual([]);
    expect(existsSync(join(work, 'resumed', 'cache', 'mining.lock'))).toBe(false);
    // The validations it stopped are no result (one may have ended as the signal came).
    const results = interrupted.results.length;
    expect(results).toBeGreaterThanOrEqual(killed.results.length + interrupted.finished.length);
    expect(results).toBeLessThan(
      killed.results.length + interrupted.finished.length + interrupted.running.length,
    );
  });

  it('stopped with Ctrl-C while piped into tee, it stops as cleanly though its output is gone', () => {
    expect(piped.running.length).toBeGreaterThan(0);
    expect(piped.exit).toBe(130);
    expect(piped.containers.trim()).toBe('');
    expect(piped.directories).toEqual([]);
    expect(existsSync(join(work, 'piped', 'cache', 'mining.lock'))).toBe(false);
  });

  it('run to the end, every PR is validated once over the three runs', () => {
    expect(resumed.exit).toBe(0);
    const cached = fromCache(resumed.lines);
    expect(cached.length).toBe(interrupted.results.length);
    const again = validatedNow(resumed.lines);
    expect([...cached, ...again].sort((a, b) => a - b)).toEqual(inSandbox);
    const validated = [...killed.finished, ...interrupted.finished, ...again];
    expect(validated.sort((a, b) => a - b)).toEqual(inSandbox);
  });

  it('the resumed dataset is the one a run never interrupted writes', async () => {
    const a = await readManifest(join(work, 'whole'));
    const b = await readManifest(join(work, 'resumed'));
    expect(b.prs).toEqual(a.prs);
    expect(b.chains).toEqual(a.chains);
    expect(b.environment).toEqual(a.environment);
    expect(b.stats).toMatchObject({
      validatedNow: 12 - interrupted.results.length,
      fromCache: interrupted.results.length,
    });
  });

  it('leaves no container, temporary directory or lock behind', async () => {
    const { labels, tmpPrefix } = await cacheWorkspace(join(work, 'resumed', 'cache'));
    const [label] = Object.entries(labels).map(([key, value]) => `${key}=${value}`);
    const containers = await execa('docker', ['ps', '--all', '--quiet', '--filter', `label=${label}`]);
    expect(String(containers.stdout).trim()).toBe('');
    expect((await readdir(tmpdir())).filter((entry) => entry.startsWith(tmpPrefix))).toEqual([]);
    expect(existsSync(join(work, 'resumed', 'cache', 'mining.lock'))).toBe(false);
  });
});
