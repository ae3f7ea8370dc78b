import type { IssueList } from './issues.js';

/** The placeholders a spec.md may use; `{{entrypoint}}` is how the agent's program is run. */
const placeholderPattern = /\{\{\s*([A-Za-z_][\w-]*)\s*\}\}/g;

export function renderSpec(
  text: string,
  file: string,
  values: Record<string, string>,
  issues: IssueList,
): string {
  return text.replace(placeholderPattern, (match, name: string, offset: number) => {
    const value = values[name];
    if (value !== undefined) return value;
    const before = text.slice(0, offset).split('\n');
    issues.add({
      file,
      line: before.length,
      column: before.at(-1)!.length + 1,
      message: `unknown placeholder '${match}'; the only placeholder is {{entrypoint}}`,
    });
    return match;
  });
}
