// SlopCodeBench's own evaluation of one checkpoint, rebuilt step by step from upstream's
// `PytestRunner.run` (src/slop_code/evaluation/pytest_runner.py at SprocketLab/slop-code-bench
// 203534aadf24c47d79ccb463d084c2dc99ff5b1c) and its counting (src/slop_code/evaluation/report.py,
// src/slop_code/metrics/checkpoint/extractors.py `get_evaluation_metrics`,
// src/slop_code/metrics/summary/aggregators.py `compute_solve_rates`). Each step names the method
// it follows; README.md lists them. Only what Debian lacks is stood in for: `uvx --with=…` by the
// interpreter given, pytest-json-report by agreement_report.py.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';

/** `common/constants.py` WORKSPACE_TEST_DIR: where the runner puts the tests, in the workspace. */
export const testsDirName = '.evaluation_tests';

/** `PytestRunner.BUILTIN_MARKERS`, in their order, with the descriptions pytest.ini gets. */
const builtinMarkers = {
  error: 'error-handling / edge-case tests',
  functionality: 'non-core / nice-to-have tests',
  regression: 'regression tests from prior checkpoints',
};

/**
 * `_copy_tests_from_problem`: nothing when the workspace already has the tests folder (the
 * submission's own wins); else the top of tests/: conftest.py always, a `test_*.py` only when it is
 * a test file of the checkpoints up to this one (all of them with include_prior_tests, which
 * defaults to true, else this one's), every other file; each subfolder whole but __pycache__.
 */
function copyTests(problemDir, workspace, names, index, includePrior) {
  const target = join(workspace, testsDirName);
  if (existsSync(target)) return;
  const wanted = new Set(
    (includePrior ? names.slice(0, index + 1) : [names[index]]).map((name) => `test_${name}.py`),
  );
  mkdirSync(target, { recursive: true });
  const source = join(problemDir, 'tests');
  for (const item of readdirSync(source)) {
    const from = join(source, item);
    if (statSync(from).isDirectory()) {
      if (item !== '__pycache__') cpSync(from, join(target, item), { recursive: true });
      continue;
    }
    const isTestFile = item.startsWith('test_') && item.endsWith('.py') && item !== 'conftest.py';
    if (!isTestFile || wanted.has(item)) cpSync(from, join(target, item));
  }
}

/**
 * `_generate_pytest_ini`: pytest.ini at the workspace's root (it wins over the submission's
 * pyproject.toml or setup.cfg there, as pytest reads pytest.ini first), `testpaths = tests` and
 * the markers: the built-in ones, then the config's custom ones not among them with their
 * descriptions.
 */
function writePytestIni(workspace, customMarkers) {
  const lines = Object.entries(builtinMarkers).map(([name, text]) => `    ${name}: ${text}`);
  for (const [name, marker] of Object.entries(customMarkers))
    if (!(name in builtinMarkers)) lines.push(`    ${name}: ${marker.description ?? ''}`);
  writeFileSync(
    join(workspace, 'pytest.ini'),
    `[pytest]\ntestpaths = tests\nmarkers =\n${lines.join('\n')}\n`,
  );
}

/**
 * `_infer_checkpoint_from_file`: the checkpoint a test belongs to, from its file path
 * (`test_(…).py`), else the checkpoint evaluated.
 */
function checkpointOf(file, current) {
  return /test_([^/]+)\.py/.exec(file)?.[1] ?? current;
}

/**
 * `_determine_group_type`, rules in order: a test of an earlier checkpoint is regression; then the
 * `error` marker; then `regression`; then the first of its markers the config maps to a group;
 * then `functionality`; else core. The markers are its keywords that are known markers
 * (`_convert_pytest_report_test_to_result`): node names, parametrize ids and function attributes
 * count as much as `@pytest.mark`s.
 */
function groupOf(checkpoint, current, markers, customMarkers) {
  if (checkpoint !== current) return 'regression';
  if (markers.includes('error')) return 'error';
  if (markers.includes('regression')) return 'regression';
  for (const marker of markers)
    if (customMarkers[marker]) return String(customMarkers[marker].group).toLowerCase();
  if (markers.includes('functionality')) return 'functionality';
  return 'core';
}

