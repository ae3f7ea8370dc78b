#!/usr/bin/env node
// Agreement of longhaul's `scbench` source (oracle harness, `tests` scorer, local or docker
// environment) with SlopCodeBench's own runner on a directory of upstream-format problems, on
// imperfect agents too. For every agent (the reference; a lagging one that leaves checkpoint k-1's
// reference at checkpoint k; a broken one whose reference exits 1 on an even number of arguments)
// and every checkpoint, it runs upstream's evaluation rebuilt step by step from its PytestRunner
// (upstream-runner.mjs) on what that agent leaves, and `longhaul run` on the same workspace, and
// compares per-category passed/total, strict, iso and core, naming every difference's cause.
//
// With `--environment docker` both sides run in the same image: longhaul picks it per problem
// (lock.json records which), and upstream's pytest runs in a container of that image.
//
// Build first: `npx turbo run build --filter=@longhaul/cli...` (the CLI runs dist). Then
//   node bench/scbench/agreement.mjs PROBLEMS_DIR [--problems a,b] [--agents reference,lagging,broken]
//     [--python /usr/bin/python3] [--environment local|docker] [--image REF] [--keep]
// Exit status 1 when any checkpoint disagrees.
import { execFile, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { parse } from 'yaml';
import { agentNames, agentWorkspaces } from './agents.mjs';
import { pytestRunner, upstreamCheckpoint } from './upstream-runner.mjs';

const here = import.meta.dirname;
const bin = resolve(here, '../../core/cli/bin/longhaul.js');
const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    problems: { type: 'string' },
    agents: { type: 'string', default: agentNames.join(',') },
    python: { type: 'string', default: '/usr/bin/python3' },
    'entry-command': { type: 'string', default: 'python3 {entry_file}' },
    environment: { type: 'string', default: 'local' },
    image: { type: 'string' },
    keep: { type: 'boolean', default: false },
  },
});
if (!['local', 'docker'].includes(values.environment)) {
  console.error(`--environment ${values.environment}: local or docker`);
  process.exit(2);
}
const docker = values.environment === 'docker';
if (positionals.length !== 1) {
  console.error(
    'usage: node bench/scbench/agreement.mjs PROBLEMS_DIR [--problems a,b] [--python PY] [--environment local|docker] [--image REF] [--keep]',
  );
  process.exit(2);
}
const root = resolve(positionals[0]);
const only = values.problems?.split(',');
const agents = values.agents.split(',');
for (const agent of agents)
  if (!agentNames.includes(agent)) {
    console.error(`--agents ${agent}: one of ${agentNames.join(', ')}`);
    process.exit(2);
  }
const work = mkdtempSync(join(tmpdir(), 'longhaul-scbench-agreement-'));

const problemDirs = (
  existsSync(join(root, 'config.yaml')) ? [root] : readdirSync(root).map((name) => join(root, name))
)
  .filter((dir) => existsSync(join(dir, 'config.yaml')))
  .filter((dir) => !only || only.includes(basename(dir)))
  .sort();

// --- longhaul: `longhaul run` with the scbench source and the oracle harness -------------------

async function longhaulProblem(dir, agent, workspaces) {
  const name = basename(dir);
  const experiment = join(work, `${agent}-${name}.yaml`);
  writeFileSync(
    experiment,
    [
      `name: agreement-${agent}-${name}`,
      `source: { id: scbench, options: { path: ${JSON.stringify(dirname(dir))}, problems: [${JSON.stringify(name)}], python: ${JSON.stringify(values.python)}, entryCommand: ${JSON.stringify(values['entry-command'])} } }`,
      `harness: { id: oracle, options: { solutions: ${JSON.stringify(dirname(workspaces))} } }`,
      `environment: ${docker && values.image ? `{ id: docker, options: { image: ${JSON.stringify(values.image)} } }` : values.environment}`,
      'script: { id: checkpoints, label: just-solve, options: { prompt: just-solve } }',
      'scorers: [tests]',
      '',
    ].join('\n'),
  );
  const runDir = join(work, 'runs', agent, name);
  const done = await promisify(execFile)('node', [bin, 'run', experiment, '--run-dir', runDir], {
    maxBuffer: 64 << 20,
  }).then(
    () => undefined,
    (error) => error,
  );
  const trial = join(runDir, 'trials', `${name}.oracle.just-solve.none.r1`, 'steps');
  if (!existsSync(trial))
    return {
      image: imageOf(runDir),
      refused: `${done?.stderr ?? done?.message ?? 'no trial'}`
        .trim()
        .split('\n')
        .filter((l) => !l.startsWith('warning:'))
        .join('\n'),
    };
  const steps = {};
  for (const step of readdirSync(trial)) {
    const file = join(trial, step, 'scores.json');
    if (!existsSync(file)) continue;
    const scores = JSON.parse(readFileSync(file, 'utf8'));
    const cases = scores.details?.tests?.strict?.cases ?? [];
    steps[scores.step] = {
      status: scores.status,
      scores: scores.scores,
      failure: scores.details?.tests?.strict?.failure,
      tests: cases.map((item) => ({
        id: item.id.split('/').slice(2).join('/'),
        category: item.category,
        passed: item.passed,
        reason: item.reason,
      })),
    };
  }
  return { steps, image: imageOf(runDir) };
}

