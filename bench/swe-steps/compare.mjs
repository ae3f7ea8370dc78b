// Whether two SWE-STEPS datasets of the same repository and window hold the same content: the
// same PRs, each with the same status, exclusion reason, F2P, P2P and dropped tests, and the
// same chains. Timings, cache counts and paths are left out. Prints the differences; exits 1
// when there is any.
//
//   node bench/swe-steps/compare.mjs DATASET_A DATASET_B
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const [a, b] = process.argv.slice(2);
if (!a || !b) throw new Error('usage: compare.mjs DATASET_A DATASET_B (directories holding dataset.json)');
const load = (dir) => JSON.parse(readFileSync(join(dir, 'dataset.json'), 'utf8'));
const left = load(a);
const right = load(b);

/** What a PR's validation decided, as comparable text. */
const verdict = (pr) => ({
  status: pr.status,
  excluded: pr.excluded?.reason ?? null,
  excludedDetail: pr.excluded?.detail ?? null,
  fail_to_pass: pr.fail_to_pass,
  pass_to_pass: pr.pass_to_pass,
  dropped_tests: pr.dropped_tests,
  test_modules: pr.test_modules,
  support_files: pr.support_files,
  changes: pr.changes,
  fix_patch: pr.fix_patch,
  test_patch: pr.test_patch,
});

const differences = [];
const byCommit = (manifest) => new Map(manifest.prs.map((pr) => [pr.commit_id, pr]));
const l = byCommit(left);
const r = byCommit(right);
for (const commit of new Set([...l.keys(), ...r.keys()])) {
  const x = l.get(commit);
  const y = r.get(commit);
  if (!x || !y) {
    differences.push(`PR #${(x ?? y).pr_number} (${commit.slice(0, 12)}) only in ${x ? a : b}`);
    continue;
  }
  const vx = verdict(x);
  const vy = verdict(y);
  for (const key of Object.keys(vx))
    if (JSON.stringify(vx[key]) !== JSON.stringify(vy[key]))
      differences.push(
        `PR #${x.pr_number} ${key}: ${JSON.stringify(vx[key]).slice(0, 200)} ≠ ${JSON.stringify(vy[key]).slice(0, 200)}`,
      );
}
if (JSON.stringify(left.chains) !== JSON.stringify(right.chains))
  differences.push(`chains: ${JSON.stringify(left.chains)} ≠ ${JSON.stringify(right.chains)}`);
for (const key of ['commits', 'prsSeen', 'validated', 'testsDropped', 'chains', 'prsInChains'])
  if (left.stats[key] !== right.stats[key])
    differences.push(`stats.${key}: ${left.stats[key]} ≠ ${right.stats[key]}`);
if (JSON.stringify(left.stats.excluded) !== JSON.stringify(right.stats.excluded))
  differences.push(
    `stats.excluded: ${JSON.stringify(left.stats.excluded)} ≠ ${JSON.stringify(right.stats.excluded)}`,
  );

const validated = left.prs.filter((pr) => pr.status === 'validated');
const count = (key) => validated.reduce((sum, pr) => sum + pr[key].length, 0);
process.stdout.write(
  `${left.repository.name}: ${left.prs.length} PRs, ${validated.length} validated, ${count('fail_to_pass')} F2P, ${count('pass_to_pass')} P2P, ${left.chains.length} chains\n`,
);
if (differences.length === 0) process.stdout.write('identical: every PR, test list and chain\n');
else {
  for (const line of differences) process.stdout.write(`${line}\n`);
  process.stdout.write(`${differences.length} differences\n`);
  process.exitCode = 1;
}
