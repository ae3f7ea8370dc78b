import { readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import {
  type CommandContext,
  type CommandGateway,
  ConfigError,
  defineCommand,
  formatColumns,
  readYaml,
  runCommandLine,
} from '@longhaul/core';
import { Command, InvalidArgumentError, Option } from 'commander';
import { type FoldPolicy, foldPolicies } from '../chains.js';
import { checkAgents, runCheck } from '../check.js';
import { type Manifest, manifestFile, manifest as manifestSchema } from '../dataset.js';
import { type MineProgress, mine, mineDefaults } from '../mine.js';
import { defaultPathRules } from '../path-rules.js';
import { isEnvironmentReason } from '../pytest-results.js';
import {
  type CheckResults,
  checkSettings,
  checkTotals,
  droppedByReason,
  isSound,
  type PrOutcome,
  supportOf,
} from '../report.js';

const description = 'SWE-STEPS: chains of pull requests from git history';

/** `longhaul swe-steps mine`: a SWE-STEPS dataset from a repository's history. */
export const sweStepsCommand = defineCommand({
  name: 'swe-steps',
  description,
  run: (args, context) =>
    runCommandLine(
      new Command('longhaul swe-steps').description(description),
      (sweSteps) => define(sweSteps, context),
      args,
      context,
    ),
});

const collect = (value: string, previous: string[]) => [...previous, value];

interface MineFlags {
  since: string;
  until: string;
  out: string;
  prs?: string;
  name?: string;
  branch?: string;
  image?: string;
  dockerfile?: string;
  install: string[];
  buildNetwork?: boolean;
  setup: string[];
  testCommand?: string;
  reruns: number;
  timeout: number;
  minChain: number;
  maxChain: number;
  fold: FoldPolicy;
  testGlob: string[];
  configGlob: string[];
  docsGlob: string[];
  jobs?: number;
  concurrency?: number;
  cacheDir?: string;
  classify?: string;
  models?: string;
  json?: boolean;
}

function integer(value: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 0) throw new InvalidArgumentError('expected a whole number');
  return number;
}

function positive(value: string): number {
  const number = integer(value);
  if (number < 1) throw new InvalidArgumentError('expected a whole number of at least 1');
  return number;
}

let brokenPipeIgnored = false;

/**
 * Piped into `tee` or `less`, Ctrl-C ends the reader too: what is written after is lost, and the
 * stop still runs to its end (containers removed, the cache released). Once per process, for
 * good: a write's error comes after the write, when the command may have returned.
 */
function ignoreBrokenPipe(): void {
  if (brokenPipeIgnored) return;
  brokenPipeIgnored = true;
  for (const stream of [process.stdout, process.stderr])
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE') throw error;
    });
}

/** One live line on a terminal, plain lines otherwise. */
function progressPrinter(context: CommandContext): (event: MineProgress) => void {
  const tty = (context.stderr as { isTTY?: boolean }).isTTY === true;
  let done = 0;
  let total = 0;
  return (event) => {
    let line: string;
    switch (event.phase) {
      case 'environment':
        line = event.line;
        break;
      case 'history': {
        const excluded = Object.entries(event.excluded)
          .map(([reason, count]) => `${reason} ${count}`)
          .join(', ');
        const early = Object.values(event.excluded).reduce((sum, count) => sum + count, 0);
        total = event.prs;
        done = event.prs - event.toValidate;
        line =
          `${event.commits} first-parent commits in the window, ${event.prs} PRs: ` +
          `${early} excluded from git alone${excluded ? ` (${excluded})` : ''}, ${event.toValidate} to validate`;
        break;
      }
      case 'validating':
        if (tty) {
          context.stderr.write(
            `\r\x1b[2K[${done}/${total}] validating ${event.running.map((pr) => `#${pr}`).join(', ')}`,
          );
          return;
        }
        line = `PR #${event.pr}: validating`;
        break;
      case 'pr':
        done = event.done;
        total = event.total;
        line = `[${event.done}/${event.total}] PR #${event.pr}: ${event.outcome}${event.cached ? ' (cached)' : ''}`;
        if (tty) {
          context.stderr.write(`\r\x1b[2K${line}`);
          return;
        }
        break;
      case 'chains':
        line = `${event.chains} chains`;
        break;
      case 'written':
        line = `dataset written to ${event.dir}`;
        break;
    }
    context.stderr.write(`${tty ? '\r\x1b[2K' : ''}${line}\n`);
  };
}

