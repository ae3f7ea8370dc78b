import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import type { ExclusionReason } from './dataset.js';
import type { Git } from './git.js';
import { failureReason, type Outcome, parsePytestMessages, parsePytestSummary } from './pytest-results.js';
import { MineInputError } from './window.js';

export interface ValidationSettings {
  /** Docker image with git, Python and pytest; no network is given to it. */
  image: string;
  /** Shell commands run in the repository before the tests (installs from local files only). */
  setup: string[];
  /** How the repository's tests run; test files are appended. */
  command: string[];
  /** Extra runs of each state after the first, to find flaky tests. */
  reruns: number;
  timeoutSeconds: number;
}

/** One PR ready to validate: its parent commit, its two patches and the test files to run. */
export interface ValidationJob {
  parent: string;
  testPatch: string;
  fixPatch: string;
  testFiles: string[];
  /** Test files as they were at the parent (a test whose function is named there is pre-existing). */
  previousTests: Map<string, string | undefined>;
}

/** The interpreter and pytest a test run used: validation records it, the scorer compares. */
export interface Runtime {
  python: string;
  pytest: string;
  executable: string;
}

/**
 * A pytest plugin (`-p longhaul_probe`) that writes the interpreter and pytest of the run to
 * LONGHAUL_PROBE when it is imported: `pytest --version` loads it and runs nothing else.
 */
const probeModule = 'longhaul_probe';
const probeSource = `import json, os, platform, sys
import pytest
with open(os.environ["LONGHAUL_PROBE"], "w") as out:
    json.dump({"python": platform.python_version(), "pytest": pytest.__version__, "executable": os.path.realpath(sys.executable)}, out)
`;

/**
 * Where one PR's validation spent its time, in seconds: reading its trees from git, making its
 * environment (the container, the copy of the tree, setup), the first test run
 * without the fix (with the test patch applied), the first with it, and every rerun of both.
 */
export interface ValidationTiming {
  git: number;
  environment: number;
  before: number;
  after: number;
  reruns: number;
}

export interface ValidationResult {
  /** Where the tests ran, in results cached by older versions (now probed once per run). */
  environment?: Runtime;
  /** Where the time went (absent in results cached by older versions). */
  timing?: ValidationTiming;
  f2p: string[];
  p2p: string[];
  dropped: { id: string; reason: string }[];
  excluded?: { reason: ExclusionReason; detail: string };
}

/** The newest image `longhaul images build` made (longhaul/base, labelled longhaul.image=base). */
export async function defaultImage(): Promise<string> {
  const result = await execa(
    'docker',
    ['images', '--filter', 'label=longhaul.image=base', '--format', '{{.Repository}}:{{.Tag}}'],
    { reject: false },
  );
  if (result.exitCode !== 0)
    throw new MineInputError(
      `cannot list Docker images (${String(result.stderr).trim()}); is dockerd running?`,
    );
  // An image built FROM a base image inherits its label: only longhaul/base itself is one.
  const image = String(result.stdout)
    .split('\n')
    .find((line) => line.startsWith('longhaul/base:') && !line.includes('<none>'));
  if (!image)
    throw new MineInputError('no longhaul base image: run `longhaul images build`, or pass --image');
  return image.trim();
}

/** What mining's containers carry: a name to remove them by, and labels to find a dead run's. */
export interface ContainerOptions {
  name?: string;
  labels?: Record<string, string>;
  /** Aborting it removes the (named) container: the run was stopped. */
  signal?: AbortSignal;
}

/**
 * `docker run --rm` without network, with `host:container[:ro]` volumes; never rejects. A named
 * container that outlives its time limit is removed: stopping the docker client would leave it
 * running.
 */
export async function runContainer(
  image: string,
  volumes: string[],
  command: string[],
  timeoutMs?: number,
  options: ContainerOptions = {},
) {
  const mounts = volumes.flatMap((volume) => ['-v', volume]);
  const labels = Object.entries(options.labels ?? {}).flatMap(([key, value]) => [
    '--label',
    `${key}=${value}`,
  ]);
  const name = options.name ? ['--name', options.name] : [];
  const remove = () =>
    options.name ? execa('docker', ['rm', '--force', options.name], { reject: false }) : undefined;
  let removing: Promise<unknown> | undefined;
  const stop = () => {
    removing = remove();
  };
  options.signal?.addEventListener('abort', stop, { once: true });
  try {
    const result = await execa(
      'docker',
      ['run', '--rm', '--network', 'none', ...name, ...labels, ...mounts, image, ...command],
      { reject: false, timeout: timeoutMs },
    );
    if (result.timedOut) await remove();
    return result;
  } finally {
    options.signal?.removeEventListener('abort', stop);
    await removing;
  }
}

