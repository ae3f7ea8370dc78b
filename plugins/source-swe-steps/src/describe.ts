import type { BlobReader } from './blobs.js';
import type { ExclusionReason, PrRecord } from './dataset.js';
import {
  compareDefinitions,
  type DefinitionChanges,
  definitionsIn,
  definitionsSupported,
  type Found,
} from './definitions.js';
import type { Git } from './git.js';
import { absent, type ChangedFile, type Commit, splitPatch } from './history.js';
import { type FileKind, isTestModule } from './path-rules.js';
import type { DetectedPr } from './pr-detect.js';
import type { PrText } from './prs-file.js';

/** What describing a PR needs: the repository, its blobs, and what the files are. */
export interface Describer {
  git: Git;
  blobs: BlobReader;
  kindOf: (path: string) => FileKind;
  /** Definitions already read, by path and blob id: a file changed by consecutive PRs is parsed once. */
  definitions: Map<string, Map<string, Found>>;
}

/** How many files' definitions stay in memory (the next PRs mostly change the same files). */
const remembered = 512;

async function definitionsOf(describer: Describer, path: string, blob: string): Promise<Map<string, Found>> {
  if (absent(blob)) return new Map();
  const key = `${path}\0${blob}`;
  const known = describer.definitions.get(key);
  if (known) {
    describer.definitions.delete(key);
    describer.definitions.set(key, known);
    return known;
  }
  const content = await describer.blobs.read(blob);
  const found =
    content === undefined ? new Map<string, Found>() : definitionsIn(path, content.toString('utf8'));
  describer.definitions.set(key, found);
  if (describer.definitions.size > remembered)
    describer.definitions.delete(describer.definitions.keys().next().value!);
  return found;
}

function addedLines(patch: string, limit: number): string {
  const out: string[] = [];
  let file = '';
  for (const line of patch.split('\n')) {
    if (line.startsWith('+++ ')) {
      file = line.replace(/^\+\+\+ b\//, '');
      out.push(`${file}:`);
    } else if (line.startsWith('+') && !line.startsWith('+++')) out.push(line.slice(1));
  }
  const text = out.join('\n');
  return text.length > limit ? `${text.slice(0, limit)}\n[…]` : text;
}

/** Why a PR cannot be a step, from the kinds of the files it changed alone (no sandbox needed). */
export function excludedBeforeRunning(kinds: FileKind[]): ExclusionReason | undefined {
  if (kinds.every((kind) => kind === 'docs')) return 'docs-only';
  if (kinds.every((kind) => kind === 'docs' || kind === 'config')) return 'config-only';
  if (!kinds.includes('test')) return 'no-test-change';
  if (!kinds.includes('source')) return 'no-source-change';
  return undefined;
}

/**
 * The PR record of one first-parent commit (the paper's Table 4) and the test modules to run,
 * from git alone: its files, patches, definitions and texts, and an exclusion when the kinds of
 * its files already rule it out (docs only, config only, no test change, no source change).
 */
export async function describePr(
  describer: Describer,
  commit: Commit,
  changedFiles: ChangedFile[],
  detected: DetectedPr,
  text: PrText | undefined,
): Promise<{ record: PrRecord; runnable: string[] }> {
  const { git, kindOf } = describer;
  const changed = changedFiles.map((file) => file.path);
  const kinds = new Map(changed.map((path) => [path, kindOf(path)] as const));
  const filesOf = (wanted: (kind: FileKind) => boolean) => changed.filter((path) => wanted(kinds.get(path)!));
  const testFiles = filesOf((kind) => kind === 'test');
  // One diff of the whole commit, cut per file; `git diff -- <paths>` per kind if it cannot be.
  const sections =
    changed.length === 0
      ? new Map<string, string>()
      : splitPatch(await git.run(['diff', '--binary', '--no-renames', commit.parent, commit.sha]), changed);
  const diff = async (paths: string[]) => {
    if (paths.length === 0) return '';
    if (sections) return paths.map((path) => sections.get(path)!).join('');
    return git.run(['diff', '--binary', '--no-renames', commit.parent, commit.sha, '--', ...paths]);
  };
  const changes: DefinitionChanges = { added: [], modified: [], deleted: [] };
  for (const file of changedFiles) {
    if (kinds.get(file.path) !== 'source' || !definitionsSupported(file.path)) continue;
    const found = compareDefinitions(
      await definitionsOf(describer, file.path, file.before),
      await definitionsOf(describer, file.path, file.after),
    );
    changes.added.push(...found.added);
    changes.modified.push(...found.modified);
    changes.deleted.push(...found.deleted);
  }
  const issues = text?.issues ?? [];
  const title = text?.title ?? detected.title;
  const body = text?.body ?? detected.body;
  // A test file the PR deletes, or a submodule, is nothing to run or apply beside the tests.
  const present = new Set(
    changedFiles.filter((file) => file.status !== 'D' && file.mode !== '160000').map((file) => file.path),
  );
  const runnable = testFiles.filter((path) => present.has(path) && isTestModule(path));
  const support = testFiles.filter((path) => present.has(path) && !isTestModule(path));
  const record: PrRecord = {
    commit_id: commit.sha,
    parent_id: commit.parent,
    pr_number: detected.number,
    prs: { number: detected.number, title, body, style: detected.style, issues },
    merged_at: commit.date,
    changed_files: changed,
    test_files: testFiles,
    changes,
    pass_to_pass: [],
    fail_to_pass: [],
    fix_patch: await diff(filesOf((kind) => kind !== 'test')),
    test_patch: await diff(testFiles),
    all_texts: {
      title,
      body,
      issues: issues.map((issue) => `#${issue.number} ${issue.title}\n\n${issue.body}`.trim()),
      docs: addedLines(await diff(filesOf((kind) => kind === 'docs')), 4000),
    },
    status: 'excluded',
    dropped_tests: [],
  };
  record.test_modules = runnable;
  record.support_files = support;
  const early = excludedBeforeRunning([...kinds.values()]);
  if (early) record.excluded = { reason: early, detail: `changed: ${changed.join(', ')}` };
  else if (runnable.length === 0)
    record.excluded = { reason: 'no-test-change', detail: 'no test module is added or changed' };
  return { record, runnable };
}
