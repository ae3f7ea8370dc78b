#!/usr/bin/env node
// Agreement of longhaul's `scbench` source (oracle harness, `tests` scorer, local or docker environment) with
// SlopCodeBench's own runner on a directory of upstream-format problems. For every checkpoint that
// has a reference solution, it runs upstream's pytest invocation directly on that solution (tests
// copied as upstream copies them, pytest.ini with the markers, --entrypoint, --checkpoint,
// --timeout, assets in tests/assets/<name>) and categorizes the results by upstream's rule; then it
// runs `longhaul run` on the same problem and reads each step's scores. It prints one row per
// checkpoint (strict, iso, core, passed/total, both ways) and every difference with its cause.
//
// With `--environment docker` both sides run in the same image: longhaul picks it per problem
// (lock.json records which), and upstream's pytest runs in a container of that image.
//
// Build first: `npx turbo run build --filter=@longhaul/cli...` (the CLI runs dist). Then
//   node bench/scbench/agreement.mjs PROBLEMS_DIR [--problems a,b] [--python /usr/bin/python3]
//     [--environment local|docker] [--image REF] [--keep]
// Exit status 1 when any checkpoint disagrees.
import { execFile, spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { parse } from 'yaml';

const here = import.meta.dirname;
const bin = resolve(here, '../../core/cli/bin/longhaul.js');
const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    problems: { type: 'string' },
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
const work = mkdtempSync(join(tmpdir(), 'longhaul-scbench-agreement-'));

const problemDirs = (
  existsSync(join(root, 'config.yaml')) ? [root] : readdirSync(root).map((name) => join(root, name))
)
  .filter((dir) => existsSync(join(dir, 'config.yaml')))
  .filter((dir) => !only || only.includes(basename(dir)))
  .sort();

// --- upstream: pytest run directly, results categorized by SlopCodeBench's rule -----------------

const builtinMarkers = {
  error: 'error-handling / edge-case tests',
  functionality: 'non-core / nice-to-have tests',
  regression: 'regression tests from prior checkpoints',
};

/** Upstream's rule, in its order: an earlier checkpoint's file, error, regression, custom, functionality, core. */
function category(test, checkpoint, customMarkers) {
  if (test.file !== `test_${checkpoint}.py`) return 'regression';
  if (test.markers.includes('error')) return 'error';
  if (test.markers.includes('regression')) return 'regression';
  for (const marker of test.markers)
    if (customMarkers[marker]) return customMarkers[marker].group.toLowerCase();
  if (test.markers.includes('functionality')) return 'functionality';
  return 'core';
}

/** Runs upstream's pytest command on the host, or in a container of `image` (the same paths mounted). */
function runPytest(args, { cwd, env }, image) {
  if (image === undefined)
    return spawnSync(values.python, args, { cwd, encoding: 'utf8', env: { ...process.env, ...env } });
  return spawnSync(
    'docker',
    [
      'run',
      '--rm',
      '--network',
      'none',
      '-v',
      `${cwd}:${cwd}`,
      '-v',
      `${here}:${here}:ro`,
      '-w',
      cwd,
      ...Object.entries(env).flatMap(([key, value]) => ['-e', `${key}=${value}`]),
      image,
      'python3',
      ...args,
    ],
    { encoding: 'utf8' },
  );
}

function upstreamCheckpoint(dir, config, names, index, image) {
  const name = names[index];
  const checkpoint = config.checkpoints[name];
  const entryFile = /\.[A-Za-z0-9]+$/.test(config.entry_file) ? config.entry_file : `${config.entry_file}.py`;
  const workspace = join(work, 'upstream', basename(dir), name);
  mkdirSync(workspace, { recursive: true });
  cpSync(join(dir, 'solutions', name), workspace, { recursive: true });
  const assets = Object.entries(config.static_assets ?? {});
  for (const [, asset] of assets)
    cpSync(join(dir, asset.path), join(workspace, asset.path), { recursive: true });
  const included = new Set(
    names
      .slice(0, index + 1)
      .filter((_, position) => position === index || checkpoint.include_prior_tests !== false),
  );
  cpSync(join(dir, 'tests'), join(workspace, 'tests'), {
    recursive: true,
    filter: (source) => {
      const match = /(?:^|\/)test_(.+)\.py$/.exec(source);
      return !match || !names.includes(match[1]) || included.has(match[1]);
    },
  });
  for (const [assetName, asset] of assets)
    cpSync(join(dir, asset.path), join(workspace, 'tests', 'assets', assetName), { recursive: true });
  const custom = config.markers ?? {};
  const markers = {
    ...builtinMarkers,
    ...Object.fromEntries(Object.entries(custom).map(([k, v]) => [k, v.description ?? k])),
  };
  writeFileSync(
    join(workspace, 'pytest.ini'),
    `[pytest]\nmarkers =\n${Object.entries(markers)
      .map(([k, v]) => `    ${k}: ${v}`)
      .join('\n')}\n`,
  );
  const report = join(workspace, '.agreement.jsonl');
  const files = [...included].map((item) => `tests/test_${item}.py`);
  const timeout = checkpoint.timeout ?? config.timeout ?? 30;
  const assetsDir = join(workspace, 'tests', 'assets');
  const result = runPytest(
    [
      '-m',
      'pytest',
      ...files,
      `--entrypoint=${values['entry-command'].replace('{entry_file}', entryFile)}`,
      `--checkpoint=${name}`,
      `--timeout=${timeout}`,
      '-p',
      'agreement_report',
      '-q',
    ],
    {
      cwd: workspace,
      env: {
        PYTHONPATH: here,
        PYTHONDONTWRITEBYTECODE: '1',
        AGREEMENT_REPORT: report,
        SCBENCH_CHECKPOINT: name,
        ...(assets.length > 0 ? { SCBENCH_ASSETS_DIR: assetsDir } : {}),
        ...Object.fromEntries(
          assets.map(([assetName]) => [
            `SCBENCH_ASSET_${assetName.toUpperCase()}`,
            join(assetsDir, assetName),
          ]),
        ),
      },
    },
    image,
  );
  const lines = existsSync(report)
    ? readFileSync(report, 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line))
    : [];
  const exit = lines.find((line) => 'exitstatus' in line)?.exitstatus ?? result.status;
  const tests = lines
    .filter((line) => 'nodeid' in line && line.file)
    .map((line) => ({
      id: `${line.file}::${line.nodeid.split('::').slice(1).join('::')}`,
      category: category(line, name, custom),
      passed: line.outcome === 'passed',
      // Collected but never run (pytest stopped at a collection error): an error, as upstream counts it.
      reason: line.outcome === 'not-run' ? 'error (collected, never run)' : line.outcome,
    }));
  // Upstream: a collection error (exit 2) or no report is a failed checkpoint.
  const broken = exit === 2 || exit === 3 || exit === 4 || (tests.length === 0 && exit !== 5);
  return {
    tests,
    broken,
    output: broken ? `${result.stdout}\n${result.stderr}`.trim().split('\n').slice(-5).join('\n') : undefined,
  };
}