/** Fails with a one-line reason unless Docker runs and has `image`. */
export async function checkImage(image: string): Promise<void> {
  const result = await execa('docker', ['image', 'inspect', '--format', '{{.Id}}', image], { reject: false });
  if (result.exitCode === 0) return;
  const reason = String(result.stderr).trim().split('\n')[0] ?? '';
  throw new MineInputError(
    /no such image/i.test(reason)
      ? `the validation image ${image} is missing: run \`longhaul images build\`, or pass --image`
      : `cannot use Docker (${reason}); is dockerd running?`,
  );
}

const quote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

/** The environment at the base commit: a copy of its tree, set up. */
function environmentScript(settings: ValidationSettings): string[] {
  return [
    // Each mark is a phase's end, in nanoseconds of the clock the host reads too.
    'mark() { echo "$1 $(date +%s%N)" >> /out/marks; }',
    'mark start',
    'cp -a /job/tree /tmp/repo && cd /tmp/repo || { echo copy > /out/status; exit 0; }',
    ...settings.setup.map(
      (command) => `sh -c ${quote(command)} >> /out/setup.log 2>&1 || { echo setup > /out/status; exit 0; }`,
    ),
  ];
}

/** The script the container runs: set up, apply the test patch, run, apply the fix, run. */
function script(settings: ValidationSettings, testFiles: string[]): string {
  const runs = settings.reruns + 1;
  const pytest = [
    ...settings.command,
    '-rA',
    '-p',
    'no:cacheprovider',
    '--continue-on-collection-errors',
    ...testFiles,
  ]
    .map(quote)
    .join(' ');
  const state = (name: string) =>
    `for i in $(seq 1 ${runs}); do COLUMNS=1000 timeout ${settings.timeoutSeconds} ${pytest} > /out/${name}-$i.txt 2>&1; echo $? > /out/${name}-$i.rc; mark ${name}-$i; done`;
  return [
    ...environmentScript(settings),
    'mark ready',
    'if [ -s /job/test.patch ]; then git apply --whitespace=nowarn /job/test.patch 2> /out/apply.log || { echo test-patch > /out/status; exit 0; }; fi',
    state('before'),
    'if [ -s /job/fix.patch ]; then git apply --whitespace=nowarn /job/fix.patch 2> /out/apply.log || { echo fix-patch > /out/status; exit 0; }; fi',
    state('after'),
    'echo ok > /out/status',
    '',
  ].join('\n');
}

/** The outcomes of each run of a state, and the failure messages of its last run. */
async function runs(
  out: string,
  name: string,
  count: number,
): Promise<{ outcomes: Map<string, Outcome>[]; messages: Map<string, string> }> {
  const outcomes: Map<string, Outcome>[] = [];
  let messages = new Map<string, string>();
  for (let i = 1; i <= count; i++) {
    const rc = (await readFile(join(out, `${name}-${i}.rc`), 'utf8')).trim();
    if (rc === '124')
      throw Object.assign(new Error(`the tests ran out of time (${name} run ${i})`), { timeout: true });
    const text = await readFile(join(out, `${name}-${i}.txt`), 'utf8');
    outcomes.push(parsePytestSummary(text));
    messages = parsePytestMessages(text);
  }
  return { outcomes, messages };
}

/**
 * The timing of one validation from the container's marks (`name nanoseconds` lines): what ran
 * before the tests is environment, as is the container's start and removal around the script.
 */
export function timingOf(
  marks: string,
  git: number,
  container: { start: number; end: number },
  runs: number,
): ValidationTiming {
  const at = new Map<string, number>();
  for (const line of marks.split('\n')) {
    const [name, ns] = line.trim().split(' ');
    if (name && ns && /^\d+$/.test(ns)) at.set(name, Number(BigInt(ns) / 1000000n));
  }
  const seconds = (ms: number) => Math.max(0, Math.round(ms) / 1000);
  const span = (from: string, to: string) =>
    at.has(from) && at.has(to) ? seconds(at.get(to)! - at.get(from)!) : 0;
  const last = [...at.values()].reduce((latest, time) => Math.max(latest, time), container.start);
  const tests = (name: string) => span(`${name}-1`, `${name}-${runs}`);
  const ready = at.has('ready') ? 'ready' : undefined;
  return {
    git,
    environment: seconds((ready ? at.get(ready)! : last) - container.start + (container.end - last)),
    before: ready ? span('ready', 'before-1') : 0,
    after: span(`before-${runs}`, 'after-1'),
    reruns: tests('before') + tests('after'),
  };
}

