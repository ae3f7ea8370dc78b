import type { StepSuite } from './suite.js';

/** The tests one run executes: files to write (latest version wins), the modules to run and the ids it is judged on. */
export interface ActiveSuite {
  /** Repository path → the suite whose version of the file is written. */
  files: Map<string, StepSuite>;
  /** The runnable test modules, the runner's arguments (support files are written, never passed). */
  modules: string[];
  /** Test ids judged, each with the PR that brought it into the suite. */
  ids: Map<string, number>;
}

/**
 * The suite of the PR `suites.at(-1)`, cascading over `suites` (every PR so far, in chain order):
 * the F2P and P2P of each. A later PR's version of a test file replaces an earlier one (the last
 * suite's `restore` holds, as the last PR left them, the files other steps hide); an
 * earlier PR's test in a file a later PR rewrote stays in the suite only if the later PR still
 * lists it (otherwise the later PR removed or replaced it, and the gold trace would fail it too).
 */
export function activeSuite(suites: readonly StepSuite[]): ActiveSuite {
  const files = new Map<string, StepSuite>();
  for (const suite of suites)
    for (const file of [...suite.restore, ...suite.supportFiles, ...suite.testFiles]) files.set(file, suite);
  const modules = [...new Set(suites.flatMap((suite) => suite.testFiles))].sort();
  const ids = new Map<string, number>();
  suites.forEach((suite, j) => {
    const later = suites.slice(j + 1);
    for (const id of [...suite.f2p, ...suite.p2p]) if (!isSuperseded(id, later)) ids.set(id, suite.pr);
  });
  return { files, modules, ids };
}

/**
 * Whether a later PR rewrote the test file of `id` and no longer lists the test: it removed or
 * replaced it, so the state after that PR fails it whatever the agent did (the gold trace too).
 */
export function isSuperseded(
  id: string,
  later: readonly Pick<StepSuite, 'testFiles' | 'f2p' | 'p2p'>[],
): boolean {
  const file = id.split('::')[0]!;
  return later.some(
    (next) => next.testFiles.includes(file) && !next.f2p.includes(id) && !next.p2p.includes(id),
  );
}
