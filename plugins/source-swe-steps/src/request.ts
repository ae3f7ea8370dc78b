import type { PrRecord } from './dataset.js';
import type { Definition } from './definitions.js';

const noIssue = 'No linked issue describes this change.';
const noDocs = 'This change comes with no documentation changes.';

function count(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** The sentence that says what kinds of definition changes the request holds. */
export function summarySentence(changes: PrRecord['changes']): string {
  const { added, modified, deleted } = changes;
  const parts = [
    added.length > 0
      ? `It adds ${count(added.length, 'new function or class', 'new functions or classes')}.`
      : 'It adds no new function or class.',
    modified.length > 0
      ? `It changes ${count(modified.length, 'existing function or class', 'existing functions or classes')}.`
      : 'It changes no existing function or class.',
  ];
  if (deleted.length > 0)
    parts.push(`It removes ${count(deleted.length, 'function or class', 'functions or classes')}.`);
  if (added.length + modified.length + deleted.length > 0)
    parts.push('Use the names, signatures and docstrings given below.');
  return parts.join(' ');
}

export interface RequestOptions {
  /** Name the file of each definition (the paper's "w/ Filepaths" variant); off by default. */
  filepaths?: boolean;
}

function block(definition: Definition, options: RequestOptions): string {
  const lines = [`${definition.kind === 'class' ? 'Class' : 'Function'}: ${definition.name}`];
  if (options.filepaths) lines.push(`File: ${definition.file}`);
  lines.push(`Declaration: ${definition.declaration}`);
  if (definition.docstring) lines.push(`Docstring: ${definition.docstring}`);
  return lines.join('\n');
}

function section(title: string, definitions: Definition[], options: RequestOptions): string[] {
  if (definitions.length === 0) return [];
  return [`### ${title}`, '', definitions.map((d) => block(d, options)).join('\n\n'), ''];
}

/**
 * One pull request as a change request (the structure of SWE-STEPS' request template, in our
 * words): what to do (the PR title and text), the linked issues, the documentation the PR
 * changed, a sentence on the definitions it adds, changes or removes, one block per definition
 * (name, declaration, docstring; the file too with `filepaths`), and a closing reminder. Empty
 * sections say so.
 */
export function renderRequest(pr: PrRecord, options: RequestOptions = {}): string {
  const texts = pr.all_texts;
  const description = [texts.title, texts.body].filter((text) => text.trim() !== '').join('\n\n');
  return [
    'This is a change request for the repository in your workspace: add new code, change existing code, or both.',
    '',
    '## Request',
    '',
    '### Task description',
    '',
    description,
    '',
    '### Issue description',
    '',
    texts.issues.length > 0 ? texts.issues.join('\n\n') : noIssue,
    '',
    '### Documentation changes',
    '',
    texts.docs.trim() !== '' ? texts.docs.trim() : noDocs,
    '',
    '## Definitions',
    '',
    summarySentence(pr.changes),
    '',
    ...section('Definitions to add', pr.changes.added, options),
    ...section('Definitions to change', pr.changes.modified, options),
    ...section('Definitions to remove', pr.changes.deleted, options),
    'Besides the definitions above, make whatever other changes the repository needs for the new behaviour to work.',
    '',
  ].join('\n');
}

/** The PRD of a chain: every request in chain order, each under a numbered heading. */
export function renderPrd(prs: PrRecord[], options: RequestOptions = {}): string {
  return prs
    .map(
      (pr, index) =>
        `# Change ${index + 1} of ${prs.length}: ${pr.prs.title} (PR #${pr.pr_number})\n\n${renderRequest(pr, options)}`,
    )
    .join('\n');
}
