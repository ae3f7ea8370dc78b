import type { SolutionFile } from './solution.js';

/** Hex digits of sha256 the listing keeps: 64 bits tell files apart and keep long listings short. */
export const hashLength = 16;

/**
 * The workspace listing the oracle asks for with the agent's shell tool: the working directory
 * and a sha256 prefix of every file outside hidden directories, caches and virtualenvs. Agents
 * cut long command output (Claude Code at 30,000 characters), so lines are kept short. The
 * markers are assembled by printf so the command text itself never contains them (some agents
 * echo the command).
 */
export const listingScript =
  `printf '__LH_%s__%s\\n' CWD "$(pwd)"; ` +
  `find . -mindepth 1 \\( -name '.*' -o -name __pycache__ -o -name node_modules -o -name venv \\) -prune ` +
  `-o -type f -print0 | xargs -0 -r sha256sum | cut -c1-${hashLength},65-; printf '__LH_%s__\\n' END`;

/** Text that marks a tool call as the oracle's listing. */
export const listingTag = `__LH_%s__`;

export interface Listing {
  cwd: string;
  /** sha256 prefix (`hashLength` hex digits) by `/`-separated relative path. */
  files: Map<string, string>;
}

/** Reads the listing back from a tool result; undefined when it is missing or was cut short. */
export function parseListing(output: string): Listing | undefined {
  const lines = output.replace(/\r\n/g, '\n').split('\n');
  const start = lines.findIndex((line) => line.includes('__LH_CWD__'));
  const end = lines.findIndex((line) => line.includes('__LH_END__'));
  if (start < 0 || end < start) return undefined;
  const cwd = lines[start]!.slice(lines[start]!.indexOf('__LH_CWD__') + '__LH_CWD__'.length).trim();
  const files = new Map<string, string>();
  for (const line of lines.slice(start + 1, end)) {
    const match = /^([0-9a-f]{16}) [ *]\.\/(.+)$/.exec(line);
    if (match) files.set(match[2]!, match[1]!);
  }
  return { cwd, files };
}

/** Hidden paths and caches the listing skips; never treated as stale. */
const skipped = new Set(['__pycache__', 'node_modules', 'venv']);

export function isIgnored(path: string): boolean {
  return path.split('/').some((part) => part.startsWith('.') || skipped.has(part));
}

/** Whether a listed hash is the file's. */
export function listedAs(listed: string | undefined, file: SolutionFile): boolean {
  return listed === file.sha256.slice(0, hashLength);
}
