import { z } from 'zod';
import { timerMs } from '../config/timer-limit.js';

/**
 * A task whose hidden tests are a pytest suite (SlopCodeBench's format) instead of case files. The
 * source puts it in `task.metadata.pytest`; the tests scorer runs it for each step, in the judge
 * area of its sandbox (see JudgeArea), and reads the per-test results its pytest plugin records.
 */
export const pytestSuiteKey = 'pytest';

export const pytestCategories = ['core', 'functionality', 'error', 'regression'] as const;

export const pytestSuiteSchema = z.strictObject({
  /** Host directory with conftest.py and test_<checkpoint>.py files (and data/). */
  testsDir: z.string().min(1),
  /** Interpreter that has pytest, e.g. /usr/bin/python3 on Debian with python3-pytest. */
  python: z.string().min(1),
  /** The full command that runs the solution, passed as --entrypoint. */
  entrypoint: z.string().min(1),
  /** One per step, in step order: the name passed as --checkpoint and its test file. */
  checkpoints: z.array(
    z.strictObject({
      name: z.string().min(1),
      file: z.string().min(1),
      /** Also run the test files of every earlier checkpoint, scored as regression. */
      includePrior: z.boolean(),
      /** Seconds one test may take, passed as pytest-timeout's `--timeout` (SlopCodeBench's `timeout`). */
      testTimeoutSeconds: z.number().positive().optional(),
    }),
  ),
  /**
   * Static assets: name → path relative to the problem directory (the parent of `testsDir`), which
   * is also where the workspace holds it. The scorer copies each to `tests/assets/<name>` and names
   * it in `SCBENCH_ASSET_<NAME>`, as SlopCodeBench's runner does.
   */
  staticAssets: z.record(z.string(), z.string()),
  /** Custom markers and the category each puts a test in. */
  markers: z.record(z.string(), z.enum(pytestCategories)),
  /** Wall clock for one pytest run; a run past it fails the checkpoint, with that reason. */
  timeoutMs: timerMs(),
});
export type PytestSuite = z.output<typeof pytestSuiteSchema>;