// --- longhaul: `longhaul run` with the scbench source and the oracle harness -------------------

async function longhaulProblem(dir) {
  const name = basename(dir);
  const experiment = join(work, `${name}.yaml`);
  writeFileSync(
    experiment,
    [
      `name: agreement-${name}`,
      `source: { id: scbench, options: { path: ${JSON.stringify(dirname(dir))}, problems: [${JSON.stringify(name)}], python: ${JSON.stringify(values.python)}, entryCommand: ${JSON.stringify(values['entry-command'])} } }`,
      'harness: oracle',
      `environment: ${docker && values.image ? `{ id: docker, options: { image: ${JSON.stringify(values.image)} } }` : values.environment}`,
      'script: { id: checkpoints, label: just-solve, options: { prompt: just-solve } }',
      'scorers: [tests]',
      '',
    ].join('\n'),
  );
  const runDir = join(work, 'runs', name);
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
  const count = (name) => tests.filter((test) => test.category === name).length;
  return {
    categories: ['core', 'functionality', 'error', 'regression'].map(count).join('/'),
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
for (const dir of problemDirs) {
  const problem = basename(dir);
  const config = parse(readFileSync(join(dir, 'config.yaml'), 'utf8'));
  const names = Object.entries(config.checkpoints ?? {})
    .sort(([, a], [, b]) => a.order - b.order)
    .map(([name]) => name);
  const ours = await longhaulProblem(dir);
  // Upstream runs where longhaul ran; for a problem longhaul refused, in the image given, else the
  // scbench profile's, where every Debian-packaged dependency is.
  const image = docker ? (values.image ?? ours.image ?? scbenchImage()) : undefined;
  if (docker) images.set(problem, ours.image ?? `${image} (refused by longhaul; upstream only)`);
  for (const [index, name] of names.entries()) {
    if (!existsSync(join(dir, 'solutions', name))) continue;
    const upstream = upstreamCheckpoint(dir, config, names, index, image);
    const theirs = summary(upstream.tests);
    if (upstream.broken) Object.assign(theirs, { strict: 0, iso: 0, core: 0 });
    const step = ours.steps?.[name];
    const mine = step ? { ...summary(step.tests), ...pick(step.scores) } : undefined;
    const same =
      mine !== undefined &&
      ['strict', 'iso', 'core', 'passed', 'total', 'categories'].every((key) => theirs[key] === mine[key]);
    rows.push([
      problem,
      name,
      ...['strict', 'iso', 'core'].map((key) => `${show(theirs[key])}/${show(mine?.[key])}`),
      `${theirs.passed}/${theirs.total}`,
      mine ? `${mine.passed}/${mine.total}` : '-',
      theirs.categories,
      mine?.categories ?? '-',
      same ? 'yes' : 'NO',
    ]);
    const tally = {
      problem,
      name,
      refused: ours.refused ? refusalCause(ours.refused) : undefined,
      kinds: [],
    };
    tallies.push(tally);
    if (same) continue;
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
    differences.push({ problem, name, causes });
  }
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
  'problem',
  'checkpoint',
  'strict up/lh',
  'iso up/lh',
  'core up/lh',
  'passed/total up',
  'passed/total lh',
  'c/f/e/r up',
  'c/f/e/r lh',
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
console.log(
  `\nup: upstream's pytest invocation run directly; lh: longhaul's scbench source. c/f/e/r: tests per category (core/functionality/error/regression).\n${agreeing} of ${rows.length} checkpoints agree (strict, iso, core, passed/total, categories).`,
);
for (const { problem, name, causes } of differences) {
  console.log(`\n${problem} ${name}:`);
  for (const cause of causes) console.log(`  - ${cause}`);
}
if (docker) {
  console.log('\nimages (docker environment):');
  for (const [problem, image] of images) console.log(`  ${problem}: ${image}`);
}
const ran = tallies.filter((tally) => tally.refused === undefined);
const differ = ran.filter((tally) => tally.kinds.length > 0);
const refused = tallies.filter((tally) => tally.refused !== undefined);
console.log(
  `\nsummary (${values.environment}): ${tallies.length} checkpoints; both ran ${ran.length}, agree ${ran.length - differ.length}, differ ${differ.length}${differ.length ? ` (${byCause(differ.flatMap((tally) => tally.kinds))})` : ''}; refused ${refused.length}${refused.length ? ` (${byCause(refused.map((tally) => tally.refused))})` : ''}`,
);
if (values.keep) console.log(`work directory kept: ${work}`);
else rmSync(work, { recursive: true, force: true });
process.exit(differences.length > 0 ? 1 : 0);
