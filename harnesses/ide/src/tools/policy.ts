import { posix } from 'node:path';
import picomatch from 'picomatch';

/** A tool refusal the model sees as a result, not a fault of the run. */
export class ToolRefusal extends Error {
  constructor(
    message: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

/**
 * Where tools may act: inside the workspace, never on protected paths (grading assets). Paths
 * come relative to the workspace or absolute inside it; what tools get back is workspace-relative.
 */
export class PathPolicy {
  private readonly isProtected: (path: string) => boolean;

  constructor(
    private readonly workspace: string,
    readonly patterns: readonly string[],
  ) {
    this.isProtected = patterns.length > 0 ? picomatch([...patterns], { dot: true }) : () => false;
  }

  /** The workspace-relative form of `path` ('.' for the root); refuses escapes and protected paths. */
  resolve(path: string | undefined): string {
    const raw = (path ?? '.').trim() || '.';
    const root = posix.normalize(this.workspace);
    let rel: string;
    if (posix.isAbsolute(raw)) {
      const abs = posix.normalize(raw);
      if (abs !== root && !abs.startsWith(`${root.replace(/\/$/, '')}/`))
        throw new ToolRefusal(`${raw} is outside the workspace (${root}); paths are relative to it`);
      rel = posix.relative(root, abs) || '.';
    } else {
      rel = posix.normalize(raw);
    }
    rel = rel.replace(/\/+$/, '') || '.';
    if (rel === '..' || rel.startsWith('../'))
      throw new ToolRefusal(`${raw} is outside the workspace; paths are relative to it`);
    if (this.blocked(rel))
      throw new ToolRefusal(`Access denied: ${rel} is a protected grading file`, {
        blocked_by_security: true,
      });
    return rel;
  }

  /** Whether a workspace-relative path (or a directory holding it) is protected. */
  blocked(rel: string): boolean {
    if (rel === '.') return false;
    if (this.isProtected(rel)) return true;
    const parts = rel.split('/');
    for (let i = 1; i < parts.length; i++)
      if (this.isProtected(`${parts.slice(0, i).join('/')}/x`)) return true;
    return false;
  }

  /**
   * A protected path a shell command names, if any (a command cannot be confined by path). Each
   * shell word (and each part after an `=`) is read as a path from the workspace root: a path into
   * a protected folder (`tasks/t1`, `tasks/`), or a protected file's name anywhere
   * (`run_tests.sh`, `x/task_tests.py`), is refused. A bare word naming a protected folder
   * (`tasks`) is refused only when that folder is there (`exists`): otherwise it is just a word,
   * as in `echo "my tasks"`. Words that merely contain a protected name (`tasks_list.txt`) pass.
   */
  async blockedInCommand(
    command: string,
    exists: (rel: string) => Promise<boolean>,
  ): Promise<string | undefined> {
    for (const word of shellWords(command)) {
      for (const part of word.split('=')) {
        const trimmed = part.replace(/^\.\//, '');
        if (!trimmed || trimmed.startsWith('-')) continue;
        let rel = posix.normalize(trimmed).replace(/\/+$/, '');
        if (posix.isAbsolute(rel)) {
          const root = posix.normalize(this.workspace).replace(/\/$/, '');
          if (!rel.startsWith(`${root}/`)) continue;
          rel = rel.slice(root.length + 1);
        }
        if (rel === '.' || rel === '..' || rel.startsWith('../')) continue;
        const name = posix.basename(rel);
        // A protected file's name (run_tests.sh, task_tests.py) is refused wherever it is.
        if (this.isProtected(`x/${name}`) && !this.isProtected(`x/${name}/x`)) return word;
        if (!this.blocked(rel)) continue;
        // A path into a protected folder, or a bare folder name that is there.
        if (trimmed.includes('/') || (await exists(rel))) return word;
      }
    }
    return undefined;
  }
}

/**
 * The words of a shell command as the shell would split them: quotes and backslashes taken away,
 * operators (`; | & < > ( )`) between words. Variables and globs are left as written.
 */
export function shellWords(command: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  for (let i = 0; i < command.length; i++) {
    const char = command[i]!;
    if (char === "'") {
      const end = command.indexOf("'", i + 1);
      word = (word ?? '') + command.slice(i + 1, end < 0 ? undefined : end);
      i = end < 0 ? command.length : end;
    } else if (char === '"') {
      word ??= '';
      for (i++; i < command.length && command[i] !== '"'; i++)
        word += command[i] === '\\' && i + 1 < command.length ? command[++i] : command[i];
    } else if (char === '\\') word = (word ?? '') + (command[++i] ?? '');
    else if (/[\s;|&<>()`]/.test(char)) {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else word = (word ?? '') + char;
  }
  if (word !== undefined) words.push(word);
  return words;
}
