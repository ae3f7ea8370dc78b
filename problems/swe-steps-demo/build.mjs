#!/usr/bin/env node
// Builds the SWE-STEPS demo repository: `ledger`, a small pure-Python library, as a git history
// of pull requests on `main`. Deterministic: fixed author, committer, dates and messages, so the
// same commit ids come out on every machine with the same git.
//
//   node problems/swe-steps-demo/build.mjs OUT_DIR
//
// The history (window 2025-01-01..2025-03-31 holds PRs #1–#18; the design is in README.md):
//   chain A  #1 #2 (#3 docs) #4 (#5 CI) #6 #7 #8      six PRs; #8 breaks #4's round-trip test if careless
//   #9       source change without a test change      excluded, cuts the chain
//   chain B  #10 #11 #12 #13                          #11 adds a test that passes without its fix (dropped)
//   #14      tests only                               excluded; then a direct release commit
//   chain C  #15 #16 #17
//   #18      its new test fails even with the fix     excluded by validation
//   #19      after the window
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { history } from './history.mjs';

const out = process.argv[2];
if (!out) {
  process.stderr.write('usage: node build.mjs OUT_DIR\n');
  process.exit(2);
}
const repo = resolve(out);
if (existsSync(repo) && readdirSync(repo).length > 0) {
  process.stderr.write(`${repo}: not empty; give a new or empty directory\n`);
  process.exit(2);
}
mkdirSync(repo, { recursive: true });

const people = {
  maintainer: ['Mara Quill', 'mara@ledger.example'],
  alice: ['Alice Fenn', 'alice@ledger.example'],
  bob: ['Bob Oduya', 'bob@ledger.example'],
  carol: ['Carol Lind', 'carol@ledger.example'],
  dave: ['Dave Ortiz', 'dave@ledger.example'],
  erin: ['Erin Park', 'erin@ledger.example'],
};

function git(args, { who = 'maintainer', date = '2024-12-20T09:00:00Z', input } = {}) {
  const [name, email] = people[who];
  return execFileSync('git', ['-c', 'core.autocrlf=false', '-c', 'commit.gpgsign=false', ...args], {
    cwd: repo,
    input,
    encoding: 'utf8',
    env: {
      PATH: process.env.PATH,
      HOME: repo,
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_AUTHOR_NAME: name,
      GIT_AUTHOR_EMAIL: email,
      GIT_AUTHOR_DATE: date,
      GIT_COMMITTER_NAME: people.maintainer[0],
      GIT_COMMITTER_EMAIL: people.maintainer[1],
      GIT_COMMITTER_DATE: date,
      TZ: 'UTC',
    },
  });
}

function writeFiles(files) {
  for (const [path, content] of Object.entries(files)) {
    const file = join(repo, path);
    if (content === null) rmSync(file);
    else {
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, content);
    }
  }
  git(['add', '-A']);
}

/** A minute later than `date`: a merge commit lands after the branch's own commit. */
function later(date) {
  return new Date(Date.parse(date) + 60_000).toISOString().replace('.000Z', 'Z');
}

git(['init', '--quiet', '--initial-branch=main']);
for (const change of history) {
  const meta = { who: change.who ?? 'maintainer', date: change.date };
  if (change.kind === 'commit') {
    writeFiles(change.files);
    git(['commit', '--quiet', '-F', '-'], { ...meta, input: change.message });
  } else if (change.style === 'squash') {
    writeFiles(change.files);
    git(['commit', '--quiet', '-F', '-'], {
      ...meta,
      input: `${change.title} (#${change.number})\n\n${change.body}\n`,
    });
  } else {
    const branch = `${change.who}/${change.branch}`;
    git(['checkout', '--quiet', '-b', branch]);
    writeFiles(change.files);
    git(['commit', '--quiet', '-F', '-'], { ...meta, input: `${change.title}\n\n${change.body}\n` });
    git(['checkout', '--quiet', 'main']);
    git(
      [
        'merge',
        '--quiet',
        '--no-ff',
        '-m',
        `Merge pull request #${change.number} from ${branch}`,
        '-m',
        change.title,
        branch,
      ],
      {
        date: later(change.date),
      },
    );
    git(['branch', '--quiet', '-D', branch]);
  }
}
process.stdout.write(`${repo}: ${git(['rev-parse', 'HEAD']).trim()} (${history.length} changes)\n`);
