import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import { delimiter, join } from 'node:path';

/**
 * A warning when the first `python3` on PATH is a version manager's shim (pyenv's, asdf's: a
 * script in a `shims` folder that looks the interpreter up at every start). Hidden tests start
 * Python thousands of times, and through a shim the quickstart takes about three times as long.
 */
export async function pythonShimWarning(path = process.env.PATH ?? ''): Promise<string | undefined> {
  for (const dir of path.split(delimiter).filter(Boolean)) {
    const file = join(dir, 'python3');
    const found = await access(file, constants.X_OK).then(
      () => true,
      () => false,
    );
    if (!found) continue;
    if (!/[/\\]shims[/\\]?$/.test(dir)) return undefined;
    return `python3 on PATH is a version manager's shim (${file}): the hidden tests start it thousands of times, several times slower than the interpreter itself; put the interpreter's folder first (e.g. PATH=/usr/bin:$PATH)`;
  }
  return undefined;
}
