/** A first-parent commit recognised as a merged pull request. */
export interface DetectedPr {
  number: number;
  title: string;
  body: string;
  style: 'squash' | 'merge';
}

const squash = /^(?<title>.*\S)\s+\(#(?<number>\d+)\)\s*$/;
const merge = /^Merge pull request #(?<number>\d+) from \S+/;

/**
 * Which pull request a first-parent commit merged, from its message: a squash merge titled
 * `Title (#N)`, or a merge commit `Merge pull request #N from owner/branch` whose body's first
 * paragraph is the PR title (as GitHub writes it). Anything else is not a PR.
 */
export function detectPr(message: string): DetectedPr | undefined {
  const [subject = '', ...rest] = message.replace(/\r\n/g, '\n').split('\n');
  const body = rest.join('\n').trim();
  const merged = merge.exec(subject);
  if (merged?.groups) {
    const [title = '', ...more] = body.split('\n');
    return {
      number: Number(merged.groups.number),
      title: title.trim() || subject.trim(),
      body: more.join('\n').trim(),
      style: 'merge',
    };
  }
  const squashed = squash.exec(subject);
  if (squashed?.groups)
    return { number: Number(squashed.groups.number), title: squashed.groups.title!, body, style: 'squash' };
  return undefined;
}
