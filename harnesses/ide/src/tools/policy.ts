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

  /** A protected name a shell command mentions, if any (a command cannot be confined by path). */
  blockedInCommand(command: string): string | undefined {
    const words = command.split(/[\s;|&<>()'"`=]+/).filter(Boolean);
    for (const word of words) {
      const rel = posix.normalize(word.replace(/^\.\//, ''));
      if (rel && !rel.startsWith('-') && this.blocked(rel)) return word;
      const base = posix.basename(rel);
      if (base && this.blocked(base)) return word;
    }
    return undefined;
  }
}