/** `status_map` of `_convert_pytest_report_test_to_result`: xfailed is skipped, xpassed passed. */
const statusOf = (outcome) =>
  ({
    passed: 'passed',
    failed: 'failed',
    skipped: 'skipped',
    error: 'error',
    xfailed: 'skipped',
    xpassed: 'passed',
  })[outcome] ?? 'error';

/**
 * Runs one checkpoint the way upstream's runner does, on `submission` (a directory: the agent's
 * workspace), and gives each test's id, category and status, whether the run was an
 * infrastructure failure, and the verdicts upstream's metrics draw from the counts.
 */
export function upstreamCheckpoint({
  problemDir,
  config,
  names,
  index,
  submission,
  work,
  python,
  entryCommand,
  run,
}) {
  const name = names[index];
  const checkpoint = config.checkpoints[name] ?? {};
  const workspace = join(work, 'upstream', basename(problemDir), name);
  mkdirSync(workspace, { recursive: true });
  // `Session.from_environment_spec(base_dir=submission, static_assets=…)`: the submission, then the static assets.
  if (existsSync(submission)) cpSync(submission, workspace, { recursive: true });
  const assets = Object.entries(config.static_assets ?? {});
  for (const [, asset] of assets)
    cpSync(join(problemDir, asset.path), join(workspace, asset.path), { recursive: true });
  copyTests(problemDir, workspace, names, index, checkpoint.include_prior_tests !== false);
  // `materialize_static_assets_for_tests`: each asset in <tests>/assets/<name>; the environment
  // names them relative to the workspace, the command's working directory.
  const assetsDir = join(testsDirName, 'assets');
  for (const [assetName, asset] of assets)
    cpSync(join(problemDir, asset.path), join(workspace, assetsDir, assetName), { recursive: true });
  const custom = config.markers ?? {};
  writePytestIni(workspace, custom);
  // `_build_pytest_command`: `--timeout=int(timeout)` only when the checkpoint has one (its own,
  // else the problem's: `ProblemConfig.from_yaml` merges them), then entrypoint, checkpoint, the
  // reports, -vv and the tests folder. The folder goes first here: pytest 7 on Python 3.11 (Debian
  // 12) pre-parses an unknown option whose value has a space (`--entrypoint=python3 x.py`) as a
  // path, and then loads no conftest; the order changes nothing else.
  const timeout = checkpoint.timeout ?? config.timeout;
  const entryFile = /\.[A-Za-z0-9]+$/.test(config.entry_file) ? config.entry_file : `${config.entry_file}.py`;
  const report = join(workspace, '.agreement.jsonl');
  const args = [
    '-m',
    'pytest',
    testsDirName,
    ...(timeout === undefined || timeout === null ? [] : [`--timeout=${Math.trunc(Number(timeout))}`]),
    `--entrypoint=${entryCommand.replaceAll('{entry_file}', entryFile)}`,
    `--checkpoint=${name}`,
    '-p',
    'agreement_report',
    '-vv',
  ];
  // `run`: the environment's variables with the checkpoint's `env` (merged with the problem's),
  // then the assets' (`SCBENCH_ASSETS_DIR`, `SCBENCH_ASSET_<NAME>`), relative. No time limit on
  // the whole run: upstream's `runtime.execute(…, None)` leaves it to pytest-timeout per test.
  const env = {
    ...(config.env ?? {}),
    ...(checkpoint.env ?? {}),
    AGREEMENT_REPORT: report,
    ...(assets.length > 0 ? { SCBENCH_ASSETS_DIR: assetsDir } : {}),
    ...Object.fromEntries(
      assets.map(([assetName]) => [`SCBENCH_ASSET_${assetName.toUpperCase()}`, join(assetsDir, assetName)]),
    ),
  };
  const result = run(python, args, { cwd: workspace, env });
  const lines = existsSync(report)
    ? readFileSync(report, 'utf8')
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line))
    : [];
  const exit = result.status ?? lines.find((line) => 'exitstatus' in line)?.exitstatus;
  const known = new Set([...Object.keys(builtinMarkers), ...Object.keys(custom)]);
  const tests = lines
    .filter((line) => 'nodeid' in line)
    .map((line) => {
      const [file, ...rest] = line.nodeid.split('::');
      const markers = (line.keywords ?? []).filter((keyword) => known.has(keyword));
      const status = statusOf(line.outcome);
      return {
        id: `${basename(file)}::${rest.join('::')}`,
        category: groupOf(checkpointOf(file, name), name, markers, custom),
        passed: status === 'passed',
        reason: status,
      };
    });
  // STEP 7 of `run` (`_check_collection_line`): an exit of 2 to 5, or no "collected N items" line
  // with N > 0 in its output, is an infrastructure failure, which `passes_policy` fails whole.
  const collected = Number(/collected (\d+) items?/.exec(result.stdout ?? '')?.[1] ?? 0);
  const infrastructureFailure = [2, 3, 4, 5].includes(exit) || collected === 0;
  // pytest-json-report writes its report when the session finishes: a pytest killed before (by a
  // signal here, or 128 + the signal from the shell in a container) leaves none, so no test.
  const finished = lines.some((line) => 'exitstatus' in line);
  const killedBy = result.signal ?? (result.status > 128 ? `signal ${result.status - 128}` : undefined);
  return {
    tests,
    exit,
    infrastructureFailure,
    killed: !finished && killedBy !== undefined ? `pytest killed by ${killedBy}` : undefined,
    verdicts: verdicts(tests),
    output: `${result.stdout ?? ''}\n${result.stderr ?? ''}`.trim().split('\n').slice(-6).join('\n'),
  };
}