function printSummary(manifest: Manifest, context: CommandContext): void {
  const s = manifest.stats;
  const reasons = Object.entries(s.excluded)
    .map(([reason, count]) => `${reason} ${count}`)
    .join(', ');
  const rows = manifest.chains.map((chain) => {
    const prs = chain.prs.map((number) => manifest.prs.find((pr) => pr.pr_number === number)!);
    return [
      `${manifest.repository.name}-${chain.id}`,
      String(chain.prs.length),
      String(prs.reduce((sum, pr) => sum + pr.fail_to_pass.length, 0)),
      String(prs.reduce((sum, pr) => sum + pr.pass_to_pass.length, 0)),
      chain.base.slice(0, 12),
    ];
  });
  context.stdout.write(
    `${manifest.repository.name} ${manifest.window.since}..${manifest.window.until}: ${s.prsSeen} PRs seen ` +
      `(${s.commits} commits), ${s.prsSeen - s.validated} excluded (${reasons || 'none'}), ${s.validated} validated ` +
      `(${s.validatedNow} now, ${s.fromCache} from the cache), ${s.testsDropped} tests dropped, ` +
      `${s.chains} chains of ${s.prsInChains} PRs, ${s.wallSeconds} s\n` +
      (rows.length > 0 ? `${formatColumns([['TASK', 'PRS', 'F2P', 'P2P', 'BASE'], ...rows])}\n` : ''),
  );
  for (const line of environmentWarnings(manifest)) context.stdout.write(`${line}\n`);
}

const counted = (entries: [string, number][]) =>
  entries.length === 0 ? '–' : entries.map(([what, count]) => `${what} ${count}`).join(', ');

/** Per PR: its chain, its runnable test modules, its support files, its dropped tests by reason. */
function printSupport(manifest: Manifest, context: CommandContext): void {
  const support = supportOf(manifest);
  context.stdout.write(`tests dropped by reason: ${counted(droppedByReason(manifest.prs))}\n\n`);
  const rows = support.map((pr) => [
    `#${pr.pr}`,
    pr.chain ?? '–',
    pr.excluded ?? pr.status,
    String(pr.testModules.length),
    String(pr.supportFiles.length),
    String(pr.f2p),
    String(pr.p2p),
    counted(droppedByReason([{ dropped_tests: pr.dropped }])),
  ]);
  context.stdout.write(
    `${formatColumns([['PR', 'CHAIN', 'STATUS', 'MODULES', 'SUPPORT', 'F2P', 'P2P', 'DROPPED'], ...rows])}\n`,
  );
  for (const pr of support) {
    if (pr.testModules.length === 0 && pr.supportFiles.length === 0 && pr.dropped.length === 0) continue;
    context.stdout.write(`\nPR #${pr.pr}${pr.chain ? ` (${pr.chain})` : ''}\n`);
    context.stdout.write(`  test modules: ${pr.testModules.join(', ') || '–'}\n`);
    context.stdout.write(`  support files: ${pr.supportFiles.join(', ') || '–'}\n`);
    for (const test of pr.dropped) context.stdout.write(`  dropped ${test.id}: ${test.reason}\n`);
  }
}

const mark = (outcome: PrOutcome | undefined) =>
  outcome === undefined
    ? '–'
    : outcome.error
      ? 'error'
      : outcome.judged === false
        ? 'not judged'
        : outcome.success
          ? 'ok'
          : 'FAIL';
const share = (value: number | null | undefined) =>
  value === null || value === undefined ? '–' : `${value}%`;
const nochangeShare = (outcome: PrOutcome | undefined) =>
  outcome?.judged === false ? 'not judged' : share(outcome?.f2p);