/** Whether a test function of this node id is defined in the file's earlier version. */
function preExisting(id: string, previous: Map<string, string | undefined>): boolean {
  const [file = '', ...rest] = id.split('::');
  const source = previous.get(file);
  const name = (rest[rest.length - 1] ?? '').replace(/\[.*$/, '');
  return source !== undefined && new RegExp(`def ${name.replace(/[^\w]/g, '')}\\s*\\(`).test(source);
}

/**
 * Sorts a PR's tests by what they did. Every test must pass in every run with the fix (else
 * dropped: "fails with the fix" or "flaky with the fix"). Without the fix, a new test must fail
 * in every run (F2P; passing is "passes without the fix", mixed is "flaky without the fix"); a
 * pre-existing test that passes in every run is P2P, one that fails in every run was changed to
 * test the new behaviour and is F2P, mixed is dropped as flaky. A test failing with the fix and a
 * module that cannot be collected with it say why (`import-error: No module named 'pytz'`,
 * `collection-error: …`, `fails with the fix: <message>`), from `messages` of the last run.
 */
export function classifyTests(
  before: Map<string, Outcome>[],
  after: Map<string, Outcome>[],
  previous: Map<string, string | undefined>,
  messages: Map<string, string> = new Map(),
): Omit<ValidationResult, 'excluded'> {
  const ids = [...new Set(after.flatMap((run) => [...run.keys()]))].sort();
  const result: Omit<ValidationResult, 'excluded'> = { f2p: [], p2p: [], dropped: [] };
  for (const id of ids) {
    const passedAfter = after.filter((run) => run.get(id) === 'passed').length;
    if (passedAfter < after.length) {
      const collection = !id.includes('::');
      const reason = passedAfter > 0 ? 'flaky with the fix' : failureReason(messages.get(id), collection);
      result.dropped.push({ id, reason });
      continue;
    }
    const passedBefore = before.filter((run) => run.get(id) === 'passed').length;
    if (passedBefore > 0 && passedBefore < before.length) {
      result.dropped.push({ id, reason: 'flaky without the fix' });
    } else if (passedBefore === 0) {
      result.f2p.push(id);
    } else if (preExisting(id, previous)) {
      result.p2p.push(id);
    } else {
      result.dropped.push({ id, reason: 'passes without the fix' });
    }
  }
  return result;
}

/** Where mining's containers and their working directories belong (see cache-lock.ts). */
export interface Workspace {
  /** Prefix of the temporary directories, so that a dead run's can be found and removed. */
  tmpPrefix: string;
  /** Labels of the containers, so that a dead run's can be found and removed. */
  labels: Record<string, string>;
  /** The run was stopped: containers are removed, and what they were doing is no result. */
  signal?: AbortSignal;
}

const anywhere: Workspace = { tmpPrefix: 'longhaul-swe-steps-validate-', labels: {} };

/** A container name unique to this job. */
const containerName = (what: string) =>
  `longhaul-swe-steps-${what.slice(0, 12)}-${randomBytes(4).toString('hex')}`;

/**
 * The interpreter and pytest the tests run with, in a container of the environment at `commit`
 * (a copy of its tree, set up): once per mining run, since they are the image's (and the setup's).
 * Undefined when the probe could not run.
 */
export async function probeRuntime(
  git: Git,
  commit: string,
  settings: ValidationSettings,
  workspace: Workspace = anywhere,
): Promise<Runtime | undefined> {
  const work = await mkdtemp(join(tmpdir(), workspace.tmpPrefix));
  try {
    const jobDir = join(work, 'job');
    const out = join(work, 'out');
    await mkdir(join(jobDir, 'tree'), { recursive: true });
    await mkdir(out);
    await git.extract(commit, join(jobDir, 'tree'));
    const probe = [...settings.command, '-p', probeModule, '--version'].map(quote).join(' ');
    await writeFile(
      join(jobDir, 'run.sh'),
      [
        ...environmentScript(settings),
        `PYTHONPATH=/job/probe LONGHAUL_PROBE=/out/environment.json ${probe} > /dev/null 2>&1 || true`,
        '',
      ].join('\n'),
    );
    await mkdir(join(jobDir, 'probe'));
    await writeFile(join(jobDir, 'probe', `${probeModule}.py`), probeSource);
    await runContainer(
      settings.image,
      [`${jobDir}:/job:ro`, `${out}:/out`],
      ['bash', '/job/run.sh'],
      (settings.timeoutSeconds + 120) * 1000,
      { name: containerName(commit), labels: workspace.labels, signal: workspace.signal },
    );
    return await readFile(join(out, 'environment.json'), 'utf8')
      .then((text) => JSON.parse(text) as Runtime)
      .catch(() => undefined);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/**
 * Validates one PR in a fresh container without network: the environment at its base commit (a
 * copy of the parent tree, set up) serves the test patch alone (P2P must pass, F2P must fail),
 * then the fix patch too (both must pass), each state run 1 + reruns times.
 */
export async function validatePr(
  git: Git,
  job: ValidationJob,
  settings: ValidationSettings,
  workspace: Workspace = anywhere,
): Promise<ValidationResult> {
  const measured: { timing?: ValidationTiming } = {};
  const result = await validateIn(git, job, settings, workspace, measured);
  return measured.timing ? { ...result, timing: measured.timing } : result;
}

async function validateIn(
  git: Git,
  job: ValidationJob,
  settings: ValidationSettings,
  workspace: Workspace,
  measured: { timing?: ValidationTiming },
): Promise<ValidationResult> {
  const work = await mkdtemp(join(tmpdir(), workspace.tmpPrefix));
  const started = Date.now();
  const none = { f2p: [], p2p: [], dropped: [] };
  try {
    const jobDir = join(work, 'job');
    const out = join(work, 'out');
    await mkdir(join(jobDir, 'tree'), { recursive: true });
    await mkdir(out);
    await git.extract(job.parent, join(jobDir, 'tree'));
    await writeFile(join(jobDir, 'test.patch'), job.testPatch);
    await writeFile(join(jobDir, 'fix.patch'), job.fixPatch);
    await writeFile(join(jobDir, 'run.sh'), script(settings, job.testFiles));
    const limit = (settings.timeoutSeconds * 2 * (settings.reruns + 1) + 120) * 1000;
    const container = { start: Date.now(), end: 0 };
    const docker = await runContainer(
      settings.image,
      [`${jobDir}:/job:ro`, `${out}:/out`],
      ['bash', '/job/run.sh'],
      limit,
      { name: containerName(job.parent), labels: workspace.labels, signal: workspace.signal },
    );
    container.end = Date.now();
    measured.timing = timingOf(
      await readFile(join(out, 'marks'), 'utf8').catch(() => ''),
      (container.start - started) / 1000,
      container,
      settings.reruns + 1,
    );
    if (docker.timedOut)
      return {
        ...none,
        excluded: { reason: 'timeout', detail: `the container ran longer than ${limit / 1000} s` },
      };
    const status = (await readFile(join(out, 'status'), 'utf8').catch(() => '')).trim();
    if (docker.exitCode !== 0 || status === '')
      return {
        ...none,
        excluded: {
          reason: 'validation-error',
          detail: `docker run failed: ${String(docker.stderr).trim().split('\n')[0]}`,
        },
      };
    const log = async (file: string) =>
      (await readFile(join(out, file), 'utf8').catch(() => '')).trim().split('\n').slice(-3).join(' ');
    if (status === 'setup')
      return { ...none, excluded: { reason: 'setup-failed', detail: await log('setup.log') } };
    if (status === 'test-patch' || status === 'fix-patch')
      return {
        ...none,
        excluded: { reason: 'patch-does-not-apply', detail: `${status}: ${await log('apply.log')}` },
      };
    if (status !== 'ok')
      return {
        ...none,
        excluded: { reason: 'validation-error', detail: `the container stopped at ${status}` },
      };
    let before: Map<string, Outcome>[];
    let after: Awaited<ReturnType<typeof runs>>;
    try {
      before = (await runs(out, 'before', settings.reruns + 1)).outcomes;
      after = await runs(out, 'after', settings.reruns + 1);
    } catch (error) {
      if ((error as { timeout?: boolean }).timeout)
        return { ...none, excluded: { reason: 'timeout', detail: (error as Error).message } };
      throw error;
    }
    const result = classifyTests(before, after.outcomes, job.previousTests, after.messages);
    if (result.f2p.length === 0)
      return {
        ...result,
        excluded: { reason: 'no-fail-to-pass', detail: 'no test fails without the fix and passes with it' },
      };
    return result;
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
