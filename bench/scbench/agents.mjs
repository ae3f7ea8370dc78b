// The agents the agreement is measured on, as copies of a problem whose reference solutions are
// what each agent would leave: both sides then judge the same workspace (longhaul's oracle writes
// the copy's "reference", upstream's runner reads it as the submission).
import { chmodSync, cpSync, existsSync, mkdirSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';

export const agentNames = ['reference', 'lagging', 'broken'];

/** The problem without its solutions, copied to `target`. */
function copyProblem(problemDir, target) {
  mkdirSync(target, { recursive: true });
  for (const item of readdirSync(problemDir))
    if (item !== 'solutions') cpSync(join(problemDir, item), join(target, item), { recursive: true });
}

/**
 * A wrapper entry file that exits 1 when given an even number of arguments (none included) and
 * runs the reference otherwise: an agent that got part of every checkpoint wrong.
 */
function breakEntry(dir, entryFile) {
  const entry = join(dir, entryFile);
  if (!existsSync(entry)) return;
  const real = `_reference_${basename(entryFile)}`;
  renameSync(entry, join(dir, real));
  writeFileSync(
    entry,
    [
      'import os',
      'import runpy',
      'import sys',
      '',
      'if (len(sys.argv) - 1) % 2 == 0:',
      '    sys.exit(1)',
      `runpy.run_path(os.path.join(os.path.dirname(os.path.abspath(__file__)), ${JSON.stringify(real)}), run_name="__main__")`,
      '',
    ].join('\n'),
  );
  chmodSync(entry, 0o755);
}

/**
 * The problem directory for `agent`: the problem itself for `reference`; for `lagging`, a copy
 * whose checkpoint k holds checkpoint k-1's reference (nothing at the first); for `broken`, a copy
 * whose every reference exits 1 on an even number of arguments.
 */
export function agentProblem(problemDir, config, names, agent, work) {
  if (agent === 'reference') return problemDir;
  const target = join(work, 'agents', agent, basename(problemDir));
  if (existsSync(target)) return target;
  copyProblem(problemDir, target);
  const solutions = join(problemDir, 'solutions');
  const entryFile = /\.[A-Za-z0-9]+$/.test(config.entry_file) ? config.entry_file : `${config.entry_file}.py`;
  for (const [index, name] of names.entries()) {
    if (!existsSync(join(solutions, name))) continue;
    const into = join(target, 'solutions', name);
    mkdirSync(into, { recursive: true });
    if (agent === 'lagging') {
      if (index > 0 && existsSync(join(solutions, names[index - 1])))
        cpSync(join(solutions, names[index - 1]), into, { recursive: true });
    } else {
      cpSync(join(solutions, name), into, { recursive: true });
      breakEntry(into, entryFile);
    }
  }
  return target;
}
