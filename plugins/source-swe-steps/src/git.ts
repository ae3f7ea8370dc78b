import { execa } from 'execa';

/** A git command that failed; its message is git's own first complaint. */
export class GitError extends Error {
  override name = 'GitError';
}

/** The git CLI on one repository (a work tree or a bare clone), with a fixed, quiet environment. */
export class Git {
  constructor(readonly dir: string) {}

  async run(args: string[], options: { input?: string; encoding?: 'utf8' | 'buffer' } = {}): Promise<string> {
    const result = await execa('git', ['-C', this.dir, '-c', 'core.quotePath=false', ...args], {
      input: options.input,
      stripFinalNewline: false,
      maxBuffer: 1024 * 1024 * 1024,
      env: { GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C' },
      reject: false,
    });
    if (result.exitCode !== 0)
      throw new GitError(
        `git ${args[0]} (in ${this.dir}) failed: ${String(result.stderr).trim().split('\n')[0]}`,
      );
    return String(result.stdout);
  }

  /** A file's content at a commit, or undefined when the commit has no such file. */
  async show(commit: string, path: string): Promise<string | undefined> {
    const result = await execa('git', ['-C', this.dir, 'show', `${commit}:${path}`], {
      stripFinalNewline: false,
      reject: false,
      maxBuffer: 256 * 1024 * 1024,
    });
    return result.exitCode === 0 ? String(result.stdout) : undefined;
  }

  /** Writes the tree of `commit` into `dir` (which must exist), without any git metadata. */
  async extract(commit: string, dir: string, paths: string[] = []): Promise<void> {
    const archive = execa('git', ['-C', this.dir, 'archive', '--format=tar', commit, '--', ...paths], {
      encoding: 'buffer',
      maxBuffer: 2 * 1024 * 1024 * 1024,
    });
    await execa('tar', ['-x', '-C', dir], { input: (await archive).stdout });
  }
}
