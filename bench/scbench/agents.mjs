// The agents the agreement is measured on, as folders of what each leaves at each checkpoint: both
// sides then judge the same workspace (longhaul's oracle writes it, upstream's runner reads it as
// the submission), and the problem keeps its reference solutions, which longhaul's judge runs to
// check itself when a run breaks.
import { chmodSync, cpSync, existsSync, mkdirSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

export const agentNames = ['reference', 'lagging', 'broken'];

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
 * The folder of what `agent` leaves at each checkpoint, one sub-folder per checkpoint, at
 * `<work>/agents/<agent>/<problem>`: the problem's own `solutions/` for `reference`; for `lagging`, checkpoint k-1's reference at
 * checkpoint k (an empty workspace at the first); for `broken`, each reference behind an entry
 * file that exits 1 on an even number of arguments. longhaul's oracle writes them (its
 * `solutions` option) while the problem keeps its reference, and upstream's runner judges them.
 */
export function agentWorkspaces(problemDir, config, names, agent, work) {
  const solutions = join(problemDir, 'solutions');
  const target = join(work, 'agents', agent, basename(problemDir));
  if (existsSync(target)) return target;
  if (agent === 'reference') {
    // The oracle's solutions folder is <task id>/<step id>: the problem's solutions, linked.
    mkdirSync(dirname(target), { recursive: true });
    symlinkSync(solutions, target);
    return target;
  }
  const entryFile = /\.[A-Za-z0-9]+$/.test(config.entry_file) ? config.entry_file : `${config.entry_file}.py`;
  for (const [index, name] of names.entries()) {
    if (!existsSync(join(solutions, name))) continue;
    const into = join(target, name);
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