/** The image the run's docker environment used for the problem, as lock.json records it. */
function imageOf(runDir) {
  const file = join(runDir, 'lock.json');
  if (!existsSync(file)) return undefined;
  const lock = JSON.parse(readFileSync(file, 'utf8'));
  return Object.keys(Object.values(lock.environments ?? {})[0]?.images ?? {})[0];
}

function dirname(path) {
  return path.slice(0, path.lastIndexOf('/')) || '/';
}

// --- comparison ---------------------------------------------------------------------------------

function summary(tests) {
  const all = (list) => (list.length === 0 ? null : list.every((test) => test.passed) ? 1 : 0);
  const counted = (name) => {
    const inCategory = tests.filter((test) => test.category === name);
    return `${inCategory.filter((test) => test.passed).length}/${inCategory.length}`;
  };
  return {
    categories: ['core', 'functionality', 'error', 'regression'].map(counted).join(' '),
    strict: all(tests),
    iso: all(tests.filter((test) => test.category !== 'regression')),
    core: all(tests.filter((test) => test.category === 'core')),
    passed: tests.filter((test) => test.passed).length,
    total: tests.length,
  };
}

function scbenchImage() {
  return spawnSync('node', [bin, 'images', 'ref', '--profile', 'scbench'], {
    encoding: 'utf8',
  }).stdout.trim();
}

const images = new Map();
const tallies = [];

/**
 * A refusal in a few words: what is missing (packages and programs without the file that asks for
 * them), a data file, or the message's first line.
 */
function refusalCause(message) {
  const text = message.replace(/\s\([^()]*:\d+(:\d+)?\)/g, '');
  const debian = /needs (.+?), which Debian does not package/.exec(text);
  if (debian) return `not in Debian: ${debian[1]}`;
  const lacks = /\(task \S+ needs (.+?), which the base image lacks\) is missing/.exec(text);
  if (lacks) return `image not built (needs ${lacks[1]})`;
  const missing = /cannot run [^:]+: missing (.+)/.exec(text);
  if (missing) return `missing ${missing[1].split('\n')[0]}`;
  if (/which is not there|data file/.test(text)) return 'a data file missing';
  return text
    .split('\n')[0]
    .replace(/^.*?: /, '')
    .slice(0, 80);
}

