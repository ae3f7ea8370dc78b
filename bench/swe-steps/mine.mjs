// SWE-STEPS mining: the time per PR seen and per PR validated, and where it goes (git, the
// environment, the first test runs without and with the fix, the reruns), for the demo
// repository and, with --repo, a repository of your own. Each is mined from an empty cache into
// a fresh dataset directory. Needs dockerd, the base image (`longhaul images build`) and a build
// of the source (`npx turbo run build --filter=@longhaul/source-swe-steps`).
//
//   node bench/swe-steps/mine.mjs [--repo PATH --since DATE --until DATE] [--jobs N] [--reruns N]
//     [--fold POLICY] [--max-chain N] [--setup CMD] [--out DIR] [--skip-demo] [--json]
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { mine } from '@longhaul/source-swe-steps';

const { values } = parseArgs({
  options: {
    repo: { type: 'string' },
    since: { type: 'string' },
    until: { type: 'string' },
    jobs: { type: 'string' },
    reruns: { type: 'string' },
    fold: { type: 'string' },
    'max-chain': { type: 'string' },
    setup: { type: 'string', multiple: true, default: [] },
    out: { type: 'string' },
    'skip-demo': { type: 'boolean', default: false },
    json: { type: 'boolean', default: false },
  },
});
if (values.repo && (!values.since || !values.until))
  throw new Error('--repo needs --since and --until (the window to mine)');
// A dataset directory already there holds a cache: the figures would be of a resume.
// With --out, the datasets are kept: the repository's there, the demo's beside it (`DIR-demo`).
const kept = values.out ? { repo: resolve(values.out), demo: `${resolve(values.out)}-demo` } : undefined;
for (const dir of Object.values(kept ?? {}))
  if (existsSync(dir)) throw new Error(`${dir}: already exists; the bench mines from an empty cache`);
const root = resolve(import.meta.dirname, '../..');
const demo = join(root, 'problems/swe-steps-demo');
const scratch = await mkdtemp(join(tmpdir(), 'longhaul-swe-steps-bench-'));
const number = (text) => (text === undefined ? undefined : Number(text));
const common = {
  ...(values.jobs ? { jobs: number(values.jobs) } : {}),
  ...(values.reruns ? { reruns: number(values.reruns) } : {}),
  ...(values.fold ? { fold: values.fold } : {}),
  ...(values['max-chain'] ? { maxChain: number(values['max-chain']) } : {}),
  ...(values.setup.length > 0 ? { setup: values.setup } : {}),
};

/** Mines one repository from an empty cache and sums where the time went. */
async function measure(label, options) {
  const phases = { git: 0, environment: 0, before: 0, after: 0, reruns: 0 };
  let history;
  let validatedNow = 0;
  let prelude = 0;
  const started = performance.now();
  const manifest = await mine({
    ...options,
    progress: (event) => {
      if (event.phase === 'history') {
        history = event;
        prelude = (performance.now() - started) / 1000 - event.seconds;
      }
      if (event.phase === 'pr')
        process.stderr.write(`${label}: [${event.done}/${event.total}] PR #${event.pr} ${event.outcome}\n`);
      if (event.phase === 'pr' && event.timing) {
        validatedNow++;
        for (const phase of Object.keys(phases)) phases[phase] += event.timing[phase];
      }
    },
  });
  const wall = (performance.now() - started) / 1000;
  return {
    label,
    commits: manifest.stats.commits,
    prsSeen: manifest.stats.prsSeen,
    inSandbox: validatedNow,
    validated: manifest.stats.validated,
    chains: manifest.stats.chains,
    wall,
    prelude,
    history: history?.seconds ?? 0,
    phases,
    out: options.out,
  };
}

const results = [];
if (!values['skip-demo']) {
  const repo = join(scratch, 'ledger');
  execFileSync(process.execPath, [join(demo, 'build.mjs'), repo], { stdio: 'pipe' });
  results.push(
    await measure('swe-steps-demo', {
      repo,
      since: '2025-01-01',
      until: '2025-03-31',
      prs: join(demo, 'prs.json'),
      out: kept?.demo ?? join(scratch, 'demo-dataset'),
      ...common,
    }),
  );
}
if (values.repo)
  results.push(
    await measure(values.repo, {
      repo: resolve(values.repo),
      since: values.since,
      until: values.until,
      out: kept?.repo ?? join(scratch, 'dataset'),
      ...common,
    }),
  );

if (values.json) process.stdout.write(`${JSON.stringify(results, null, 1)}\n`);
else {
  const f = (seconds) => (Number.isFinite(seconds) ? seconds.toFixed(1) : '–');
  const per = (total, count) => (count > 0 ? f(total / count) : '–');
  const table = (rows) => {
    const widths = rows[0].map((_, i) => Math.max(...rows.map((row) => String(row[i]).length)));
    return rows
      .map((row) => row.map((cell, i) => String(cell)[i === 0 ? 'padEnd' : 'padStart'](widths[i])).join('  '))
      .join('\n');
  };
  process.stdout.write(
    `load average ${loadavg()
      .map((load) => load.toFixed(1))
      .join(' ')} at the end; jobs ${values.jobs ?? 'default (cores)'}\n\n`,
  );
  for (const r of results) {
    const lanes = Object.values(r.phases).reduce((sum, value) => sum + value, 0);
    process.stdout.write(
      `${r.label}: ${r.commits} commits, ${r.prsSeen} PRs seen, ${r.inSandbox} validated in a sandbox (${r.validated} kept), ${r.chains} chains; ${f(r.wall)} s wall\n`,
    );
    process.stdout.write(
      `${table([
        ['', 'seconds', 'per PR seen', 'per PR validated'],
        ['wall clock', f(r.wall), per(r.wall, r.prsSeen), per(r.wall, r.inSandbox)],
        ['  image check and recipe', f(r.prelude), per(r.prelude, r.prsSeen), '–'],
        ['  git: history, PR descriptions', f(r.history), per(r.history, r.prsSeen), '–'],
        ['sandbox time, summed over lanes', f(lanes), per(lanes, r.prsSeen), per(lanes, r.inSandbox)],
        ['  git: trees and test files', f(r.phases.git), '', per(r.phases.git, r.inSandbox)],
        ['  environment build', f(r.phases.environment), '', per(r.phases.environment, r.inSandbox)],
        ['  tests before the fix', f(r.phases.before), '', per(r.phases.before, r.inSandbox)],
        ['  tests after the fix', f(r.phases.after), '', per(r.phases.after, r.inSandbox)],
        ['  reruns', f(r.phases.reruns), '', per(r.phases.reruns, r.inSandbox)],
      ])}\n`,
    );
    process.stdout.write(kept ? `dataset: ${r.out}\n\n` : '\n');
  }
}
await rm(scratch, { recursive: true, force: true });
