import type { Requirements } from '../contracts/task.js';

/** Names go into a shell script between single quotes, so only these characters are allowed. */
const safeName = /^[A-Za-z0-9][A-Za-z0-9._+-]*$/;

// No single quote inside: the program is passed to `python3 -c '…'`.
const pythonProgram = [
  'import sys',
  'print("python %d.%d.%d" % sys.version_info[:3])',
  'from importlib import metadata',
  'for name in sys.argv[1:]:',
  '    try:',
  '        metadata.distribution(name)',
  '    except metadata.PackageNotFoundError:',
  '        print("package-missing " + name)',
].join('\n');

/** `3.12` → [3, 12]; undefined when it is not a dotted version. */
export function parseVersion(text: string): number[] | undefined {
  const match = /^\s*(?:>=|~=|==)?\s*(\d+(?:\.\d+)*)\s*$/.exec(text);
  return match ? match[1]!.split('.').map(Number) : undefined;
}

/** Whether version `have` is `need` or later (`3.13` is at least `3.12`; `3.12.1` is at least `3.12`). */
export function versionAtLeast(have: string, need: string): boolean {
  return atLeast(parseVersion(have) ?? [], parseVersion(need) ?? []);
}

function atLeast(have: number[], need: number[]): boolean {
  for (let i = 0; i < need.length; i++) {
    const a = have[i] ?? 0;
    const b = need[i]!;
    if (a !== b) return a > b;
  }
  return true;
}

/** Why `requires` cannot be checked as written (a name the probe cannot carry, a version it cannot read). */
export function requirementsIssues(requires: Requirements): string[] {
  const issues: string[] = [];
  if (requires.python !== undefined && parseVersion(requires.python) === undefined)
    issues.push(`python '${requires.python}' is not a version like 3.12`);
  for (const name of [...(requires.pythonPackages ?? []), ...(requires.commands ?? [])])
    if (!safeName.test(name)) issues.push(`'${name}' is not a package or program name`);
  return issues;
}

/** True when there is nothing to check. */
export function requiresNothing(requires: Requirements | undefined): boolean {
  return (
    requires === undefined ||
    (requires.python === undefined &&
      (requires.pythonPackages ?? []).length === 0 &&
      (requires.commands ?? []).length === 0)
  );
}

/**
 * The argv of one command that reports what a host or image lacks of `requires` (`sh -c`, so it
 * runs anywhere with a POSIX shell); `missingRequirements` reads its output. Environments run it
 * where the task's programs would run: the host's PATH for local, the task's image for docker.
 */
export function requirementsProbe(requires: Requirements): string[] {
  const problems = requirementsIssues(requires);
  if (problems.length > 0) throw new Error(problems.join('; '));
  const quote = (names: readonly string[]) => names.map((name) => `'${name}'`).join(' ');
  const lines: string[] = [];
  const commands = requires.commands ?? [];
  if (commands.length > 0)
    lines.push(
      `for c in ${quote(commands)}; do command -v "$c" >/dev/null 2>&1 || echo "command-missing $c"; done`,
    );
  const packages = requires.pythonPackages ?? [];
  if (requires.python !== undefined || packages.length > 0)
    lines.push(
      `if command -v python3 >/dev/null 2>&1; then python3 -c '${pythonProgram}' ${quote(packages)} || echo python-failed; else echo python-missing; fi`,
    );
  return ['sh', '-c', lines.join('\n') || 'true'];
}

/** What the probe's output says is missing, one phrase each (empty: everything is there). */
export function missingRequirements(requires: Requirements, output: string): string[] {
  const lines = output.split('\n').map((line) => line.trim());
  const from = (key: string) => (requires.origins?.[key] ? ` (${requires.origins[key]})` : '');
  const missing: string[] = [];
  const need = requires.python;
  const python = lines.find((line) => line.startsWith('python '))?.slice('python '.length);
  if (lines.includes('python-missing'))
    missing.push(`python3${need ? ` >= ${need}` : ''}${from('python')}, not on PATH`);
  else if (lines.includes('python-failed') && python === undefined) missing.push('a working python3');
  else if (need !== undefined && python !== undefined && !atLeast(parseVersion(python)!, parseVersion(need)!))
    missing.push(`python3 >= ${need}${from('python')}, python3 is ${python}`);
  const named = (prefix: string) =>
    lines
      .filter((line) => line.startsWith(prefix))
      .map((line) => line.slice(prefix.length) + from(line.slice(prefix.length)));
  const packages = named('package-missing ');
  if (packages.length > 0) missing.push(`Python packages ${packages.join(', ')}`);
  const commands = named('command-missing ');
  if (commands.length > 0) missing.push(`programs on PATH: ${commands.join(', ')}`);
  return missing;
}

/** `task X cannot run WHERE (on this host, in image Y): missing …`, as environments report it. */
export function requirementsProblem(taskId: string, where: string, missing: readonly string[]): string {
  return `task ${taskId} cannot run ${where}: missing ${missing.join('; ')}`;
}
