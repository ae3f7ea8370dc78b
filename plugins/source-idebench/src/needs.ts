import { posix } from 'node:path';

/**
 * Where a dataset's Dockerfile puts the repository: its last WORKDIR (relative ones resolved
 * against the one before). Upstream's harness works in /app whatever the Dockerfile says
 * (agent_utils.py passes base_path "/app"), so that is the default.
 */
export function workdirOf(dockerfile: string | undefined): string {
  let dir = '/';
  let seen = false;
  for (const line of (dockerfile ?? '').split('\n')) {
    const match = /^\s*WORKDIR\s+("?)([^"\s]+)\1\s*$/i.exec(line);
    if (!match) continue;
    dir = posix.resolve(dir, match[2]!);
    seen = true;
  }
  return seen ? dir : '/app';
}

/** Words at a command's position that are the shell's own, not programs it runs. */
const shellOwn = new Set(
  `if then else elif fi for while until do done case esac in function select time { } [[ ]] [ ! . : source
alias bg bind break builtin cd command compgen complete continue declare dirs disown echo enable eval
exec exit export false fc fg getopts hash help history jobs kill let local logout mapfile popd printf
pushd pwd read readarray readonly return set shift shopt suspend test times trap true type typeset
ulimit umask unalias unset wait env nohup sudo`.split(/\s+/),
);

/** Words after which the next word is in a command's position again. */
const separators =
  /;|&&|\|\||\||\$\(|`|\(|\)|\bthen\b|\bdo\b|\belse\b|\belif\b|\bexec\b|\btime\b|\bnohup\b|\benv\b|\bcommand\b/g;

export interface RunnerNeeds {
  /** Programs the runner starts, in order of first mention. */
  commands: string[];
  /** Python distributions it runs as modules (`python3 -m pytest`). */
  pythonPackages: string[];
  /** `run_tests.sh:7` by program or distribution name: where it is started first. */
  origins: Record<string, string>;
}

/**
 * What a test runner script runs, read from its text: the first word of each command that is not
 * the shell's own (an assignment, a keyword, a builtin), a variable or a path into the dataset;
 * and `python -m <module>` as that module's distribution (pytest). Grading needs these, whatever
 * the task's tags say the project is written in.
 */
export function runnerNeeds(script: string, file: string): RunnerNeeds {
  const needs: RunnerNeeds = { commands: [], pythonPackages: [], origins: {} };
  const add = (list: string[], name: string, line: number) => {
    if (list.includes(name)) return;
    list.push(name);
    needs.origins[name] ??= `${file}:${line}`;
  };
  script.split('\n').forEach((text, index) => {
    const line = index + 1;
    if (index === 0 && text.startsWith('#!')) return;
    // Quoted text runs nothing (a double-quoted one only through $( or a backtick).
    const code = text
      .replace(/'[^']*'/g, "''")
      .replace(/"[^"$`]*"/g, '""')
      .replace(/(^|\s)#.*$/, '');
    for (const segment of code.split(separators)) {
      const words = segment.trim().split(/\s+/).filter(Boolean);
      let at = 0;
      while (at < words.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[at]!)) at++;
      const program = words[at]?.replace(/^["']|["']$/g, '');
      if (!program || shellOwn.has(program) || /[$/"'`=<>(){}\\]/.test(program)) continue;
      if (!/^[A-Za-z0-9._+-]+$/.test(program)) continue;
      add(needs.commands, program, line);
      const module = /^python[0-9.]*$/.test(program) ? words.slice(at + 1).join(' ') : '';
      const run = /(?:^|\s)-m\s+([A-Za-z0-9_.]+)/.exec(module);
      if (run?.[1] === 'pytest') add(needs.pythonPackages, 'pytest', line);
    }
  });
  return needs;
}

/**
 * The first place a grading file names the workspace by its absolute path (`/app`, `/app/...`),
 * as `file:line`: such a task cannot run with its workspace anywhere else.
 */
export function workspaceMention(
  files: readonly { path: string; text: string }[],
  workspace: string,
): string | undefined {
  const escaped = workspace.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const pattern = new RegExp(`(^|[^\\w./-])${escaped}(?=[/"'\`\\s:)]|$)`);
  for (const file of files) {
    const lines = file.text.split('\n');
    const index = lines.findIndex((line) => pattern.test(line));
    if (index >= 0) return `${file.path}:${index + 1}`;
  }
  return undefined;
}
