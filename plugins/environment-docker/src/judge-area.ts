import { posix } from 'node:path';
import { Readable } from 'node:stream';
import type { ExecOptions, ExecResult, JudgeArea } from '@longhaul/core';
import { ClassifiedError } from '@longhaul/core';
import type Docker from 'dockerode';
import { pack } from 'tar-stream';
import { agentUser, readArchive } from './archive.js';

/** Where the judge area is in every container: beside the workspace, never in it. */
export const judgePath = '/judge';

/** Shell-quotes one word for `sh -c`. */
function quote(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * `/judge/.confine`, which `confine` names (so no word of its argv has a blank, and a test that
 * splits its entrypoint at blanks gets it whole): run by the judge as root, it gives the program
 * under test umask 022, the agent's HOME when the judge left root's (where the agent can write
 * nothing), and the agent's ids through setpriv.
 */
const helper = `#!/bin/sh
umask 022
if [ "$HOME" = /root ]; then export HOME=${agentUser.home} USER=${agentUser.name} LOGNAME=${agentUser.name}; fi
exec setpriv --reuid=${agentUser.uid} --regid=${agentUser.gid} --clear-groups -- "$@"
`;

/**
 * The judge area of a container: `/judge`, made by root (mode 0700) the first time it is used,
 * so the agent (uid 1000) can neither list, read nor change anything there. Folders stay 0700;
 * `share` opens a path (and the way to it) for reading. The judge's commands run as root; the
 * program under test goes back to the agent through setpriv (util-linux, in every Debian image),
 * and as the agent it cannot signal root's processes either.
 */
export class DockerJudgeArea implements JudgeArea {
  readonly path = judgePath;
  readonly guarded = true;
  private made: Promise<void> | undefined;
  /** Folders this area made, so that a later archive does not reset their modes. */
  private readonly folders = new Set<string>();

  constructor(
    private readonly container: Docker.Container,
    private readonly exec: (argv: string[], options: ExecOptions) => Promise<ExecResult>,
  ) {}

  /** A path relative to the area; refuses anything outside it. */
  private relative(path: string): string {
    const rel = posix.normalize(path).replace(/\/+$/, '');
    if (rel === '' || rel === '.' || rel === '..' || rel.startsWith('../') || posix.isAbsolute(rel))
      throw new ClassifiedError('sandbox', `${path} is not a path inside the judge area`);
    return rel;
  }

  private async root(script: string, what: string): Promise<void> {
    const result = await this.exec(['sh', '-c', script], { user: 'root', timeoutMs: 120_000 });
    if (result.exitCode !== 0)
      throw new ClassifiedError(
        'sandbox',
        `${what} failed (exit ${result.exitCode}): ${result.stderr.trim()}`,
      );
  }

  /**
   * Empties `/judge` (an image may hold one), makes it root's alone, with its helper; once. An
   * image without setpriv is refused here: every program under test would fail to start, which
   * would read as a wrong answer.
   */
  private ready(): Promise<void> {
    this.made ??= this.root(
      `command -v setpriv >/dev/null || { echo 'the image has no setpriv (util-linux), which the judge area needs to run the program under test as the agent' >&2; exit 3; } && rm -rf ${judgePath} && mkdir -m 0700 ${judgePath} && chown 0:0 ${judgePath} && printf '%s' ${quote(helper)} > ${judgePath}/.confine && chmod 0700 ${judgePath}/.confine`,
      'making the judge area',
    );
    return this.made;
  }

  async writeFile(path: string, data: string | Uint8Array, options: { mode?: number } = {}): Promise<void> {
    const rel = this.relative(path);
    await this.ready();
    const archive = pack();
    const owner = { uid: 0, gid: 0, uname: 'root', gname: 'root', mtime: new Date() };
    const parts = rel.split('/');
    for (let i = 1; i < parts.length; i++) {
      const folder = parts.slice(0, i).join('/');
      if (this.folders.has(folder)) continue;
      this.folders.add(folder);
      archive.entry({ ...owner, name: folder, type: 'directory', mode: 0o700 });
    }
    const bytes =
      typeof data === 'string'
        ? Buffer.from(data)
        : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    // Root's bits only: once `share` opens the way through /judge, a file's own mode is what keeps
    // the agent from reading it by name.
    archive.entry({ ...owner, name: rel, type: 'file', mode: (options.mode ?? 0o644) & 0o700 }, bytes);
    archive.finalize();
    try {
      await this.container.putArchive(Readable.from(archive, { objectMode: false }), { path: judgePath });
    } catch (error) {
      throw new ClassifiedError(
        'sandbox',
        `writing ${rel} to the judge area failed: ${(error as Error).message}`,
        {
          cause: error,
        },
      );
    }
  }

  async readFile(path: string): Promise<Uint8Array> {
    const rel = this.relative(path);
    await this.ready();
    let entries: Awaited<ReturnType<typeof readArchive>>;
    try {
      entries = await readArchive(
        await this.container.getArchive({ path: `${judgePath}/${rel}` }),
        rel,
        () => true,
      );
    } catch (error) {
      if ((error as { statusCode?: number }).statusCode === 404)
        throw Object.assign(new Error(`no such file in the judge area: ${rel}`), { code: 'ENOENT' });
      throw new ClassifiedError(
        'sandbox',
        `reading ${rel} from the judge area failed: ${(error as Error).message}`,
        {
          cause: error,
        },
      );
    }
    const entry = entries.find((item) => item.path === rel);
    // A link there is not followed: whoever made it, the judge reads only what it finds in place.
    if (entry?.type !== 'file') throw new Error(`${rel} in the judge area is not a file`);
    return new Uint8Array(entry.data ?? Buffer.alloc(0));
  }

  async share(path: string): Promise<void> {
    const rel = this.relative(path);
    await this.ready();
    const parts = rel.split('/');
    const ways = [
      judgePath,
      ...parts.slice(0, -1).map((_, i) => `${judgePath}/${parts.slice(0, i + 1).join('/')}`),
    ];
    const target = `${judgePath}/${rel}`;
    await this.root(
      `test -e ${quote(target)} && ! test -L ${quote(target)} && chmod o+x ${ways.map(quote).join(' ')} && chmod -R a+rX ${quote(target)}`,
      `sharing ${rel} of the judge area`,
    );
  }

  /** Names the helper, which the area holds once anything was written to it or shared. */
  confine(argv: readonly string[]): string[] {
    return [`${judgePath}/.confine`, ...argv];
  }
}
