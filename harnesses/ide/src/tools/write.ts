import { SyntaxChecker } from './syntax.js';
import { fail, splitLines, type ToolContext, type ToolResult } from './tool.js';

/** Lines only in `after` and lines only in `before`, counted as multisets. */
export function lineChanges(before: string, after: string): { added: number; removed: number } {
  const counts = new Map<string, number>();
  for (const line of splitLines(before)) counts.set(line, (counts.get(line) ?? 0) + 1);
  let added = 0;
  for (const line of splitLines(after)) {
    const left = counts.get(line) ?? 0;
    if (left > 0) counts.set(line, left - 1);
    else added++;
  }
  let removed = 0;
  for (const left of counts.values()) removed += left;
  return { added, removed };
}

/**
 * Writes `after` over `before` (undefined: a new file) unless that breaks the file's syntax: an
 * edit that leaves a parsable Python / TS / JS file unparsable is refused and nothing is written.
 * `before` is `{unread: size}` for a file too large to compare (write_file over a big one): it is
 * then taken as parsable, and the lines changed are not measured.
 */
export async function writeChecked(
  ctx: ToolContext,
  rel: string,
  before: string | undefined | { unread: number },
  after: string,
): Promise<ToolResult> {
  if (before === after)
    return fail('No effective change (new content identical to existing file)', { file: rel });
  if (ctx.options.syntaxCheck && SyntaxChecker.checks(rel)) {
    const problem = await ctx.syntax.problem(rel, after, ctx.signal);
    const wasBroken =
      problem && typeof before === 'string' && (await ctx.syntax.problem(rel, before, ctx.signal));
    if (problem && !wasBroken)
      return fail(
        `Syntax error in ${rel}: ${problem.message} at line ${problem.line}; the file was not changed`,
        {
          file: rel,
          syntax_error: true,
          syntax_line: problem.line,
          syntax_msg: problem.message,
        },
      );
  }
  await ctx.sandbox.writeFile(rel, after);
  if (typeof before === 'object') return { success: true, file: rel, created: false };
  const { added, removed } = lineChanges(before ?? '', after);
  return {
    success: true,
    file: rel,
    created: before === undefined,
    lines_added: added,
    lines_removed: removed,
  };
}