/**
 * The checkpoint's verdicts as upstream's metrics draw them from the counts alone
 * (`get_evaluation_metrics`, `compute_solve_rates`): strict when every test passed, iso when
 * every one but regression did, core when every core test did. With no test at all (pytest
 * killed, nothing collected) upstream has no rate; the checkpoint is not solved: 0.
 */
function verdicts(tests) {
  const all = (list) => (list.length > 0 && list.every((test) => test.passed) ? 1 : 0);
  return {
    strict: all(tests),
    iso: all(tests.filter((test) => test.category !== 'regression')),
    core: all(tests.filter((test) => test.category === 'core')),
  };
}

/**
 * Runs pytest on the host, or in a container of `image` with the workspace at its own path. In a
 * container pytest runs as upstream's docker runtime runs it: a child of a shell, never PID 1
 * (upstream `docker exec`s `bash -l HANDLE_ENTRY.sh` into a container whose PID 1 is `sleep
 * infinity`, `execution/docker_runtime/runtime.py`), and as the same user as the program under
 * test. A PID 1 would ignore the SIGKILL a program sends it from inside the container, and a
 * program that kills its parent would then leave upstream's pytest alive where upstream's dies.
 */
export function pytestRunner({ image, pluginDir }) {
  return (python, args, { cwd, env }) => {
    if (image === undefined)
      return spawnSync(python, args, {
        cwd,
        encoding: 'utf8',
        env: { ...process.env, PYTHONPATH: pluginDir, PYTHONDONTWRITEBYTECODE: '1', ...env },
        maxBuffer: 64 << 20,
      });
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
        `${pluginDir}:${pluginDir}:ro`,
        '-w',
        cwd,
        ...Object.entries({ PYTHONPATH: pluginDir, PYTHONDONTWRITEBYTECODE: '1', ...env }).flatMap(
          ([key, value]) => ['-e', `${key}=${value}`],
        ),
        image,
        '/bin/sh',
        '-c',
        // Not `exec`: the shell stays PID 1 and pytest its child, and its status is pytest's.
        'python3 "$@"; exit $?',
        'sh',
        ...args,
      ],
      { encoding: 'utf8', maxBuffer: 64 << 20 },
    );
  };
}