/** counts by key, as `key: n, key: n` in the order first seen. */
function byCause(keys) {
  const counts = new Map();
  for (const key of keys) counts.set(key, (counts.get(key) ?? 0) + 1);
  return [...counts].map(([key, n]) => `${n} ${key}`).join('; ');
}
const show = (value) => (value === null || value === undefined ? '-' : String(value));
const rows = [];
const differences = [];
for (const agent of agents)
  for (const problemDir of problemDirs) {
    const problem = basename(problemDir);
    const config = parse(readFileSync(join(problemDir, 'config.yaml'), 'utf8'));
    const names = Object.entries(config.checkpoints ?? {})
      .sort(([, a], [, b]) => a.order - b.order)
      .map(([name]) => name);
    // What this agent leaves at each checkpoint, one folder each; the problem keeps its references.
    const workspaces = agentWorkspaces(problemDir, config, names, agent, work);
    const ours = await longhaulProblem(problemDir, agent, workspaces);
    // Upstream runs where longhaul ran; for a problem longhaul refused, in the image given, else the
    // scbench profile's, where every Debian-packaged dependency is.
    const image = docker ? (values.image ?? ours.image ?? scbenchImage()) : undefined;
    if (docker) images.set(problem, ours.image ?? `${image} (refused by longhaul; upstream only)`);
    const run = pytestRunner({ image, pluginDir: here });
    for (const [index, name] of names.entries()) {
      if (!existsSync(join(problemDir, 'solutions', name))) continue;
      const upstream = upstreamCheckpoint({
        problemDir,
        config,
        names,
        index,
        submission: join(workspaces, name),
        work: join(work, agent),
        python: values.python,
        entryCommand: values['entry-command'],
        run,
      });
      upstream.broken = upstream.infrastructureFailure;
      const theirs = { ...summary(upstream.tests), ...upstream.verdicts };
      if (upstream.broken) Object.assign(theirs, { strict: 0, iso: 0, core: 0 });
      const step = ours.steps?.[name];
      const mine = step ? { ...summary(step.tests), ...pick(step.scores) } : undefined;
      // The same tests too: ids (pytest's node ids, class included) each once, on both sides.
      const ids = (tests) => JSON.stringify(tests.map((test) => test.id).sort());
      const same =
        mine !== undefined &&
        ['strict', 'iso', 'core', 'passed', 'total', 'categories'].every(
          (key) => theirs[key] === mine[key],
        ) &&
        ids(upstream.tests) === ids(step.tests);
      const designed = same ? undefined : byDesign(upstream, step, theirs, mine);
      rows.push([
        agent,
        problem,
        name,
        ...['strict', 'iso', 'core'].map((key) => `${show(theirs[key])}/${show(mine?.[key])}`),
        `${theirs.passed}/${theirs.total}`,
        mine ? `${mine.passed}/${mine.total}` : '-',
        theirs.categories,
        mine?.categories ?? '-',
        same ? 'yes' : designed ? 'by design' : 'NO',
      ]);
      const tally = {
        agent,
        problem,
        name,
        refused: ours.refused ? refusalCause(ours.refused) : undefined,
        kinds: [],
        designed: designed?.kind,
      };
      tallies.push(tally);
      if (same) continue;
      if (designed) {
        differences.push({ agent, problem, name, causes: [`${designed.kind} (by design): ${designed.why}`] });
        continue;
      }
      const causes = [];
      const kind = (name) => tally.kinds.includes(name) || tally.kinds.push(name);
      if (ours.refused)
        causes.push(
          `longhaul refused the problem before the run:\n      ${ours.refused.replaceAll('\n', '\n      ')}`,
        );
      else if (!step) {
        kind('longhaul stopped earlier');
        causes.push('longhaul has no scores for this step (the trial stopped earlier)');
      } else if (step.status !== 'ok') {
        kind(`longhaul's step ${step.status}`);
        causes.push(`longhaul's step ended ${step.status}`);
      }
      if (upstream.broken && !ours.refused) kind('upstream failed as a whole');
      if (upstream.broken)
        causes.push(
          `upstream's pytest run failed as a whole:\n      ${upstream.output.replaceAll('\n', '\n      ')}`,
        );
      if (step) {
        const seen = new Set();
        for (const test of step.tests)
          if (seen.size === seen.add(test.id).size) {
            kind('a test counted twice by longhaul');
            causes.push(`${test.id}: longhaul counts it more than once`);
          }
        const byId = new Map(step.tests.map((test) => [test.id, test]));
        for (const test of upstream.tests) {
          const other = byId.get(test.id);
          byId.delete(test.id);
          if (!other) {
            kind('a test only upstream ran');
            causes.push(`${test.id}: only upstream ran it (${test.category}, ${test.reason})`);
          } else if (other.category !== test.category) {
            kind('a category');
            causes.push(`${test.id}: upstream's category ${test.category}, longhaul's ${other.category}`);
          } else if (other.passed !== test.passed) {
            kind('an outcome');
            causes.push(
              `${test.id}: upstream ${test.reason}, longhaul ${other.passed ? 'passed' : `failed (${other.reason ?? 'failed'})`}`,
            );
          }
        }
        for (const [id, test] of byId) {
          kind('a test only longhaul ran');
          causes.push(`${id}: only longhaul ran it (${test.category})`);
        }
        if (tally.kinds.length === 0) kind('scores (strict, iso, core or counts)');
      }
      differences.push({ agent, problem, name, causes });
    }
  }

/**
 * A difference the README documents as deliberate, with its kind and why, or undefined. Both come
 * from a program under test that kills the test runner (its parent), which upstream's pytest,
 * run as the program's own user, does not survive and which leaves it no report (pytest-json-report
 * writes it when the session finishes): upstream counts no test and fails the checkpoint.
 * - Where longhaul's pytest was killed too (local): it fails the checkpoint the same, and keeps
 *   the tests that ran before the kill (its report is written test by test). The verdicts agree.
 * - Where longhaul's pytest outlived the attempt (docker: pytest runs as root, the program under
 *   test as the agent, uid 1000, which cannot signal it): longhaul's run goes on to the end.
 */