/** Per PR in a chain: whether the oracle solved it and the F2P of the agent that changes nothing, per setting. */
function printCheck(manifest: Manifest, results: CheckResults, context: CommandContext): boolean {
  const settings = checkSettings.map(({ setting }) => setting);
  const rows = manifest.chains.flatMap((chain) =>
    chain.prs.map((pr) => {
      const of = (agent: string) => results.get(pr)?.get(agent);
      return [
        `#${pr}`,
        chain.id,
        ...settings.map((setting) => mark(of('oracle')?.get(setting))),
        ...settings.map((setting) => nochangeShare(of('nochange')?.get(setting))),
      ];
    }),
  );
  const header = [
    'PR',
    'CHAIN',
    ...settings.map((setting) => `ORACLE ${setting.toUpperCase()}`),
    ...settings.map((setting) => `NOCHANGE F2P ${setting.toUpperCase()}`),
  ];
  context.stdout.write(`\n${formatColumns([header, ...rows])}\n\n`);
  const totals = checkTotals(manifest, results);
  for (const total of totals)
    context.stdout.write(
      `${total.agent} ${total.setting}: ${total.solved}/${total.prs} PRs, ${total.tasksCompleted}/${total.tasks} tasks, F2P ${share(total.f2p)} (${total.f2pPassed}/${total.f2pTotal})${
        total.notJudged > 0
          ? `; not judged: ${total.notJudged} PRs${total.tasksNotJudged > 0 ? `, ${total.tasksNotJudged} tasks` : ''}`
          : ''
      }\n`,
    );
  if (totals.some((total) => total.notJudged > 0))
    context.stdout.write(
      'not judged: PRs with no F2P test left to judge them on (in PRD, later commits of the chain rewrote the module of every one), neither solved nor failed; PRs and tasks above are over judged PRs\n',
    );
  const sound = isSound(totals);
  context.stdout.write(
    sound
      ? 'sound: the oracle solves every judged PR in every setting and the agent that changes nothing passes no F2P test\n'
      : 'NOT sound: the oracle misses a PR or a test passes without the change (see the run for why)\n',
  );
  return sound;
}

async function readManifest(dir: string): Promise<Manifest> {
  const file = join(dir, manifestFile);
  const text = await readFile(file, 'utf8').catch(() => {
    throw new ConfigError([{ file: dir, message: `is not a SWE-STEPS dataset: it has no ${manifestFile}` }]);
  });
  const parsed = manifestSchema.safeParse(JSON.parse(text));
  if (!parsed.success)
    throw new ConfigError([
      { file, message: `not a dataset of this version: ${parsed.error.issues[0]?.message ?? ''}` },
    ]);
  return parsed.data;
}

/** The share of a PR's tests above which drops the environment caused are worth a warning. */
const environmentShare = 0.05;

/**
 * One line per PR that lost more than 5 % of its tests to the environment (a module that cannot
 * be imported or collected, a missing file): its chain measures the image, not the agent.
 */
export function environmentWarnings(manifest: Manifest): string[] {
  const lines: string[] = [];
  for (const pr of manifest.prs) {
    const blamed = pr.dropped_tests.filter((test) => isEnvironmentReason(test.reason));
    const total = pr.fail_to_pass.length + pr.pass_to_pass.length + pr.dropped_tests.length;
    if (blamed.length === 0 || blamed.length / total <= environmentShare) continue;
    const reasons = [...new Set(blamed.map((test) => test.reason))].slice(0, 3).join('; ');
    lines.push(
      `warning: PR #${pr.pr_number}: ${blamed.length} of ${total} tests dropped for the environment (${reasons}): give mining a recipe (--dockerfile, --install)`,
    );
  }
  return lines;
}

async function modelsOf(file: string, name: string): Promise<unknown> {
  const yaml = await readYaml(file, name);
  const models = (yaml.value as { models?: unknown } | null)?.models;
  if (!models) throw new ConfigError([yaml.issue([], 'has no models: mapping to classify with')]);
  return models;
}

