import type { Requirements } from '../contracts/task.js';

/** Names go into a shell script between single quotes, so only these characters are allowed. */
const safeName = /^[A-Za-z0-9][A-Za-z0-9._+-]*$/;

/** An interpreter named in `interpreters`: a path or a program name, as safe as a package name. */
const safeInterpreter = /^[A-Za-z0-9/][A-Za-z0-9/._+-]*$/;

// No single quote inside: the program is passed to `python3 -c '…'`. Its first argument is the
// prefix of its lines: empty for python3 on PATH, `interpreter PATH ` for another interpreter.
const pythonProgram = [
  'import sys',
  'tag = sys.argv[1]',
  'print(tag + "python %d.%d.%d" % sys.version_info[:3])',
  'from importlib import metadata',
  'for name in sys.argv[2:]:',
  '    try:',
  '        metadata.distribution(name)',
  '    except metadata.PackageNotFoundError:',
  '        print(tag + "package-missing " + name)',
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
  const interpreters = Object.entries(requires.interpreters ?? {});
  for (const name of [
    ...(requires.pythonPackages ?? []),
    ...(requires.commands ?? []),
    ...interpreters.flatMap(([, packages]) => packages),
  ])
    if (!safeName.test(name)) issues.push(`'${name}' is not a package or program name`);
  for (const [interpreter] of interpreters)
    if (!safeInterpreter.test(interpreter))
      issues.push(`'${interpreter}' is not an interpreter's path or name`);
  return issues;
}

/**
 * Every Python distribution `requires` asks for, of python3 on PATH and of the other interpreters
 * together: what an image must hold when one Python serves them all (a container's).
 */
export function pythonPackagesOf(requires: Requirements): string[] {
  return [
    ...new Set([...(requires.pythonPackages ?? []), ...Object.values(requires.interpreters ?? {}).flat()]),
  ];
}

/** True when there is nothing to check. */
export function requiresNothing(requires: Requirements | undefined): boolean {
  return (
    requires === undefined ||
    (requires.python === undefined &&
      (requires.pythonPackages ?? []).length === 0 &&
      (requires.commands ?? []).length === 0 &&
      Object.keys(requires.interpreters ?? {}).length === 0)
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
      `if command -v python3 >/dev/null 2>&1; then python3 -c '${pythonProgram}' '' ${quote(packages)} || echo python-failed; else echo python-missing; fi`,
    );
  // Each other interpreter answers for itself: its lines carry `interpreter PATH ` before them.
  for (const [interpreter, wanted] of Object.entries(requires.interpreters ?? {})) {
    const tag = `interpreter ${interpreter} `;
    lines.push(
      `if command -v '${interpreter}' >/dev/null 2>&1; then '${interpreter}' -c '${pythonProgram}' '${tag}' ${quote(wanted)} || echo '${tag}python-failed'; else echo '${tag}python-missing'; fi`,
    );
  }
  return ['sh', '-c', lines.join('\n') || 'true'];
}

/** What the probe's output says is missing, one phrase each (empty: everything is there). */
export function missingRequirements(requires: Requirements, output: string): string[] {
  const all = output.split('\n').map((line) => line.trim());
  const from = (key: string) => (requires.origins?.[key] ? ` (${requires.origins[key]})` : '');
  const named = (lines: string[], prefix: string) =>
    lines
      .filter((line) => line.startsWith(prefix))
      .map((line) => line.slice(prefix.length) + from(line.slice(prefix.length)));
  const need = requires.python;
  /** What one interpreter lacks: its lines, what it is called in the message, and where it should be. */
  const pythonMissing = (lines: string[], name: string, where: string) => {
    const found: string[] = [];
    const version = lines.find((line) => line.startsWith('python '))?.slice('python '.length);
    if (lines.includes('python-missing'))
      found.push(`${name}${need ? ` >= ${need}` : ''}${from('python')}, ${where}`);
    else if (lines.includes('python-failed') && version === undefined) found.push(`a working ${name}`);
    else if (
      need !== undefined &&
      version !== undefined &&
      !atLeast(parseVersion(version)!, parseVersion(need)!)
    )
      found.push(`${name} >= ${need}${from('python')}, ${name} is ${version}`);
    return { found, packages: named(lines, 'package-missing ') };
  };
  const missing: string[] = [];
  const own = all.filter((line) => !line.startsWith('interpreter '));
  const path = pythonMissing(own, 'python3', 'not on PATH');
  missing.push(...path.found);
  if (path.packages.length > 0) missing.push(`Python packages ${path.packages.join(', ')}`);
  for (const interpreter of Object.keys(requires.interpreters ?? {})) {
    const tag = `interpreter ${interpreter} `;
    const lines = all.filter((line) => line.startsWith(tag)).map((line) => line.slice(tag.length));
    const other = pythonMissing(lines, interpreter, 'not there');
    missing.push(...other.found);
    if (other.packages.length > 0)
      missing.push(`Python packages in ${interpreter}: ${other.packages.join(', ')}`);
  }
  const commands = named(own, 'command-missing ');
  if (commands.length > 0) missing.push(`programs on PATH: ${commands.join(', ')}`);
  return missing;
}

/** `task X cannot run WHERE (on this host, in image Y): missing …`, as environments report it. */
export function requirementsProblem(taskId: string, where: string, missing: readonly string[]): string {
  return `task ${taskId} cannot run ${where}: missing ${missing.join('; ')}`;
}