function byDesign(upstream, step, theirs, mine) {
  if (!upstream.killed || step?.status !== 'ok') return undefined;
  const ran = `${mine.passed}/${mine.total}`;
  if (/^pytest ended before its session finished/.test(step.failure ?? '')) {
    const verdictsAgree = ['strict', 'iso', 'core'].every((key) => theirs[key] === mine[key]);
    if (!verdictsAgree) return undefined;
    return {
      kind: 'pytest killed, the tests before kept',
      why: `the program killed pytest on both sides (upstream: ${upstream.killed}; longhaul: ${step.failure.split('\n')[0].replace(/:$/, '')}); upstream's report dies with it, so it counts no test; longhaul keeps the ${ran} that ran before and fails the checkpoint the same`,
    };
  }
  if (step.failure === undefined)
    return {
      kind: "isolation: the program cannot kill longhaul's pytest",
      why: `the program killed upstream's pytest (${upstream.killed}), which runs as the program's user; longhaul runs the program as the agent (uid 1000) and pytest as root, so the kill fails (EPERM) and the run goes on: ${ran} passed`,
    };
  return undefined;
}

function pick(scores) {
  const passed = ['core', 'functionality', 'error', 'regression'].reduce(
    (sum, c) => sum + (scores[`tests.${c}.passed`] ?? 0),
    0,
  );
  const total = ['core', 'functionality', 'error', 'regression'].reduce(
    (sum, c) => sum + (scores[`tests.${c}.total`] ?? 0),
    0,
  );
  return {
    strict: scores['tests.strict'] ?? null,
    iso: scores['tests.iso'] ?? null,
    core: scores['tests.core'] ?? null,
    passed,
    total,
  };
}

const header = [
  'agent',
  'problem',
  'checkpoint',
  'strict up/lh',
  'iso up/lh',
  'core up/lh',
  'passed/total up',
  'passed/total lh',
  'c f e r up',
  'c f e r lh',
  'agree',
];
const widths = header.map((title, column) =>
  Math.max(title.length, ...rows.map((row) => String(row[column]).length)),
);
const line = (cells) =>
  cells
    .map((cell, column) => String(cell).padEnd(widths[column]))
    .join('  ')
    .trimEnd();
console.log(line(header));
console.log(line(widths.map((width) => '-'.repeat(width))));
for (const row of rows) console.log(line(row));
const agreeing = rows.filter((row) => row.at(-1) === 'yes').length;
const designedRows = rows.filter((row) => row.at(-1) === 'by design').length;
console.log(
  `\nup: upstream's pytest invocation run directly; lh: longhaul's scbench source. c f e r: passed/total per category (core, functionality, error, regression).\n${agreeing} of ${rows.length} checkpoints agree (strict, iso, core, passed/total, categories)${designedRows ? `; ${designedRows} differ by design (named below; README: Differences by design)` : ''}.`,
);
for (const { agent, problem, name, causes } of differences) {
  console.log(`\n${agent} ${problem} ${name}:`);
  for (const cause of causes) console.log(`  - ${cause}`);
}
if (docker) {
  console.log('\nimages (docker environment):');
  for (const [problem, image] of images) console.log(`  ${problem}: ${image}`);
}
console.log('');
for (const agent of agents) {
  const mine = tallies.filter((tally) => tally.agent === agent);
  const ran = mine.filter((tally) => tally.refused === undefined);
  const designed = ran.filter((tally) => tally.designed !== undefined);
  const differ = ran.filter((tally) => tally.designed === undefined && tally.kinds.length > 0);
  const refused = mine.filter((tally) => tally.refused !== undefined);
  console.log(
    `summary (${values.environment}, ${agent}): ${mine.length} checkpoints; both ran ${ran.length}, agree ${ran.length - differ.length - designed.length}, differ by design ${designed.length}${designed.length ? ` (${byCause(designed.map((tally) => tally.designed))})` : ''}, differ ${differ.length}${differ.length ? ` (${byCause(differ.flatMap((tally) => tally.kinds))})` : ''}; refused ${refused.length}${refused.length ? ` (${byCause(refused.map((tally) => tally.refused))})` : ''}`,
  );
}
if (values.keep) console.log(`work directory kept: ${work}`);
else rmSync(work, { recursive: true, force: true });
// Differences by design (README: "Differences by design") do not fail the bench; any other does.
process.exit(
  tallies.some(
    (tally) => tally.refused !== undefined || (tally.designed === undefined && tally.kinds.length > 0),
  )
    ? 1
    : 0,
);