function define(sweSteps: Command, context: CommandContext): void {
  sweSteps
    .command('report')
    .description(
      "What a mined dataset supports, per PR: runnable test modules, support files, dropped tests by reason; with --check, the oracle's and a do-nothing agent's outcome in each setting",
    )
    .argument('<dataset>', 'a dataset directory `swe-steps mine` wrote')
    .option(
      '--check',
      'run the oracle and an agent that changes nothing on every chain in the individual, global and PRD settings (one turn per PR), and report each PR',
    )
    .option('--environment <id>', 'where the check runs its trials', 'docker')
    .option('--run-dir <dir>', "the check's experiment and run (default: <dataset>/check-<time>)")
    .option('--concurrency <n>', 'trials of the check at once', integer, 2)
    .option('--json', 'print the report as JSON')
    .action(
      async (
        dataset: string,
        flags: { check?: boolean; environment: string; runDir?: string; concurrency: number; json?: boolean },
      ) => {
        const dir = resolve(context.cwd, dataset);
        const manifest = await readManifest(dir);
        let results: CheckResults | undefined;
        if (flags.check) {
          const stamp = new Date().toISOString().replace(/[:.]/g, '-');
          const runDir = resolve(context.cwd, flags.runDir ?? join(dataset, `check-${stamp}`));
          context.stderr.write(
            `checking ${manifest.chains.length} chains × ${checkAgents.join(', ')} × 3 settings in ${runDir}\n`,
          );
          results = await runCheck(
            {
              dataset: dir,
              runDir,
              environment: flags.environment,
              concurrency: Math.max(1, flags.concurrency),
            },
            context,
          );
        }
        if (flags.json) {
          const check = results
            ? {
                prs: Object.fromEntries(
                  [...results].map(([pr, byAgent]) => [
                    pr,
                    Object.fromEntries(
                      [...byAgent].map(([agent, bySetting]) => [agent, Object.fromEntries(bySetting)]),
                    ),
                  ]),
                ),
                totals: checkTotals(manifest, results),
              }
            : undefined;
          context.stdout.write(
            `${JSON.stringify(
              {
                stats: manifest.stats,
                droppedByReason: Object.fromEntries(droppedByReason(manifest.prs)),
                prs: supportOf(manifest),
                ...(check ? { check } : {}),
              },
              null,
              1,
            )}\n`,
          );
          if (check && !isSound(check.totals)) process.exitCode = 1;
          return;
        }
        printSummary(manifest, context);
        printSupport(manifest, context);
        if (results && !printCheck(manifest, results, context)) process.exitCode = 1;
      },
    );
  sweSteps
    .command('mine')
    .description(
      "Mine a repository's first-parent history in a window into a SWE-STEPS dataset: PRs, their tests validated in Docker, chains",
    )
    .argument('<repo>', 'a local git repository or a git bundle')
    .requiredOption(
      '--since <date>',
      'start of the window (YYYY-MM-DD covers the whole day, UTC, or an ISO 8601 time)',
    )
    .requiredOption('--until <date>', 'end of the window, inclusive')
    .requiredOption('--out <dir>', 'the dataset directory to write')
    .option(
      '--prs <file>',
      'PR text exported from the forge: JSON list of number, title, body, linked issues',
    )
    .option('--name <name>', 'repository name in task ids (default: the directory or bundle name)')
    .option(
      '--branch <branch>',
      "branch whose first-parent history is mined (default: the repository's HEAD)",
    )
    .option(
      '--image <image>',
      'image with git, Python and pytest, as it is or as the base of --install (default: the newest `longhaul images build` image)',
    )
    .option(
      '--dockerfile <file>',
      "the repository's environment: a Dockerfile (its folder is the context) built once into the image validation, agent and scorer share",
    )
    .option(
      '--install <command>',
      'the environment as --image plus commands run on it at build time (repeatable)',
      collect,
      [],
    )
    .option('--build-network', 'give the environment build network (never validation or agent turns)')
    .option(
      '--setup <command>',
      'shell command run in the repository before its tests (repeatable)',
      collect,
      [],
    )
    .option(
      '--test-command <command>',
      `how the tests run; ids are appended (default: ${mineDefaults.command.join(' ')})`,
    )
    .option('--reruns <n>', 'extra runs of each state to find flaky tests', integer, mineDefaults.reruns)
    .option('--timeout <seconds>', 'time limit of one test run', integer, mineDefaults.timeoutSeconds)
    .option('--min-chain <n>', 'shortest chain', integer, mineDefaults.minChain)
    .option('--max-chain <n>', 'longest chain; longer runs are split evenly', integer, mineDefaults.maxChain)
    .addOption(
      new Option(
        '--fold <policy>',
        'commits between two validated PRs that keep them in one chain: docs-config (only docs/CI/config changes), direct (also direct commits that are not PRs), all (any commit)',
      )
        .choices([...foldPolicies])
        .default(mineDefaults.fold),
    )
    .option('--test-glob <glob>', 'test file glob, replaces the defaults (repeatable)', collect, [])
    .option(
      '--config-glob <glob>',
      'build/CI/config file glob, replaces the defaults (repeatable)',
      collect,
      [],
    )
    .option('--docs-glob <glob>', 'documentation glob, replaces the defaults (repeatable)', collect, [])
    .option('--jobs <n>', 'PRs validated at once (default: one per core)', positive)
    .addOption(new Option('--concurrency <n>', 'the former name of --jobs').argParser(positive).hideHelp())
    .option('--cache-dir <dir>', 'repository mirror and validation cache (default: <out>/cache)')
    .option('--classify <model>', 'categorise each PR with this model (from --models)')
    .option('--models <file>', "YAML file with a models: mapping (an experiment's works) for --classify")
    .option('--json', 'print the manifest stats as JSON')
    .action(async (repo: string, flags: MineFlags) => {
      let classify: { gateway: CommandGateway; model: string } | undefined;
      if (flags.classify) {
        if (!flags.models) {
          context.stderr.write('--classify needs --models FILE naming the model\n');
          process.exitCode = 2;
          return;
        }
        const file = resolve(context.cwd, flags.models);
        const gateway = await context.openGateway(await modelsOf(file, flags.models), {
          baseDir: dirname(file),
          configFile: flags.models,
        });
        classify = { gateway, model: flags.classify };
      }
      // Ctrl-C stops the run cleanly (containers removed, results so far cached); a second one
      // leaves at once.
      const stop = new AbortController();
      const onSigint = () => {
        if (stop.signal.aborted) process.exit(130);
        context.stderr.write(
          '\nstopping: the PRs in their sandboxes are stopped (Ctrl-C again to leave now)\n',
        );
        stop.abort();
      };
      process.on('SIGINT', onSigint);
      ignoreBrokenPipe();
      try {
        const manifest = await mine({
          repo,
          cwd: context.cwd,
          since: flags.since,
          until: flags.until,
          out: flags.out,
          prs: flags.prs,
          name: flags.name,
          branch: flags.branch,
          image: flags.image,
          recipe:
            flags.dockerfile || flags.install.length > 0
              ? {
                  ...(flags.dockerfile ? { dockerfile: resolve(context.cwd, flags.dockerfile) } : {}),
                  ...(flags.install.length > 0 ? { install: flags.install } : {}),
                  buildNetwork: flags.buildNetwork === true,
                }
              : undefined,
          setup: flags.setup,
          command: flags.testCommand?.split(/\s+/).filter(Boolean),
          reruns: flags.reruns,
          timeoutSeconds: flags.timeout,
          minChain: flags.minChain,
          maxChain: flags.maxChain,
          fold: flags.fold,
          rules: {
            tests: flags.testGlob.length > 0 ? flags.testGlob : defaultPathRules.tests,
            config: flags.configGlob.length > 0 ? flags.configGlob : defaultPathRules.config,
            docs: flags.docsGlob.length > 0 ? flags.docsGlob : defaultPathRules.docs,
          },
          jobs: flags.jobs ?? flags.concurrency,
          cacheDir: flags.cacheDir,
          classify,
          progress: progressPrinter(context),
          signal: stop.signal,
        });
        if (flags.json) context.stdout.write(`${JSON.stringify(manifest.stats, null, 1)}\n`);
        else printSummary(manifest, context);
      } catch (error) {
        if (!(error instanceof Error) || !['MineInputError', 'GitError', 'MineStopped'].includes(error.name))
          throw error;
        context.stderr.write(`swe-steps mine: ${error.message}\n`);
        process.exitCode = { MineInputError: 2, GitError: 1, MineStopped: 130 }[error.name];
      } finally {
        process.off('SIGINT', onSigint);
        await classify?.gateway.close();
      }
    });
}
